// SPDX-License-Identifier: Apache-2.0
#pragma once
// inverse_cdf kernel: the inverse-CDF draw given a uniform u, canonical tier, bit-exact with
// reference/inverse_cdf.h (docs/spec/draws.md "inverse_cdf"); and the block draw it is built
// on, which gpu/kernels/spec_random.cuh reuses for FlashInfer's residual draw
// (docs/spec/speculative.md "flashinfer").
//
// Contract of BlockInverseCdfDraw(block, weight, vocab, u, fallback_last_positive):
// - The block has kLanes threads (any count: the additions are serial). weight(t, i) returns
//   w_i (finite, >= 0) for i in [0, vocab), called in thread t's phase (so it may read t's
//   registers); u[t] holds the uniform in thread 0 (other threads' values are not read).
// - The canonical scan order IS sequential (docs/spec/draws.md: C_i = C_{i-1} + w_i in f32 from
//   +0.0, left to right): a rounded running sum has no reassociation that keeps its bits, so
//   the additions are done by ONE thread, in index order. The block only stages the row through
//   shared memory in tiles of kLanes (thread l loads w_{base + l}: coalesced on the device), and
//   thread 0 folds each tile in order.
//   Pass 1: total C_{V-1} and the last i with w_i > 0.
//   x = u * C_{V-1} (one f32 product, in thread 0).
//   Pass 2: the running sum again from +0.0; the token is the first i with w_i > 0 and x < C_i.
//   Once found, the remaining tiles are neither loaded nor scanned (a flag in shared memory,
//   read by every thread after a barrier).
//   None found (x rounded up to C_{V-1}, or every w_i = 0): the last i with w_i > 0 when
//   fallback_last_positive (inverse_cdf), else vocab - 1 (FlashInfer's initial sampled_id).
// - Returns the index in every thread. Ends with a barrier.
//
// Contract of InverseCdfKernel:
// - One block of kBlock threads per row (1024, or 32 when V <= kOneWarpVocab, as the argmax
//   kernels: the serial scan does not depend on it). probs: rows x pitch f32 (entries [V, pitch) are padding, never
//   read); u: rows f32 in [0, 1); token: rows i64. The caller has checked probs finite >= 0 with a positive entry per
//   row and u in [0, 1), as the reference does.
// - token = BlockInverseCdfDraw(w_i = probs_i, u_b, fallback to the last positive).
// - Canonical tier (a running sum in the reference's order); profile canonical.
// Example (docs/spec/draws.md): probs {0.25, 0, 0.75}: u = 0 -> 0; u = 0.25 -> 2 (t = 0.25 is
// not below C_0 = 0.25, token 1 has probability 0); unnormalised {3, 0, 1}, u = 0.75 -> 2
// (tests/gpu_kernels_test.cc, GpuInverseCdf).

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"

namespace sampcheck::gpu {

template <int kLanes, class B, class Weight, class R>
SAMPCHECK_KERNEL_BODY auto BlockInverseCdfDraw(B& block, Weight weight, std::int64_t vocab, const R& u,
                                               bool fallback_last_positive) {
  SAMPCHECK_SHARED(block, float, tile, kLanes);
  SAMPCHECK_SHARED(block, std::int64_t, drawn, 1);  // -1 until pass 2 finds the token
  auto running = Registers<float>(block);
  auto last_positive = Registers<std::int64_t>(block);
  block.ForEachThread([&](Thread t) {
    running[t] = 0.0f;
    last_positive[t] = -1;
    if (t.x == 0) drawn.Store(0, -1);
  });
  // Pass 1: the total, thread 0 folding each staged tile in index order.
  for (std::int64_t base = 0; base < vocab; base += kLanes) {
    block.ForEachThread([&](Thread t) {
      if (base + t.x < vocab) tile.Store(t.x, weight(t, base + t.x));
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      const std::int64_t n = vocab - base < kLanes ? vocab - base : kLanes;
      float c = running[t];
      for (std::int64_t k = 0; k < n; ++k) {
        const float w = tile.Load(k);
        c = c + w;
        if (w > 0.0f) last_positive[t] = base + k;
      }
      running[t] = c;
    });
    block.Sync();
  }
  auto x = Registers<float>(block);
  block.ForEachThread([&](Thread t) {
    x[t] = u[t] * running[t];  // meaningful in thread 0 only
    running[t] = 0.0f;
  });
  // Pass 2: the first i with w_i > 0 and x < C_i.
  for (std::int64_t base = 0; base < vocab; base += kLanes) {
    block.ForEachThread([&](Thread t) {
      if (drawn.Load(0) >= 0) return;  // found in an earlier tile: nothing more to load
      if (base + t.x < vocab) tile.Store(t.x, weight(t, base + t.x));
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      if (t.x != 0 || drawn.Load(0) >= 0) return;
      const std::int64_t n = vocab - base < kLanes ? vocab - base : kLanes;
      float c = running[t];
      for (std::int64_t k = 0; k < n; ++k) {
        const float w = tile.Load(k);
        c = c + w;
        if (w > 0.0f && x[t] < c) {
          drawn.Store(0, base + k);
          break;
        }
      }
      running[t] = c;
    });
    block.Sync();
  }
  block.ForEachThread([&](Thread t) {
    if (t.x == 0 && drawn.Load(0) < 0) drawn.Store(0, fallback_last_positive ? last_positive[t] : vocab - 1);
  });
  block.Sync();
  auto token = Registers<std::int64_t>(block);
  block.ForEachThread([&](Thread t) { token[t] = drawn.Load(0); });
  block.Sync();
  return token;
}

template <int kBlock = kCanonicalLanes>
struct InverseCdfKernel {
  static constexpr const char* kName = "inverse_cdf";
  static constexpr int kThreads = kBlock;

  template <class B, class In, class U, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In probs, U u, Out token, std::int64_t vocab,
                                        std::int64_t pitch) const {
    const std::int64_t row = block.index();
    auto ub = Registers<float>(block);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) ub[t] = u.Load(row);
    });
    auto weight = [&](Thread, std::int64_t i) { return probs.Load(row * pitch + i); };
    auto drawn = BlockInverseCdfDraw<kBlock>(block, weight, vocab, ub, true);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) token.Store(row, drawn[t]);
    });
  }
};

}  // namespace sampcheck::gpu
