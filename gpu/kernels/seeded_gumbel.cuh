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
//   Columns with probs_j = 0 are skipped (SGLang's log(0) = -inf never wins).
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
    auto key_seed = Registers<std::uint64_t>(block);
    auto key_position = Registers<std::uint32_t>(block);
    block.ForEachThread([&](Thread t) {
      // Two's-complement reinterpretation, as seed.to(torch.uint64); positions were checked.
      key_seed[t] = static_cast<std::uint64_t>(seed.Load(row));
      key_position[t] = static_cast<std::uint32_t>(positions.Load(row));
    });
    RowArgmax<kBlock>(block, vocab, value, index, ArgmaxAboveF64{}, [&](Thread t, std::int64_t i, double& x) {
      const float p = probs.Load(row * pitch + i);
      if (!(p > 0.0f)) return false;
      const auto column =
          has_ids ? static_cast<std::uint32_t>(token_ids.Load(row * pitch + i)) : static_cast<std::uint32_t>(i);
      const std::uint32_t h = rng::SglangMurmurKey(key_seed[t], key_position[t], column);
      x = math::LogF64Dd(static_cast<double>(p)) + rng::GumbelSglangFromHashF64(h);
      return true;
    });
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) token.Store(row, index[t]);
    });
  }
};

}  // namespace sampcheck::gpu
