// SPDX-License-Identifier: Apache-2.0
#pragma once
// penalties kernel (repetition, frequency, presence), exact tier, bit-exact with
// reference/penalties.h (docs/spec/penalties.md).
//
// Contract:
// - One block of 1024 threads per row; thread l owns tokens t = l, l + 1024, ... < V and
//   computes everything about t itself, so no word is shared and no barrier is needed.
//   logits: rows x pitch f32 (entries [V, pitch) are padding, never read); prompt_ids
//   [rows, Lp] and output_ids [rows, Lo] i32 (-1 padding anywhere, ids checked by the caller;
//   a prompt id >= V equals no t < V, so it penalises nothing, as the spec asks;
//   Lp = 0 or Lo = 0 when absent); rep, freq, pres: one f32 per row (absent: 1, 0, 0,
//   resolved by the caller); out: rows x V f32.
// - count[t] = occurrences of t in the output ids (a scan of the row's ids per token: the
//   per-token work is O(Lo + Lp), and no atomics are needed).
//   canonical / vllm: if t is in the output or the prompt: x = x > 0 ? x / r : x * r; then
//     x = x - f * float(count); x = x - p * float(min(count, 1)); every step one f32 rounding.
//   sglang (additive): F = +0.0f plus f added count times (one rounding each: the same
//     value every time, so the order does not matter); P = count > 0 ? p : +0.0f;
//     x = x + ((0 - F) - P); then, if count > 0: x = x < 0 ? x * r : x / r.
// Example: logits {2, -2, 1}, output ids {0, 0}, r = 2, f = 0.5, p = 0.25 -> {-0.25, -2, 1}.

#include <cstdint>

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

struct PenaltiesKernel {
  static constexpr const char* kName = "penalties";
  static constexpr int kThreads = 1024;

  template <class B, class In, class Ids, class Coeff, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Ids prompt_ids, std::int64_t prompt_len, Ids output_ids,
                                        std::int64_t output_len, Coeff rep, Coeff freq, Coeff pres, Out out,
                                        std::int64_t vocab, std::int64_t pitch, bool additive) const {
    const std::int64_t row = block.index();
    const float r = rep.Load(row);
    const float f = freq.Load(row);
    const float p = pres.Load(row);
    block.ForEachThread([&](Thread th) {
      for (std::int64_t t = th.x; t < vocab; t += kThreads) {
        std::int32_t count = 0;
        float linear = 0.0f;  // sglang's scatter-added frequency term
        for (std::int64_t k = 0; k < output_len; ++k) {
          if (output_ids.Load(row * output_len + k) == t) {
            ++count;
            linear = linear + f;
          }
        }
        float x = logits.Load(row * pitch + t);
        if (additive) {
          const float presence = count > 0 ? p : 0.0f;
          x = x + ((0.0f - linear) - presence);
          if (count > 0) x = x < 0.0f ? x * r : x / r;
        } else {
          bool seen = count > 0;
          for (std::int64_t k = 0; k < prompt_len && !seen; ++k) seen = prompt_ids.Load(row * prompt_len + k) == t;
          if (seen) x = x > 0.0f ? x / r : x * r;
          const std::int32_t seen_output = count < 1 ? count : 1;
          x = x - f * static_cast<float>(count);
          x = x - p * static_cast<float>(seen_output);
        }
        out.Store(row * vocab + t, x);
      }
    });
  }
};

}  // namespace sampcheck::gpu
