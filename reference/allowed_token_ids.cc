// SPDX-License-Identifier: Apache-2.0
// allowed_token_ids (reference/allowed_token_ids.h, docs/spec/masks.md#allowed_token_ids).
#include "reference/allowed_token_ids.h"

#include <limits>
#include <vector>

#include "reference/stage_io.h"

namespace sampcheck::reference {

TensorMap RunAllowedTokenIds(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "allowed_token_ids");
  Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const Tensor& allowed = in.Required("allowed_ids", DType::kI32, 2);
  in.ExpectDim("allowed_ids", allowed, 0, rows);
  in.ExpectIdsOrPadding("allowed_ids", allowed, vocab);

  LogitsMap x = AsArray(logits);
  std::vector<std::uint8_t> keep(static_cast<std::size_t>(vocab));
  for (std::int64_t b = 0; b < rows; ++b) {
    std::fill(keep.begin(), keep.end(), 0);
    bool any = false;
    for (std::int32_t t : Row(allowed, b)) {
      if (t >= 0) keep[static_cast<std::size_t>(t)] = 1, any = true;
    }
    if (!any) continue;
    for (std::int64_t t = 0; t < vocab; ++t) {
      if (!keep[static_cast<std::size_t>(t)]) x(b, t) = -std::numeric_limits<float>::infinity();
    }
  }
  return {{"logits", std::move(logits)}};
}

}  // namespace sampcheck::reference
