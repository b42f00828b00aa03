// SPDX-License-Identifier: Apache-2.0
#pragma once
// An inverse_cdf case whose draws through Run take several batches (harness/draw_harness.h
// CountDrawsThroughRun: batches of 2^21 / (rows V) draws): two rows of V = 2048, so batches of
// 2^21 / 4096 = 512 draws. Its u input is a placeholder: the harness replaces it with its noise.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/case.h"

namespace sampcheck::testing {

inline constexpr std::int64_t kDrawsPerBatch = 512;

inline Case InverseCdfBatchesCase(std::string id) {
  Case c;
  c.id = std::move(id);
  c.stage = "inverse_cdf";
  std::vector<float> probs(2 * 2048);
  for (std::size_t i = 0; i < probs.size(); ++i) probs[i] = static_cast<float>(1 + (i * 7919) % 97);
  c.inputs.emplace("probs", Tensor::FromValues<float>(DType::kF32, {2, 2048}, probs));
  c.inputs.emplace("u", Tensor(DType::kF32, {2}));
  return c;
}

}  // namespace sampcheck::testing
