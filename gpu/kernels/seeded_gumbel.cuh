// SPDX-License-Identifier: Apache-2.0
#pragma once
// multinomial_with_seed and multinomial_with_seed_token_ids kernel: SGLang's seeded
// Gumbel-max draw with the noise computed IN the kernel from (seed, position, column), canonical
// tier, bit-exact with reference/seeded_gumbel.h (docs/spec/draws.md "multinomial_with_seed";
// the key and the noise law: docs/spec/rng.md "SGLang key layout", "Noise laws").
//
// Contract:
// - One block of kBlock threads per row (1024, or one warp of 32 when V <= kOneWarpVocab:
//   gpu/block/block_argmax.cuh; the winner is the same). probs: rows x pitch f32 (entries [V, pitch) are
//   padding, never read); seed: rows i64 (used as u64, `seed.to(torch.uint64)`); positions:
//   rows i64 already checked to lie in [0, 2^32); token_ids (has_ids only): rows x pitch i32
//   >= 0, the hash column of each entry; token: rows i64, the winning column j. The caller has
//   checked probs finite >= 0 with a positive entry per row, as the reference does.
// - Per column j with probs_j > 0, in binary64, with the reference's own host/device headers:
//     column_j = j, or token_ids[b][j] (as u32)
//     h_j = rng::SglangMurmurKey(seed_b, position_b, column_j)          reference/rng/murmur3.h
//     g_j = rng::GumbelSglangFromHashF64(h_j)                          reference/rng/noise.h
//     s_j = math::LogF64Dd(f64(probs_j)) + g_j                          one f64 addition
//   Columns with probs_j = 0 are skipped (SGLang's log(0) = -inf never wins), and so is a NaN
//   (`!(p > 0)`, as the reference's SeededGumbelColumn). SeededGumbelDrawable and
//   SeededGumbelScore below are this rule, written once: sampling_filters' seeded draw on its
//   survivors (gpu/kernels/sampling_filters_on_survivors.cuh) and on the rows it writes whole
//   (FoldSeededGumbelRow) use them too.
// - token = the first j maximising s_j (s_j is never NaN: g_j is clamped finite). Thread l
//   folds l, l + kBlock, ... in order with ArgmaxAboveF64, then the canonical tree
//   (gpu/block/block_argmax.cuh).
// - Every positive column is evaluated: the reference's skip bound (seeded_gumbel.cc) only
//   saves work and never changes the winner, so the kernel does not need it.
// - Canonical tier (bitwise given the owned LogF64Dd; device code -fmad=false); profile sglang.
// Example: probs {0, 1} -> 1 whatever the hashes; probs {1/2, 1/4, 1/8, 1/8}, seed -1, position
// 2^32 - 1 -> 1 and seed 42, position 7 -> 0 (docs/spec/draws.md's known answers, from the
// mpmath rewrite of SGLang's function; tests/gpu_kernels_test.cc, GpuSeededGumbel).

#include <cstdint>
#include <cstring>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/kernels/greedy.cuh"
#include "reference/math/log.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"

namespace sampcheck::gpu {

// A row's key: seed_b as u64 (two's complement, as seed.to(torch.uint64)) and position_b as
// u32 (already checked to lie in [0, 2^32)).
struct SeededGumbelKey {
  std::uint64_t seed = 0;
  std::uint32_t position = 0;
};

// Whether a column of probability p can be drawn: p > 0 (+0, -0 and NaN cannot).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool SeededGumbelDrawable(float p) { return p > 0.0f; }

// s_j of a drawable column of hash word h = SglangMurmurKey(seed, position, j), for a caller
// that holds the word already (gpu/kernels/seeded_gumbel_candidates.cuh compares it first).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE double SeededGumbelScoreOfHash(std::uint32_t h, float p) {
  return math::LogF64Dd(static_cast<double>(p)) + rng::GumbelSglangFromHashF64(h);
}

// s_j of a drawable column (contract above).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE double SeededGumbelScore(const SeededGumbelKey& key, std::uint32_t column,
                                                                      float p) {
  return SeededGumbelScoreOfHash(rng::SglangMurmurKey(key.seed, key.position, column), p);
}

// Row `row`'s key, read by every thread (the same value in each).
template <class B, class Seeds, class Positions>
SAMPCHECK_KERNEL_BODY SeededGumbelKey LoadSeededGumbelKey(B& block, Seeds seed, Positions positions, std::int64_t row) {
  // Block-level reads: the same two words in every thread (a broadcast on the device).
  (void)block;
  SeededGumbelKey key;
  key.seed = static_cast<std::uint64_t>(seed.Load(row));
  key.position = static_cast<std::uint32_t>(positions.Load(row));
  return key;
}

// Thread l's fold of the draw over probs[base, base + vocab) (columns j, or token_ids[base + j]
// when has_ids): RowArgmax's fold (gpu/block/block_argmax.cuh) with the score above, the tree
// left to the caller; a thread with no drawable column holds (-inf, kNoIndex).
template <int kBlock, class B, class In, class Ids, class RV, class RI>
SAMPCHECK_KERNEL_BODY void FoldSeededGumbelRow(B& block, In probs, Ids token_ids, bool has_ids, std::int64_t base,
                                               std::int64_t vocab, const SeededGumbelKey& key, RV& value, RI& index) {
  FoldRowArgmax<kBlock>(block, vocab, value, index, ArgmaxAboveF64{}, [&](Thread, std::int64_t i, double& x) {
    const float p = probs.Load(base + i);
    if (!SeededGumbelDrawable(p)) return false;
    const auto column =
        has_ids ? static_cast<std::uint32_t>(token_ids.Load(base + i)) : static_cast<std::uint32_t>(i);
    x = SeededGumbelScore(key, column, p);
    return true;
  });
}

template <int kBlock = kCanonicalLanes>
struct SeededGumbelKernel {
  static constexpr const char* kName = "multinomial_with_seed";
  static constexpr int kThreads = kBlock;

  template <class B, class In, class Seeds, class Positions, class Ids, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In probs, Seeds seed, Positions positions, Ids token_ids,
                                        bool has_ids, Out token, std::int64_t vocab, std::int64_t pitch) const {
    const std::int64_t row = block.index();
    auto value = Registers<double>(block);
    auto index = Registers<std::int64_t>(block);
    const SeededGumbelKey key = LoadSeededGumbelKey(block, seed, positions, row);
    FoldSeededGumbelRow<kBlock>(block, probs, token_ids, has_ids, row * pitch, vocab, key, value, index);
    CanonicalBlockArgmax<kBlock, double>(block, value, index, ArgmaxAboveF64{});
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) token.Store(row, index[t]);
    });
  }
};

}  // namespace sampcheck::gpu
