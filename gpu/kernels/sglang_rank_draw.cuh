// SPDX-License-Identifier: Apache-2.0
#pragma once
// The sglang pipeline's sorted-path draw (docs/spec/pipeline.md, reference/pipeline.h contract
// block "sorted"): SGLang's multinomial_with_seed on the descending-sorted, filtered (not
// renormalised) probabilities, keyed by RANK, the token being the id at the drawn rank.
// Canonical tier, bit-exact with reference/pipeline.cc's SglangSeededDraw.
//
// Contract:
// - One block of kBlock threads per row (1024, or one warp of 32 when V <= kOneWarpVocab,
//   as the other seeded draws: gpu/block/block_argmax.cuh, the winner is the same). full, scaled,
//   masked: rows x pitch f32 (entries [V, pitch) are padding, never read): full = the
//   canonical softmax of scaled (gpu/kernels/softmax.cuh), scaled = the temperature-scaled logits,
//   masked = the filters' output logits; survivors are the entries with masked != -inf.
//   seed, positions: rows i64 (positions already checked to lie in [0, 2^32) on the rows the
//   caller reads). draw: rows u8; a row with draw = 0 (a greedy row, whose token is not
//   drawn) reads nothing and gets kNoIndex. token: rows i64, the winning id, or kNoIndex when
//   no survivor has full > 0.
// - Survivor order (the reference's sort, since torch.sort is not stable): full descending,
//   then scaled descending, then id ascending. A survivor's rank is the exact count of
//   survivors ordered before it: each thread counts for its own survivors over the whole row
//   (integer counts are exact in any order; no sort, no shared memory). O(V^2 / kBlock) per
//   row: enough for the conformance rows (V <= a few thousand); a large-vocabulary server
//   would sort instead.
// - Per survivor i with full_i > 0, rank r_i, in binary64 with the reference's headers:
//     h_i = rng::SglangMurmurKey(seed_b, position_b, r_i)     reference/rng/murmur3.h
//     s_i = math::LogF64Dd(f64(full_i)) + rng::GumbelSglangFromHashF64(h_i)
//   The winner is the first maximum in RANK order (seeded_gumbel.h's rule on the sorted
//   row): the argmax runs on (s_i, r_i * V + i), whose order is the rank order because ranks
//   are distinct, and token = that index mod V.
// Example: full {1/8, 1/2, 1/8, 1/4} (scaled in the same order, no filter): sorted ids
//   {1, 3, 0, 2}, sorted probabilities {1/2, 1/4, 1/8, 1/8}; seed -1, position 2^32 - 1 draws
//   rank 1 -> id 3, seed 42, position 7 rank 0 -> id 1 (docs/spec/draws.md's known answers for
//   multinomial_with_seed on {1/2, 1/4, 1/8, 1/8}; tests/gpu_pipeline_test.cc).

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/kernels/greedy.cuh"
#include "gpu/kernels/seeded_gumbel.cuh"
#include "reference/math/log.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"

namespace sampcheck::gpu {

// True when survivor (pj, sj, j) comes before (pi, si, i) in the reference's sort.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool SglangRankBefore(float pj, float sj, std::int64_t j, float pi,
                                                                   float si, std::int64_t i) {
  if (pj != pi) return pj > pi;
  if (sj != si) return sj > si;
  return j < i;
}

template <int kBlock = kCanonicalLanes>
struct SglangRankDrawKernel {
  static constexpr const char* kName = "sglang_rank_draw";
  static constexpr int kThreads = kBlock;

  template <class B, class In, class Flags, class Seeds, class Positions, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In full, In scaled, In masked, Flags draw, Seeds seed,
                                        Positions positions, Out token, std::int64_t vocab, std::int64_t pitch) const {
    const std::int64_t row = block.index();
    const std::int64_t base = row * pitch;
    auto value = Registers<double>(block);
    auto index = Registers<std::int64_t>(block);
    block.ForEachThread([&](Thread t) {
      const bool active = draw.Load(row) != 0;
      const auto s = active ? static_cast<std::uint64_t>(seed.Load(row)) : 0u;
      const auto position = active ? static_cast<std::uint32_t>(positions.Load(row)) : 0u;
      double v = NegativeInfinityF64();
      std::int64_t best = kNoIndex;
      for (std::int64_t i = t.x; active && i < vocab; i += kBlock) {
        if (masked.Load(base + i) == NegativeInfinity()) continue;
        const float p = full.Load(base + i);
        if (!(p > 0.0f)) continue;
        const float si = scaled.Load(base + i);
        std::int64_t rank = 0;
        for (std::int64_t j = 0; j < vocab; ++j) {
          if (j == i || masked.Load(base + j) == NegativeInfinity()) continue;
          rank += SglangRankBefore(full.Load(base + j), scaled.Load(base + j), j, p, si, i) ? 1 : 0;
        }
        const std::uint32_t h = rng::SglangMurmurKey(s, position, static_cast<std::uint32_t>(rank));
        const double x = math::LogF64Dd(static_cast<double>(p)) + rng::GumbelSglangFromHashF64(h);
        const std::int64_t key = rank * vocab + i;
        if (ArgmaxAboveF64{}(x, key, v, best)) {
          v = x;
          best = key;
        }
      }
      value[t] = v;
      index[t] = best;
    });
    CanonicalBlockArgmax<kBlock, double>(block, value, index, ArgmaxAboveF64{});
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) token.Store(row, index[t] == kNoIndex ? kNoIndex : index[t] % vocab);  // kNoIndex: nothing to draw
    });
  }
};

}  // namespace sampcheck::gpu
