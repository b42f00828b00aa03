// SPDX-License-Identifier: Apache-2.0
#pragma once
// flashinfer_sampling_from_probs kernel: FlashInfer's four sorting-free rejection samplers from
// probabilities, given their uniforms, bit-exact with reference/flashinfer_sampling_from_probs.h
// (docs/spec/flashinfer_sampling_from_probs.md; profile flashinfer, canonical tier).
//
// Contract:
// - One block of 1024 threads per row b (the top_k_first renorm's k-th value is a radix select,
//   gpu/block/radix_select.cuh, which takes the canonical 1024 lanes). probs: rows x vocab f32,
//   every entry >= 0 (-0.0 included) or NaN, checked by the caller as the reference checks it;
//   renormed: a rows x vocab work array (top_k_first only); top_k u32 (the kernel's uint32 view
//   of the i32 input), top_p, min_p f32 per row (finite; the ones a kernel does not read are
//   ignored); u: rows x width f32 in (0, 1]. Outputs token i64, valid u8, rounds i32 per row;
//   rounds = -1 when the row needs more than `width` uniforms (the glue reports it as the
//   reference does).
// - Every f32 sum is the reference's: a running sum in index order, done by thread 0 over the
//   row staged in tiles (gpu/block/block_sequential.cuh). Counts are exact. So the kernel makes
//   exactly the reference's comparisons, round by round:
//   rejection kernels (kind 0 top_k_top_p, 1 top_k, 2 top_p): low = 0, high = 1, q = 1; per
//   round r: t = u[b, r] * q; the first i with p_i > low and running sum C_i > t, else the last
//   such i; none: token 0, invalid. pivot0 = p[token], pivot1 = (pivot0 + high) * 0.5; count
//   and mass (index order) of p > pivot for both, in one fold. Accept: count < top_k and/or
//   mass < top_p per kind. Accept(pivot0): done; Accept(pivot1): low = pivot0, high = pivot1,
//   q = mass0; else low = pivot1, q = mass1; !(low < high): done with the last token.
//   min_p (kind 3): m = fmax fold from 0 (NaN ignored), pivot = m * min_p, valid p >= pivot
//   (zeros too when pivot <= 0), q = mass of the valid entries, one round with t = u[b, 0] * q.
//   top_k_first (kind 0 only): the row is first replaced by top_k_renorm_probs: the k-th largest
//   non-NaN value is the descending key of rank k + (NaN count) (NaN keys come first), kept
//   entries p >= it (every non-NaN entry when k >= their count; none when k = 0), s = their sum
//   in index order, kept p * f32(1 / max(s, 1e-8)), the rest 0; then kind top_p on that row.
// - Ties: the survivor rules compare strictly (p > pivot), so equal probabilities go together;
//   NaN is never valid and adds nothing.
// - Block-level loop over rounds: the round's state (low, high, q, done) is written by thread 0
//   to shared memory and read back by every thread into block-level locals, so the loop ends for
//   the whole block at once.
// Example (the reference's): probs {0.5, 0.25, 0.125, 0.125}, top_p 0.7, u {0.9, 0.2}: token 0,
//   valid, 2 rounds (tests/gpu_kernels_test.cc, GpuFlashinferSamplingFromProbs).

#include <cstdint>

#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/block_sequential.cuh"
#include "gpu/block/radix_select.cuh"

namespace sampcheck::gpu {

// The `kernel` parameter, as the glue resolves it (reference::FlashinferKernel's order).
enum class FlashinferKind : std::int32_t { kTopKTopP = 0, kTopK = 1, kTopP = 2, kMinP = 3 };

// One row's rejection parameters as the kernel reads them.
struct FlashinferRowRule {
  FlashinferKind kind = FlashinferKind::kTopKTopP;
  std::uint32_t top_k = 0;
  float top_p = 1.0f;
};

// Accept(count, mass) of reference/flashinfer_sampling_from_probs.cc.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool FlashinferAccept(const FlashinferRowRule& r, std::int64_t count,
                                                                  float mass) {
  const bool k_ok = static_cast<std::uint64_t>(count) < r.top_k;
  const bool p_ok = mass < r.top_p;
  if (r.kind == FlashinferKind::kTopKTopP) return k_ok && p_ok;
  if (r.kind == FlashinferKind::kTopK) return k_ok;
  if (r.kind == FlashinferKind::kTopP) return p_ok;
  return true;
}

// DeviceSamplingFromProb over `value` (the row), valid(x) the predicate: thread 0 gets the first
// valid i whose running sum exceeds t (t read in thread 0), else the last valid i, else -1.
template <class B, class Value, class Valid, class R>
SAMPCHECK_KERNEL_BODY auto FlashinferScan(B& block, Value value, std::int64_t vocab, const R& t_reg, Valid valid) {
  auto running = Registers<float>(block);
  auto chosen = Registers<std::int64_t>(block);
  block.ForEachThread([&](Thread t) {
    running[t] = 0.0f;
    chosen[t] = -1;
  });
  BlockSequentialFold<kCanonicalLanes, float>(block, value, vocab, [&](Thread t, std::int64_t i, float x) {
    if (!valid(t, x)) return false;
    running[t] = running[t] + x;
    chosen[t] = i;  // the last valid one so far, or the token when the sum passed t
    return running[t] > t_reg[t];
  });
  return chosen;
}

struct FlashinferSamplingFromProbsKernel {
  static constexpr const char* kName = "flashinfer_sampling_from_probs";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class In, class Work, class K, class U, class Token, class Valid, class Rounds>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In probs, Work renormed, std::int32_t kind_in, bool top_k_first,
                                        K top_k, In top_p, In min_p, U u, Token token, Valid valid, Rounds rounds,
                                        std::int64_t width, std::int64_t vocab) const {
    const std::int64_t row = block.index();
    const std::int64_t base = row * vocab;
    FlashinferRowRule rule;
    rule.kind = static_cast<FlashinferKind>(kind_in);
    block.ForEachThread([&](Thread) {
      rule.top_k = top_k.Load(row);
      rule.top_p = top_p.Load(row);
    });
    if (top_k_first) {
      RenormTopK(block, probs, renormed, base, vocab, rule.top_k);
      rule.kind = FlashinferKind::kTopP;
    }
    // The row the rounds read: the renormalised copy under top_k_first.
    auto value = [&](Thread, std::int64_t i) { return top_k_first ? renormed.Load(base + i) : probs.Load(base + i); };
    SAMPCHECK_SHARED(block, float, state, 3);        // low, high, q
    SAMPCHECK_SHARED(block, std::int64_t, out, 3);   // token, valid, rounds (rounds -1: out of uniforms)
    SAMPCHECK_SHARED(block, std::int32_t, done, 1);
    auto t_reg = Registers<float>(block);
    if (rule.kind == FlashinferKind::kMinP) {
      auto m = Registers<float>(block);
      block.ForEachThread([&](Thread t) { m[t] = 0.0f; });
      BlockSequentialFold<kCanonicalLanes, float>(block, value, vocab, [&](Thread t, std::int64_t, float x) {
        if (x > m[t]) m[t] = x;  // fmaxf(m, x): a NaN x compares false (m starts at 0, never NaN)
        return false;
      });
      auto pivot = Registers<float>(block);
      auto q = Registers<float>(block);
      block.ForEachThread([&](Thread t) {
        pivot[t] = m[t] * min_p.Load(row);
        q[t] = 0.0f;
      });
      BlockSequentialFold<kCanonicalLanes, float>(block, value, vocab, [&](Thread t, std::int64_t, float x) {
        if (x >= pivot[t]) q[t] = q[t] + x;
        return false;
      });
      block.ForEachThread([&](Thread t) { t_reg[t] = u.Load(row * width) * q[t]; });
      auto chosen = FlashinferScan(block, value, vocab, t_reg, [&](Thread t, float x) { return x >= pivot[t]; });
      block.ForEachThread([&](Thread t) {
        if (t.x != 0) return;
        token.Store(row, chosen[t] < 0 ? 0 : chosen[t]);
        valid.Store(row, chosen[t] >= 0 ? 1 : 0);
        rounds.Store(row, 1);
      });
      return;
    }
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      state.Store(0, 0.0f);
      state.Store(1, 1.0f);
      state.Store(2, 1.0f);
      out.Store(0, 0);
      out.Store(1, 0);
      out.Store(2, 0);
      done.Store(0, 0);
    });
    block.Sync();
    float low = 0.0f, high = 1.0f, q = 1.0f;
    std::int64_t round = 0;
    while (true) {
      if (round == width) {  // out of uniforms before the kernel stopped
        block.ForEachThread([&](Thread t) {
          if (t.x == 0) out.Store(2, -1);
        });
        block.Sync();
        break;
      }
      block.ForEachThread([&](Thread t) { t_reg[t] = u.Load(row * width + round) * q; });
      ++round;
      auto chosen = FlashinferScan(block, value, vocab, t_reg, [&](Thread, float x) { return x > low; });
      // pivot0 = p[token] (thread 0 loads it: no valid token leaves the loop below).
      auto pivot0 = Registers<float>(block);
      block.ForEachThread([&](Thread t) {
        if (t.x == 0 && chosen[t] >= 0) pivot0[t] = value(t, chosen[t]);
      });
      auto pivot1 = Registers<float>(block);
      auto count0 = Registers<std::int64_t>(block);
      auto count1 = Registers<std::int64_t>(block);
      auto mass0 = Registers<float>(block);
      auto mass1 = Registers<float>(block);
      block.ForEachThread([&](Thread t) {
        if (t.x != 0) return;
        pivot1[t] = chosen[t] >= 0 ? (pivot0[t] + high) * 0.5f : 0.0f;
        count0[t] = 0;
        count1[t] = 0;
        mass0[t] = 0.0f;
        mass1[t] = 0.0f;
      });
      bool any = false;
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) done.Store(0, chosen[t] >= 0 ? 0 : 1);
      });
      block.Sync();
      block.ForEachThread([&](Thread) { any = done.Load(0) == 0; });
      block.Sync();
      if (!any) {  // no valid token: token 0, invalid
        block.ForEachThread([&](Thread t) {
          if (t.x != 0) return;
          out.Store(0, 0);
          out.Store(1, 0);
          out.Store(2, round);
        });
        block.Sync();
        break;
      }
      BlockSequentialFold<kCanonicalLanes, float>(block, value, vocab, [&](Thread t, std::int64_t, float x) {
        if (x > pivot0[t]) {
          mass0[t] = mass0[t] + x;
          ++count0[t];
        }
        if (x > pivot1[t]) {
          mass1[t] = mass1[t] + x;
          ++count1[t];
        }
        return false;
      });
      block.ForEachThread([&](Thread t) {
        if (t.x != 0) return;
        out.Store(0, chosen[t]);
        out.Store(1, 1);
        out.Store(2, round);
        float next_low = low, next_high = high, next_q = q;
        bool stop = FlashinferAccept(rule, count0[t], mass0[t]);
        if (!stop) {
          if (FlashinferAccept(rule, count1[t], mass1[t])) {
            next_low = pivot0[t];
            next_high = pivot1[t];
            next_q = mass0[t];
          } else {
            next_low = pivot1[t];
            next_q = mass1[t];
          }
          stop = !(next_low < next_high);  // the kernel's `while (low < high)` exit
        }
        state.Store(0, next_low);
        state.Store(1, next_high);
        state.Store(2, next_q);
        done.Store(0, stop ? 1 : 0);
      });
      block.Sync();
      bool stop = false;
      block.ForEachThread([&](Thread) {
        low = state.Load(0);
        high = state.Load(1);
        q = state.Load(2);
        stop = done.Load(0) != 0;
      });
      block.Sync();
      if (stop) break;
    }
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      token.Store(row, out.Load(0));
      valid.Store(row, static_cast<std::uint8_t>(out.Load(1)));
      rounds.Store(row, static_cast<std::int32_t>(out.Load(2)));
    });
  }

 private:
  // top_k_renorm_probs into `renormed` (reference/flashinfer_sampling_from_probs.cc TopKRenorm).
  template <class B, class In, class Work>
  SAMPCHECK_KERNEL_BODY static void RenormTopK(B& block, In probs, Work renormed, std::int64_t base, std::int64_t vocab,
                                               std::uint32_t k) {
    auto nan_count = Registers<std::uint32_t>(block);
    block.ForEachThread([&](Thread t) {
      std::uint32_t c = 0;
      for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
        const float x = probs.Load(base + i);
        c += x != x ? 1u : 0u;
      }
      nan_count[t] = c;
    });
    std::uint32_t nans = 0;
    // Its next barrier comes before any other scan: SelectKth's first, or the normalizer's.
    BlockExclusiveScan<kCanonicalLanes>(block, nan_count, nans);
    const std::int64_t values = vocab - static_cast<std::int64_t>(nans);
    // keep: none (k = 0 or no value), every non-NaN entry (pivot -1), or p >= the k-th value.
    const bool keep_none = k == 0 || values == 0;
    float pivot = -1.0f;
    if (!keep_none && static_cast<std::int64_t>(k) < values) {
      const std::uint64_t key = SelectKth(block, probs, base, vocab, false, static_cast<std::int64_t>(nans) + k);
      block.ForEachThread([&](Thread) { pivot = probs.Load(base + static_cast<std::int64_t>(key & 0xffffffffu)); });
      block.Sync();
    }
    auto sum = Registers<float>(block);
    block.ForEachThread([&](Thread t) { sum[t] = 0.0f; });
    BlockSequentialFold<kCanonicalLanes, float>(
        block, [&](Thread, std::int64_t i) { return probs.Load(base + i); }, keep_none ? 0 : vocab,
        [&](Thread t, std::int64_t, float x) {
          if (x >= pivot) sum[t] = sum[t] + x;
          return false;
        });
    SAMPCHECK_SHARED(block, float, normalizer, 1);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) normalizer.Store(0, 1.0f / (sum[t] > 1e-8f ? sum[t] : 1e-8f));  // 1 / max(s, 1e-8)
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      const float scale = normalizer.Load(0);
      for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
        const float x = probs.Load(base + i);
        renormed.Store(base + i, !keep_none && x >= pivot ? x * scale : 0.0f);
      }
    });
    block.Sync();
  }
};

}  // namespace sampcheck::gpu
