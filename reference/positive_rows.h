// SPDX-License-Identifier: Apache-2.0
#pragma once
// The draw stages' shared row check (docs/spec/draws.md): a row of probabilities with no entry
// > 0 has nothing to draw, and is an error naming the row. Read by the parse functions of
// exponential_race, inverse_cdf, qsample and the seeded draws, so the check and its message exist
// once.

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>

#include "reference/stage_io.h"

namespace sampcheck::reference {

// Fails through `in` ("row b has no positive probability: nothing can be drawn") unless row b
// of the row-major [B, vocab] `probs` holds an entry > 0 (NaN and -0.0 are not).
inline void ExpectPositiveRow(const StageInputs& in, std::span<const float> probs, std::int64_t vocab, std::int64_t b) {
  const auto row = probs.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
  if (std::none_of(row.begin(), row.end(), [](float x) { return x > 0.0f; })) {
    in.Fail("row " + std::to_string(b) + " has no positive probability: nothing can be drawn");
  }
}

}  // namespace sampcheck::reference
