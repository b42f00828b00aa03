// SPDX-License-Identifier: Apache-2.0
#pragma once
// qsample kernel: Ascend's QSample step, argmax(probs / (|q| + eps)) with the noise given,
// exact tier, bit-exact with reference/qsample.h (docs/spec/draws.md "qsample").
//
// Contract:
// - One block of kBlock threads per row (1024, or one warp of 32 when V <= kOneWarpVocab:
//   gpu/block/block_argmax.cuh; the winner is the same). probs and q: rows x pitch f32 (entries [V, pitch) are
//   padding, never read); eps f32 (finite >= 0, already rounded to f32 as the op's tiling
//   reads it); token: rows i64, the position in the row. The caller has checked probs finite
//   >= 0 with a positive entry per row and q finite, as the reference does.
// - Per position, each step one f32 rounding, as the kernel's Abs, Adds(eps), Div:
//     r_j = probs_j / (|q_j| + eps)        (|q| clears the sign bit: exact)
// - token = the first j maximising r over EVERY position, NaN above every number: the first
//   NaN (0 / 0: probs 0, q 0, eps 0) wins — torch.argmax's order, which is greedy.cuh's
//   ArgmaxAbove exactly. Thread l folds l, l + kBlock, ... in order, then the canonical tree
//   (gpu/block/block_argmax.cuh).
// - Exact tier; profile ascend_v2.
// Example: probs {4/7, 2/7}, q {1, 0.25}, eps 1e-8 -> 1; probs {0.25, 0.75, 0}, q {0, 0, 0},
// eps 0: r = {+inf, +inf, NaN} -> 2 (tests/gpu_kernels_test.cc, GpuQSample).

#include <cstdint>
#include <cstring>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/kernels/greedy.cuh"

namespace sampcheck::gpu {

// |x| by clearing the sign bit: exact, no libm call, identical on host and device.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float AbsF32(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  u &= 0x7fffffffu;
  std::memcpy(&x, &u, sizeof u);
  return x;
}

template <int kBlock = kCanonicalLanes>
struct QSampleKernel {
  static constexpr const char* kName = "qsample";
  static constexpr int kThreads = kBlock;

  template <class B, class In, class Noise, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In probs, Noise q, Out token, std::int64_t vocab, std::int64_t pitch,
                                        float eps) const {
    const std::int64_t row = block.index();
    auto value = Registers<float>(block);
    auto index = Registers<std::int64_t>(block);
    RowArgmax<kBlock>(block, vocab, value, index, ArgmaxAboveF32{}, [&](Thread, std::int64_t i, float& r) {
      const float d = AbsF32(q.Load(row * pitch + i)) + eps;
      r = probs.Load(row * pitch + i) / d;
      return true;
    });
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) token.Store(row, index[t]);
    });
  }
};

}  // namespace sampcheck::gpu
