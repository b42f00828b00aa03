// SPDX-License-Identifier: Apache-2.0
#pragma once
// temperature kernel: divide each row by its temperature; rows below the profile's epsilon
// are greedy rows. Bit-exact with reference/temperature.h (docs/spec/temperature.md).
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32 (entries [V, pitch) are
//   padding, never read); temperature: rows f32, validated finite and >= 0 by the caller;
//   out: rows x V f32; is_greedy: rows u8 (0/1).
// - The profile's rule arrives as numbers (TemperatureRule): t is first raised to min_temp
//   when 0 < t < min_temp (vllm: 0.01; others: no raise, min_temp = 0); greedy iff
//   double(t) < eps. Comparisons in double, as the peers make them in Python.
// - Greedy rows are divided by 1.0f, other rows by t: one IEEE f32 division per entry (the
//   reference divides greedy rows by 1.0f too, so a signalling NaN is quieted in both).
// - Exact tier, no randomness.
// Example: logits {1, 2}, t = 0.5 -> {2, 4}; t = 0 -> {1, 2}, greedy (tests/gpu_kernels_test.cc).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/kernels/stage_rules.h"

namespace sampcheck::gpu {

struct TemperatureKernel {
  static constexpr const char* kName = "temperature";
  static constexpr int kThreads = 1024;

  template <class B, class In, class Temp, class Out, class Greedy>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Temp temperature, Out out, Greedy is_greedy,
                                        std::int64_t vocab, std::int64_t pitch, TemperatureRule rule) const {
    const std::int64_t row = block.index();
    float t = temperature.Load(row);
    if (t > 0.0f && static_cast<double>(t) < rule.min_temp) t = static_cast<float>(rule.min_temp);
    const bool greedy = static_cast<double>(t) < rule.eps;
    const float divisor = greedy ? 1.0f : t;
    block.ForEachThread([&](Thread th) {
      if (th.x == 0) is_greedy.Store(row, static_cast<std::uint8_t>(greedy ? 1 : 0));
      for (std::int64_t i = th.x; i < vocab; i += kThreads) {
        out.Store(row * vocab + i, logits.Load(row * pitch + i) / divisor);
      }
    });
  }
};

}  // namespace sampcheck::gpu
