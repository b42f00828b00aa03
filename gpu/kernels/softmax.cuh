// SPDX-License-Identifier: Apache-2.0
#pragma once
// softmax and log_softmax kernel, canonical tier, bit-exact with reference/softmax.h
// (docs/spec/softmax.md).
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32 (entries [V, pitch) are
//   padding, never read); temperature: rows f32 when has_temperature (validated finite and > 0
//   by the caller); out: rows x V f32.
// - Per row, every step one IEEE f32 operation, as the reference:
//     y_i = x_i / t (only with a temperature)  m = canonical max of y (gpu/block/block_reduce.cuh)
//     d_i = y_i - m   e_i = ExpF32Cr(d_i)   s = canonical sum of e
//     softmax: out_i = e_i / s        log_softmax: out_i = d_i - LogF32Cr(s)
//   Thread l handles indices l, l + 1024, ... in increasing order in every pass, so its lane
//   accumulator folds exactly the reference's lane l.
// - Owned exp and log (reference/math/), device code compiled with -fmad=false.
// - Rows without a finite maximum give NaN everywhere, as the reference.
// Example: logits {0, 0} -> probs {0.5, 0.5} (tests/gpu_kernels_test.cc).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/lane_scan.cuh"
#include "gpu/kernels/greedy.cuh"
#include "reference/math/exp.h"
#include "reference/math/log.h"

namespace sampcheck::gpu {

struct SoftmaxKernel {
  static constexpr const char* kName = "softmax";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class In, class Temp, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Temp temperature, bool has_temperature, Out out,
                                        std::int64_t vocab, std::int64_t pitch, bool log) const {
    const std::int64_t row = block.index();
    const float t = has_temperature ? temperature.Load(row) : 1.0f;
    // y_i: a division only when there is a temperature (x / 1 would quiet a signalling NaN).
    auto scale = [&](float x) { return has_temperature ? x / t : x; };
    auto load = [&](std::int64_t i) { return logits.Load(row * pitch + i); };
    auto lane = Registers<float>(block);
    block.ForEachThread([&](Thread th) {
      float m = NegativeInfinity();
      for (std::int64_t i = th.x; i < vocab; i += kCanonicalLanes) m = MaxCombine{}(m, scale(load(i)));
      lane[th] = m;
    });
    auto m = CanonicalBlockReduce<float>(block, lane, MaxCombine{});
    block.ForEachThread([&](Thread th) {
      float acc = -0.0f;  // the sum's identity
      // A group's loads before its exponentials and stores (ForEachLaneEntry): the same
      // operations in the same order.
      ForEachLaneEntry<kLaneSumGroup>(th.x, vocab, kCanonicalLanes, load, [&](std::int64_t i, float x) {
        const float d = scale(x) - m[th];
        const float e = math::ExpF32Cr(d);
        out.Store(row * vocab + i, log ? d : e);
        acc = acc + e;
      });
      lane[th] = acc;
    });
    auto s = CanonicalBlockReduce<float>(block, lane, SumCombine{});
    block.ForEachThread([&](Thread th) {
      const float log_s = log ? math::LogF32Cr(s[th]) : 0.0f;
      ForEachLaneEntry<kLaneSumGroup>(
          th.x, vocab, kCanonicalLanes, [&](std::int64_t i) { return out.Load(row * vocab + i); },
          [&](std::int64_t i, float v) { out.Store(row * vocab + i, log ? v - log_s : v / s[th]); });
    });
  }
};

}  // namespace sampcheck::gpu
