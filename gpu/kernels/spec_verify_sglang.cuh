// SPDX-License-Identifier: Apache-2.0
#pragma once
// SGLang's chain verifier (eagle_info.py verify: top_k_renorm_prob, top_p_renorm_prob, then
// tree_speculative_sampling_target_only on a chain), spec_step's sglang profile, bit-exact with
// reference/spec_step.cc (SglangRenorm, the acceptance loop, SglangScan) given the coins
// (docs/spec/spec_step.md "Profile sglang").
//
// Contract of SpecVerifySglangKernel:
// - One block of kBlock threads per request row b (1024, or one warp when V <= kOneWarpVocab:
//   every sum is serial, every count exact and the survivor search exact, so the result does
//   not depend on the block size). probs: rows x (K + 1) x V f32, position i of row b the
//   softmax of its masked, tempered logits (SoftmaxRow of x / t, finite, >= 0); work: a rows x V
//   work array (the renormalised row of the current position); drafts rows x K i32, counts
//   rows i64 (n_b); top_k i32 and top_p f32 per row (read only when has_top_k / has_top_p);
//   u f64 rows x K in [0, 1); final_u f32 per row in [0, 1); threshold_single and threshold_acc
//   (> 0) f32. Everything checked by the caller as the reference checks it. Outputs emitted
//   rows x (K + 1) i64 and accepted rows i64 (WriteSpecOutcome).
// - Renorm of a position (SglangRenorm): the row is copied to work; if 0 < k < V, the top_k
//   step, then if top_p < 1, the top_p step, each in place: survivors x_j > 0 with
//   Accept(count, mass) of the tokens strictly above x_j (FlashinferAccept, kind top_k: count <
//   k; kind top_p: mass < top_p, the mass an f32 sum in index order); s = the f32 sum of the
//   survivors in index order; each survivor becomes x_j / s (one f32 division), the rest +0.
// - The survivor rule without O(V^2): count and mass above a pivot y never grow with y (a
//   larger pivot drops terms; an f32 running sum of non-negative terms over a subset is at most
//   the running sum over the superset at every step, rounding being monotone), so Accept(y) is
//   monotone and the survivors are exactly the x_j > 0 with bits(x_j) >= y*, y* the smallest
//   non-negative f32 bit pattern whose Accept holds (non-negative floats order as their bits).
//   y* is found by a 32-ary search over [0, bits(max x_j)] (Accept at the row maximum is
//   Accept(0, 0), decided without a pass; false: no survivor): lane l < 32 takes the pivot lo +
//   l * step and folds count and mass of the entries above it over the whole row in index order
//   (the reference's MassAbove, tile by tile from shared memory: every lane reads the same
//   entry, a broadcast on the device), and the first lane whose Accept holds narrows [lo, hi].
//   Each pass cuts the range 32-fold, and the range is below 2^30 (probabilities are at most
//   1.0f = 0x3f800000): at most 6 passes of V serial steps. 1024 pivot lanes would save two
//   passes on a device but cost the emulator 32 times the folds.
// - Acceptance at position i < n_b (thread 0): single = work[x_i], coin = f32(u[b, i]); accept
//   iff coin <= single / threshold_acc or single >= threshold_single (f32). Positions are
//   visited in order until the first rejection (a block-level loop; later positions are never
//   read). At a rejection work[x_i] = 0 (relu(target - draft) with the draft's one-hot mass at
//   x_i) and that row is drawn; all accepted: the renormalised row n_b is drawn.
// - Final draw (SglangScan): total = f32 sum of the positive entries in index order, t =
//   final_u * total (f32); the first positive j whose running f32 sum C_j > t, else the last
//   positive j, else V - 1. One thread, the row staged in tiles (gpu/block/block_sequential.cuh).
// - Block-level values (n, the search range, the verdict) are written by thread 0 to shared
//   memory and read back by every thread after a barrier.
// Example (the reference's arithmetic): one draft x_0 = 1, probs row 0 {0.5, 0.3, 0.2}, top_p
//   0.6, coin 0.9, thresholds 1: mass above 0.5 is 0 < 0.6, above 0.3 is 0.5 < 0.6, above 0.2
//   is 0.8: survivors {0, 1}, s = 0.8, row {0.625, 0.375, 0}; 0.9 <= 0.375 fails: rejected,
//   row {0.625, 0, 0}, final_u 0.5: t = 0.3125, C_0 = 0.625 > t: emitted {0, -1}, accepted 0
//   (tests/gpu_kernels_test.cc, GpuSpecVerifySglang).

#include <cstdint>
#include <cstring>

#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/block_sequential.cuh"
#include "gpu/kernels/flashinfer_sampling_from_probs.cuh"
#include "gpu/kernels/spec_random.cuh"

namespace sampcheck::gpu {

namespace sglang_detail {

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t Bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float FromBits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// A survivor of a renorm step: positive and at or above the smallest accepted pivot y*.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool Survives(float x, std::uint32_t y_star) {
  return x > 0.0f && Bits(x) >= y_star;
}

// The lanes of the survivor search (the first warp).
inline constexpr int kPivotLanes = kWarpSize;

}  // namespace sglang_detail

template <int kBlock = kCanonicalLanes>
struct SpecVerifySglangKernel {
  static constexpr const char* kName = "spec_verify_sglang";
  static constexpr int kThreads = kBlock;

  template <class B, class In, class Work, class Drafts, class Counts, class K, class U, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In probs, Work work, Drafts drafts, Counts counts, K top_k,
                                        bool has_top_k, In top_p, bool has_top_p, U u, In final_u,
                                        float threshold_single, float threshold_acc, Out emitted, Out accepted,
                                        std::int64_t width, std::int64_t vocab) const {
    const std::int64_t row = block.index();
    const std::int64_t wbase = row * vocab;
    std::int64_t n = 0;
    std::int32_t k = 0;
    float p = 1.0f;
    block.ForEachThread([&](Thread) {
      n = counts.Load(row);
      k = has_top_k ? top_k.Load(row) : 0;
      p = has_top_p ? top_p.Load(row) : 1.0f;
    });
    const bool by_k = k > 0 && static_cast<std::int64_t>(k) < vocab;
    const bool by_p = p < 1.0f;
    FlashinferRowRule k_rule, p_rule;
    k_rule.kind = FlashinferKind::kTopK;
    k_rule.top_k = static_cast<std::uint32_t>(k);
    p_rule.kind = FlashinferKind::kTopP;
    p_rule.top_p = p;

    SAMPCHECK_SHARED(block, std::int32_t, verdict, 1);
    std::int64_t i = 0;
    for (;; ++i) {
      const std::int64_t src = (row * (width + 1) + i) * vocab;
      block.ForEachThread([&](Thread t) {
        for (std::int64_t j = t.x; j < vocab; j += kBlock) work.Store(wbase + j, probs.Load(src + j));
      });
      block.Sync();
      if (by_k) Renorm(block, work, wbase, vocab, k_rule);
      if (by_p) Renorm(block, work, wbase, vocab, p_rule);
      if (i == n) break;
      block.ForEachThread([&](Thread t) {
        if (t.x != 0) return;
        const std::int32_t x = drafts.Load(row * width + i);
        const float single = work.Load(wbase + x);
        const auto coin = static_cast<float>(u.Load(row * width + i));
        const bool ok = coin <= single / threshold_acc || single >= threshold_single;
        if (!ok) work.Store(wbase + x, 0.0f);
        verdict.Store(0, ok ? 1 : 0);
      });
      block.Sync();
      bool ok = false;
      block.ForEachThread([&](Thread) { ok = verdict.Load(0) != 0; });
      block.Sync();
      if (!ok) break;
    }

    // SglangScan on work with final_u.
    auto total = Registers<float>(block);
    auto running = Registers<float>(block);
    auto chosen = Registers<std::int64_t>(block);
    auto t_reg = Registers<float>(block);
    block.ForEachThread([&](Thread t) {
      total[t] = 0.0f;
      running[t] = 0.0f;
      chosen[t] = -1;
    });
    auto load = [&](Thread, std::int64_t j) { return work.Load(wbase + j); };
    BlockSequentialFold<kBlock, float>(block, load, vocab, [&](Thread t, std::int64_t, float x) {
      if (x > 0.0f) total[t] = total[t] + x;
      return false;
    });
    block.ForEachThread([&](Thread t) { t_reg[t] = final_u.Load(row) * total[t]; });
    BlockSequentialFold<kBlock, float>(block, load, vocab, [&](Thread t, std::int64_t j, float x) {
      if (!(x > 0.0f)) return false;
      running[t] = running[t] + x;
      chosen[t] = j;  // the last positive so far, or the token once the sum passed t
      return running[t] > t_reg[t];
    });
    SAMPCHECK_SHARED(block, std::int64_t, token_shared, 1);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) token_shared.Store(0, chosen[t] >= 0 ? chosen[t] : vocab - 1);
    });
    block.Sync();
    auto count = Registers<std::int64_t>(block);
    auto token = Registers<std::int64_t>(block);
    block.ForEachThread([&](Thread t) {
      count[t] = i;
      token[t] = token_shared.Load(0);
    });
    WriteSpecOutcome<kBlock>(block, drafts, emitted, accepted, row, width, count, token);
  }

 private:
  // One renorm step in place on work[base, base + vocab) (the contract's survivor search, sum
  // and division).
  template <class B, class Work>
  SAMPCHECK_KERNEL_BODY static void Renorm(B& block, Work work, std::int64_t base, std::int64_t vocab,
                                           const FlashinferRowRule& rule) {
    using sglang_detail::Bits;
    using sglang_detail::kPivotLanes;
    constexpr auto kLanes = static_cast<std::uint32_t>(kPivotLanes);
    SAMPCHECK_SHARED(block, std::uint32_t, lanes, kBlock);  // per lane: max bits, then Accept
    SAMPCHECK_SHARED(block, float, tile, kBlock);
    SAMPCHECK_SHARED(block, std::uint32_t, range, 2);  // lo, hi
    // hi = the largest positive entry's bits (exact integer maximum, any order); 0: none.
    block.ForEachThread([&](Thread t) {
      std::uint32_t m = 0;
      for (std::int64_t j = t.x; j < vocab; j += kBlock) {
        const float x = work.Load(base + j);
        if (x > 0.0f && Bits(x) > m) m = Bits(x);
      }
      lanes.Store(t.x, m);
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      std::uint32_t m = 0;
      for (int l = 0; l < kBlock; ++l) m = lanes.Load(l) > m ? lanes.Load(l) : m;
      // No positive entry, or Accept fails even above the maximum (count 0, mass 0): no
      // survivor, y* past every entry.
      const bool top = m > 0 && FlashinferAccept(rule, 0, 0.0f);
      range.Store(0, top ? 0u : m + 1u);
      range.Store(1, top ? m : m + 1u);
    });
    block.Sync();
    std::uint32_t lo = 0, hi = 0;
    block.ForEachThread([&](Thread) {
      lo = range.Load(0);
      hi = range.Load(1);
    });
    block.Sync();
    auto count = Registers<std::int64_t>(block);
    auto mass = Registers<float>(block);
    while (lo < hi) {
      const std::uint32_t w = hi - lo;
      const std::uint32_t step = (w + kLanes - 1u) / kLanes;
      // Lane l's pivot lo + l * step, active while l < 32 and l * step < w (lane 0 always).
      auto active = [&](Thread t) { return t.x < kPivotLanes && static_cast<std::uint64_t>(t.x) * step < w; };
      auto pivot = [&](Thread t) { return sglang_detail::FromBits(lo + static_cast<std::uint32_t>(t.x) * step); };
      block.ForEachThread([&](Thread t) {
        count[t] = 0;
        mass[t] = 0.0f;
      });
      for (std::int64_t start = 0; start < vocab; start += kBlock) {
        block.ForEachThread([&](Thread t) {
          if (start + t.x < vocab) tile.Store(t.x, work.Load(base + start + t.x));
        });
        block.Sync();
        block.ForEachThread([&](Thread t) {
          if (!active(t)) return;
          const float y = pivot(t);
          const std::int64_t m = vocab - start < kBlock ? vocab - start : kBlock;
          for (std::int64_t j = 0; j < m; ++j) {
            const float x = tile.Load(j);
            if (x > y) {
              mass[t] = mass[t] + x;
              ++count[t];
            }
          }
        });
        block.Sync();
      }
      block.ForEachThread([&](Thread t) {
        lanes.Store(t.x, active(t) && FlashinferAccept(rule, count[t], mass[t]) ? 1u : 0u);
      });
      block.Sync();
      block.ForEachThread([&](Thread t) {
        if (t.x != 0) return;
        std::uint32_t next_lo = lo, next_hi = hi;
        int last = 0;  // the last active lane
        while (last + 1 < kPivotLanes && static_cast<std::uint64_t>(last + 1) * step < w) ++last;
        int first = -1;
        for (int l = 0; l <= last && first < 0; ++l) {
          if (lanes.Load(l) != 0) first = l;
        }
        if (first == 0) {
          next_hi = lo;
        } else if (first > 0) {
          next_lo = lo + static_cast<std::uint32_t>(first - 1) * step + 1u;
          next_hi = lo + static_cast<std::uint32_t>(first) * step;
        } else {
          next_lo = lo + static_cast<std::uint32_t>(last) * step + 1u;
        }
        range.Store(0, next_lo);
        range.Store(1, next_hi);
      });
      block.Sync();
      block.ForEachThread([&](Thread) {
        lo = range.Load(0);
        hi = range.Load(1);
      });
      block.Sync();
    }
    const std::uint32_t y_star = lo;
    auto sum = Registers<float>(block);
    block.ForEachThread([&](Thread t) { sum[t] = 0.0f; });
    BlockSequentialFold<kBlock, float>(
        block, [&](Thread, std::int64_t j) { return work.Load(base + j); }, vocab,
        [&](Thread t, std::int64_t, float x) {
          if (sglang_detail::Survives(x, y_star)) sum[t] = sum[t] + x;
          return false;
        });
    SAMPCHECK_SHARED(block, float, sum_shared, 1);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) sum_shared.Store(0, sum[t]);
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      const float s = sum_shared.Load(0);
      for (std::int64_t j = t.x; j < vocab; j += kBlock) {
        const float x = work.Load(base + j);
        work.Store(base + j, sglang_detail::Survives(x, y_star) ? x / s : 0.0f);
      }
    });
    block.Sync();
  }
};

}  // namespace sampcheck::gpu
