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
// - point_mass (spec_step's canonical and block_verification positions, docs/spec/spec_step.md
//   "Degenerate rows"; the reference's SpecStepPointMassToken): the same read folds the
//   divided row's argmax in torch.argmax's order (gpu/block/block_argmax.cuh RowArgmax: the
//   first NaN, else the first maximum, (-inf, 0) for a row of -inf). A row whose argmax value
//   is a NaN or infinite (+inf, or -inf: no finite entry) is degenerate and its token t* is
//   that index; the row is then rewritten as its point mass in logit space, 0 at t* and -inf
//   elsewhere, whose softmax is exactly 1 and +0 and which every filter keeps as it is (one
//   finite entry). No second read; the argmax tree's barriers only under point_mass.
// - Exact tier, no randomness.
// Example: logits {1, 2}, t = 0.5 -> {2, 4}; t = 0 -> {1, 2}, greedy; {1, NaN, +inf} with
//   point_mass -> {-inf, 0, -inf} (tests/gpu_kernels_test.cc).

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/kernels/stage_rules.h"

namespace sampcheck::gpu {

struct TemperatureKernel {
  static constexpr const char* kName = "temperature";
  static constexpr int kThreads = 1024;

  template <class B, class In, class Temp, class Out, class Greedy>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Temp temperature, Out out, Greedy is_greedy,
                                        std::int64_t vocab, std::int64_t pitch, TemperatureRule rule,
                                        bool point_mass) const {
    const std::int64_t row = block.index();
    float t = temperature.Load(row);
    if (t > 0.0f && static_cast<double>(t) < rule.min_temp) t = static_cast<float>(rule.min_temp);
    const bool greedy = static_cast<double>(t) < rule.eps;
    const float divisor = greedy ? 1.0f : t;
    if (!point_mass) {
      block.ForEachThread([&](Thread th) {
        if (th.x == 0) is_greedy.Store(row, static_cast<std::uint8_t>(greedy ? 1 : 0));
        for (std::int64_t i = th.x; i < vocab; i += kThreads) {
          out.Store(row * vocab + i, logits.Load(row * pitch + i) / divisor);
        }
      });
      return;
    }
    auto value = Registers<float>(block);
    auto index = Registers<std::int64_t>(block);
    RowArgmax<kThreads>(block, vocab, value, index, ArgmaxAboveF32{}, [&](Thread th, std::int64_t i, float& x) {
      if (th.x == 0 && i == 0) is_greedy.Store(row, static_cast<std::uint8_t>(greedy ? 1 : 0));
      x = logits.Load(row * pitch + i) / divisor;
      out.Store(row * vocab + i, x);
      return true;
    });
    // Each thread rewrites only the entries it wrote above: no barrier between.
    block.ForEachThread([&](Thread th) {
      const float top = value[th];
      if (!IsNan(top) && top <= 0x1.fffffep+127f && top >= -0x1.fffffep+127f) return;  // finite maximum: healthy
      for (std::int64_t i = th.x; i < vocab; i += kThreads) {
        out.Store(row * vocab + i, i == index[th] ? 0.0f : NegativeInfinity());
      }
    });
  }
};

}  // namespace sampcheck::gpu
