// SPDX-License-Identifier: Apache-2.0
#pragma once
// exponential_race kernel: argmax(probs / q) given Exp(1) noise q, exact tier, bit-exact with
// reference/exponential_race.h (docs/spec/draws.md "exponential_race").
//
// Contract:
// - One block of kBlock threads per row (1024, or one warp of 32 when V <= kOneWarpVocab:
//   gpu/block/block_argmax.cuh; the winner is the same). probs and q: rows x pitch f32 (entries [V, pitch) are
//   padding, never read); token: rows i64. The caller has checked the inputs as the reference
//   does: probs >= 0, NaN or +inf, q finite > 0 (docs/spec/draws.md "Degenerate rows").
// - Ratio r_i = probs_i / q_i, one f32 division (>= 0, possibly +inf; NaN for a NaN probs_i).
// - Candidates: canonical (all_tokens = false): the i with probs_i > 0 or NaN; vllm (all_tokens =
//   true, `probs.div_(q).argmax()`): every i, so when every positive ratio underflows to +0.0
//   the lowest index wins even if its probability is 0 (the one input where they differ).
// - token = the first maximum of r over the candidates: greedy.cuh's total order (ArgmaxAbove,
//   NaN above every number), thread l folding l, l + kBlock, ... in order, then the canonical
//   tree (gpu/block/block_argmax.cuh). No candidate (canonical: every probability 0) leaves
//   the identity index kNoIndex, not an id: the row stores kNoDrawToken (0) instead.
// - Exact tier; profiles canonical, vllm.
// Example: probs {0.5, 0.5}, q {1, 0.25}: ratios {0.5, 2} -> 1; probs {0, 1e-38}, q {1, 1e30}:
// both ratios +0.0, canonical -> 1, vllm -> 0 (tests/gpu_kernels_test.cc, GpuExponentialRace).

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/kernels/greedy.cuh"
#include "reference/profile_rules.h"

namespace sampcheck::gpu {

template <int kBlock = kCanonicalLanes>
struct ExponentialRaceKernel {
  static constexpr const char* kName = "exponential_race";
  static constexpr int kThreads = kBlock;

  template <class B, class In, class Noise, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In probs, Noise q, Out token, std::int64_t vocab, std::int64_t pitch,
                                        bool all_tokens) const {
    const std::int64_t row = block.index();
    auto value = Registers<float>(block);
    auto index = Registers<std::int64_t>(block);
    RowArgmax<kBlock>(block, vocab, value, index, ArgmaxAboveF32{}, [&](Thread, std::int64_t i, float& r) {
      const float p = probs.Load(row * pitch + i);
      if (!all_tokens && !(p > 0.0f) && p == p) return false;  // p == p: NaN races
      r = p / q.Load(row * pitch + i);
      return true;
    });
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) token.Store(row, index[t] == kNoIndex ? reference::kNoDrawToken : index[t]);
    });
  }
};

}  // namespace sampcheck::gpu
