// SPDX-License-Identifier: Apache-2.0
#pragma once
// ascend_top_k_top_p_sample_v2 kernel: CANN TopKTopPSampleV2 as one stage (top-k -> top-p ->
// min-p -> argmax or QSample); bit-exact with reference/ascend_top_k_top_p_sample_v2.h
// (docs/spec/ascend_top_k_top_p_sample_v2.md "Order of operations").
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32 (validated by the glue:
//   finite or -inf with a finite entry per row, or probabilities >= 0); top_k i32, top_p f32,
//   min_p f32 (has_min_p) per row; q: rows x V f32 (has_q); work: rows x V f32 scratch (the
//   row's probs). Outputs as the rule asks: select_idx rows i64; top_kp_select, sort_masked
//   rows x V f32; idx rows x V i64.
// - Per row, the reference's steps: the cut (p <= 0: k = 1; else top-k when 1 <= k <=
//   min(V, ks_max rounded up to 8, 1024)) by radix select (gpu/block/radix_select.cuh); probs =
//   the canonical softmax of the cut row (or the input values); the list L = the cut prefix
//   of the canonical order, or the whole order when 0 < p < 1, else every entry in vocab
//   order; top-p E_j < p over L (f32 running sum, thread 0, in order); min-p on the same
//   probs (m >= 1: L's first maximum; else probs >= max * m); then the sample: the first
//   position maximising probs (or probs / (|q_j| + eps), q by position), a NaN ratio winning.
// - The sequential parts (top-p sum, L's maximum, positions, the sample) run in thread 0 over
//   L in order; L is visited in chunks of 1024 (VisitInOrder: radix select bound, gather,
//   bitonic sort), never by sorting the row.
// Example: the ln 2 row, top_k 3, top_p 0.7: L = {0, 1}; q = {1, 0.25}: r = {4/7, 8/7}:
//   token 1 (the reference header's example; tests/gpu_kernels_test.cc, GpuAscendSample).

#include <cstdint>
#include <cstring>

#include "gpu/block/block_model.h"
#include "gpu/kernels/filter_rules.h"
#include "gpu/block/radix_select.cuh"
#include "gpu/kernels/top_k.cuh"

namespace sampcheck::gpu {

// |x| by clearing the sign bit (no libm call on host or device).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float MagnitudeF32(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  u &= 0x7fffffffu;
  std::memcpy(&x, &u, sizeof u);
  return x;
}

// Thread 0 calls visit(index) for the first `count` entries of the row's canonical order
// (sorted) or of vocab order (!sorted), in order, until visit returns false. Returns (in every
// thread) how many calls returned true. keys (kCandidates u64) and verdict (2 i64) are the
// caller's shared arrays: each visitor is its own instantiation, and one copy of the arrays per
// instantiation would not fit in a block's 48 KiB of static shared memory.
template <class B, class Arr, class Keys, class Verdict, class Visit>
SAMPCHECK_KERNEL_BODY std::int64_t VisitInOrder(B& block, Arr row, std::int64_t base, std::int64_t vocab,
                                                bool sorted_order, std::int64_t count, Keys& keys, Verdict& verdict,
                                                Visit visit) {
  std::int64_t accepted = 0;
  if (!sorted_order) {
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      std::int64_t n = 0;
      while (n < count && visit(n)) ++n;
      verdict.Store(1, n);
    });
    block.Sync();
    block.ForEachThread([&](Thread) { accepted = verdict.Load(1); });
    block.Sync();
    return accepted;
  }
  std::int64_t consumed = 0;
  bool has_lo = false;
  std::uint64_t lo = 0;
  bool stopped = false;     // thread 0's
  std::int64_t n_true = 0;  // thread 0's
  for (;;) {
    const std::int64_t n = count - consumed > kCandidates ? consumed + kCandidates : count;
    const std::uint64_t hi = n == vocab ? kNoKey : SelectKth(block, row, base, vocab, false, n);
    const std::uint32_t m = CollectSorted(block, row, base, vocab, false, has_lo, lo, hi, keys);
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      for (std::uint32_t j = 0; j < m && !stopped; ++j) {
        if (visit(static_cast<std::int64_t>(keys.Load(j) & 0xffffffffu))) {
          ++n_true;
        } else {
          stopped = true;
        }
      }
      verdict.Store(0, stopped ? 1 : 0);
      verdict.Store(1, n_true);
    });
    block.Sync();
    bool done = false;
    block.ForEachThread([&](Thread) {
      done = verdict.Load(0) != 0;
      accepted = verdict.Load(1);
    });
    block.Sync();
    consumed = n;
    lo = hi;
    has_lo = true;
    if (done || n == count) break;
  }
  return accepted;
}

struct AscendTopKTopPSampleV2Kernel {
  static constexpr const char* kName = "ascend_top_k_top_p_sample_v2";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class Arr, class K, class P, class I>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, Arr logits, Arr work, Arr q, bool has_q, K top_k, P top_p, P min_p,
                                        bool has_min_p, I select_idx, Arr top_kp_select, Arr sort_masked, I idx,
                                        std::int64_t vocab, std::int64_t pitch, AscendSampleRule rule) const {
    SAMPCHECK_SHARED(block, std::uint64_t, keys, kCandidates);
    SAMPCHECK_SHARED(block, std::int64_t, verdict, 2);  // VisitInOrder's: stopped, accepted
    const std::int64_t row = block.index();
    const std::int64_t in = row * pitch;
    const std::int64_t at = row * vocab;
    const std::int64_t k = top_k.Load(row);
    const float p = top_p.Load(row);
    const float m = has_min_p ? min_p.Load(row) : 0.0f;
    // Step 2: the cut.
    std::int64_t cut = 0;
    if (!(p > 0.0f)) {
      cut = 1;
    } else if (TopKActive(k, vocab, TopKRule{false, true, rule.ks_max})) {
      cut = k;
    }
    const std::uint64_t kth = cut > 0 ? SelectKth(block, logits, in, vocab, false, cut) : kNoKey;
    // Step 3: probs into work.
    const bool from_logits = rule.input_is_logits;
    block.ForEachThread([&](Thread t) {
      for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
        const float x = logits.Load(in + i);
        work.Store(at + i, from_logits && OrderKey(x, i, false) > kth ? NegativeInfinity() : x);
      }
    });
    block.Sync();
    if (from_logits) {
      const SoftmaxStats st = RowSoftmaxStats(block, work, at, vocab);
      block.ForEachThread([&](Thread t) {
        for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) work.Store(at + i, st.Prob(work.Load(at + i)));
      });
      block.Sync();
    }
    // Step 4: top-p over L.
    const bool top_p_on = p > 0.0f && p < 1.0f;
    const bool sorted_order = cut > 0 || top_p_on;
    std::int64_t count = cut > 0 ? cut : vocab;
    if (top_p_on) {
      float e = 0.0f;
      count = VisitInOrder(block, logits, in, vocab, true, count, keys, verdict, [&](std::int64_t i) {
        if (!(e < p)) return false;
        e = e + work.Load(at + i);
        return true;
      });
    }
    // Step 5: min-p on the same probs: L's first maximum.
    const bool min_p_on = m > 0.0f;
    float threshold = 0.0f;
    std::int64_t first_max = -1;
    if (min_p_on) {
      SAMPCHECK_SHARED(block, float, best_prob, 1);
      SAMPCHECK_SHARED(block, std::int64_t, best_index, 1);
      float best = 0.0f;
      std::int64_t best_i = -1;
      VisitInOrder(block, logits, in, vocab, sorted_order, count, keys, verdict, [&](std::int64_t i) {
        const float prob = work.Load(at + i);
        if (best_i < 0 || prob > best) best = prob, best_i = i;
        return true;
      });
      block.ForEachThread([&](Thread t) {
        if (t.x != 0) return;
        best_prob.Store(0, best);
        best_index.Store(0, best_i);
      });
      block.Sync();
      block.ForEachThread([&](Thread) {
        threshold = best_prob.Load(0) * m;
        first_max = best_index.Load(0);
      });
      block.Sync();
    }
    const bool only_max = min_p_on && m >= 1.0f;
    auto in_list = [&](std::int64_t i, float prob) {
      if (!min_p_on) return true;
      return only_max ? i == first_max : prob >= threshold;
    };
    // Outputs. logits_top_kp_select: L's entries (a prefix of the order, or every entry).
    if (rule.need_logits) {
      const std::uint64_t last =
          sorted_order && count < vocab ? SelectKth(block, logits, in, vocab, false, count) : kNoKey;
      const float def_logit = from_logits ? NegativeInfinity() : 0.0f;
      block.ForEachThread([&](Thread t) {
        for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
          const float x = logits.Load(in + i);
          const bool listed = OrderKey(x, i, false) <= last && in_list(i, work.Load(at + i));
          top_kp_select.Store(at + i, listed ? x : def_logit);
        }
      });
      block.Sync();
    }
    if (rule.need_sample_result) {
      block.ForEachThread([&](Thread t) {
        for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
          sort_masked.Store(at + i, 0.0f);
          idx.Store(at + i, std::int64_t{-1});
        }
      });
      block.Sync();
    }
    // Step 6 (and the sorted outputs): positions j of the final list, in order.
    std::int64_t j = 0;
    std::int64_t chosen = -1;
    bool nan_won = false;
    float best_r = 0.0f;
    const bool sample = !rule.need_sample_result;
    VisitInOrder(block, logits, in, vocab, sorted_order, count, keys, verdict, [&](std::int64_t i) {
      const float prob = work.Load(at + i);
      if (!in_list(i, prob)) return true;
      if (!sample) {
        sort_masked.Store(at + j, prob);
        idx.Store(at + j, i);
      } else if (!nan_won) {
        const float r = has_q ? prob / (MagnitudeF32(q.Load(at + j)) + rule.eps) : prob;
        if (IsNan(r)) {
          chosen = i, nan_won = true;
        } else if (chosen < 0 || r > best_r) {
          chosen = i, best_r = r;
        }
      }
      ++j;
      return true;
    });
    if (sample) {
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) select_idx.Store(row, chosen);
      });
    }
  }
};

}  // namespace sampcheck::gpu
