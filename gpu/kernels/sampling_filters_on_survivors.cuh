// SPDX-License-Identifier: Apache-2.0
#pragma once
// sampling_filters' top_k_first order (top_k -> top_p -> min_p, then the probabilities) on the
// top-k survivors gathered in shared memory, instead of on the row: two reads of the row and
// one write of each output; bit-exact with the full-row steps of gpu/kernels/sampling_filters.cuh
// (docs/spec/filters.md "Work on the survivors only"; docs/gpu.md "Top-k survivors").
//
// Contract:
// - Taken when the order is kTopKFirst, top_k is active with k <= kCandidates = 1024, the top_p
//   walk (if any) is a prefix rule (kExclusive, kTieGroup), the candidates fit
//   (gpu/block/top_k_survivors.cuh) and K, the k-th key, is finite. Otherwise it returns false
//   before writing anything and the caller runs the full-row steps; `degenerate` is set when
//   the gather's first read found a NaN or a +inf (the caller's degenerate-row chain).
// - Every step keeps a prefix of the candidates' canonical order `sorted`: top_k the first k
//   (ties kept: and every later entry of K's value); top_p's walk stops at its first drop;
//   min_p keeps probs >= threshold, and probs do not increase along the order (ExpF32Cr is
//   monotone, as are x - M and / s), so its survivors are a prefix too. `last` = the prefix's
//   last key: an entry survives iff key <= last.
// - Softmax statistics (SurvivorSoftmaxStats): M is the first survivor's value (the canonical
//   max of finite values is the largest; no -0.0 in the keys); for s each lane folds its
//   survivors in index order (`grouped`), then CanonicalBlockReduce. The full row's lane folds also add the dropped
//   entries: exp(-inf - M) = +0 to the sum, -inf to the max. Adding +0 to a float changes only
//   the sign of a zero, and every sum here is at least exp(0) = 1 > 0, so the tree's result is
//   the same bits; -inf is the max's identity. Likewise for the largest probability (dropped:
//   +0, below the largest survivor's 1/s > 0). So M, s and every prob are the full-row steps'.
// - Output: out = the row with non-survivors -inf (survivors read back from the row, so a -0.0
//   stays -0.0), probs = the final survivors' SoftmaxRow probabilities, +0 elsewhere (exp(-inf)
//   = +0, divided by s). One write of each row (after the warp's steps the final survivors'
//   columns twice: dropped, then theirs), no read of a row-sized buffer besides the survivors'
//   values.
// - A row split over several blocks (gpu/kernels/sampling_filters_slices.cuh) takes exactly its
//   top k from its slices' lists (MergeTopKCandidates) instead of the two reads, and leaves
//   its survivors to the last launch, which writes the same output bits slice by slice.
// - write_rows false (the caller wants only the draw): neither the rows nor the split row's
//   survivors are written. With at most 64 candidates (k <= 64) and K finite, warp 0 alone runs
//   the steps below and the draw on them in its registers (SamplingFiltersInWarp,
//   gpu/kernels/sampling_filters_in_warp.cuh: the same token, no lane grouping, no barrier);
//   so does a row this block writes whole (not split), whose columns every thread then writes
//   as dropped and warp 0's survivors' after a barrier (the same output bits).
// - The seeded draw (`draw`: multinomial_with_seed keyed by token id, gpu/kernels/seeded_gumbel.cuh)
//   runs on the final survivors sorted[0, n), one per thread, with SeededGumbelDrawable and
//   SeededGumbelScore of p = st.Prob(x): the bits probs holds at that index (x from the key:
//   x - M, hence the probability, has the same bits with -0.0 or +0.0). It is the token the
//   draw over the whole probs row gives: every other column holds +0, which is not drawable
//   (the full-row kernel skips it: `!(p > 0)`), and a survivor whose probability underflows to
//   +0 is skipped by both; the winner is the maximum of the same (s_j, j) pairs in argmax's
//   total order (ArgmaxAboveF64: the larger s_j, then the lower j), which no tree or lane
//   assignment changes. The largest survivor has probability 1 / s >= 2^-10 > 0 (s is a sum
//   of at most 1024 terms <= 1), so a row taken here always draws a token. The winner goes to
//   `drawn` of thread 0 (WarpFirstBlockArgmax: one barrier). Rows this path does not take are
//   drawn by the caller over the probs it writes.
// Example: the ln 2 row {0, -ln2, -2 ln2, -2 ln2}, top_k 3, top_p 0.75: sorted (0, 1, 2, 3), k
//   keeps (0, 1, 2); E = 0, 4/7, 6/7 keeps {0, 1}: probs (2/3, 1/3, 0, 0), the full-row result
//   (tests/gpu_kernels_test.cc, GpuSamplingFilters).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/top_k_survivors.cuh"
#include "gpu/kernels/filter_rules.h"
#include "gpu/kernels/min_p.cuh"
#include "gpu/kernels/sampling_filters_in_warp.cuh"
#include "gpu/kernels/sampling_filters_slices.cuh"
#include "gpu/kernels/seeded_gumbel.cuh"
#include "gpu/kernels/top_k.cuh"
#include "gpu/kernels/top_p.cuh"

namespace sampcheck::gpu {

// M and s over the survivors (key <= last, a prefix of the order that holds `first`, its first
// key) in the canonical lane order restricted to them. M is first's value: the canonical max
// of finite values (MaxCombine: the larger, +0.0 over -0.0) is the largest of them, and keys
// fold -0.0 onto +0.0, so no lane fold or tree is needed for it (two barriers fewer).
// beside(t) runs in the folds' phase, before the sum's first barrier (the top_p walk's
// numerators, below).
struct NothingBeside {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void operator()(Thread) const {}
};
template <class B, class Shared, class R, class Beside = NothingBeside>
SAMPCHECK_KERNEL_BODY SoftmaxStats SurvivorSoftmaxStats(B& block, Shared& grouped, R& offset, R& count,
                                                        std::uint64_t last, std::uint64_t first,
                                                        Beside&& beside = {}) {
  const float m = ValueOfDescendingKey(first);
  auto lane = Registers<float>(block);
  block.ForEachThread([&](Thread t) {
    float acc = -0.0f;
    for (std::uint32_t j = offset[t]; j < offset[t] + count[t]; ++j) {
      const std::uint64_t key = grouped.Load(j);
      if (key <= last) acc = acc + math::ExpF32Cr(ValueOfDescendingKey(key) - m);
    }
    lane[t] = acc;
    beside(t);
  });
  auto s = CanonicalBlockReduce<float>(block, lane, SumCombine{});
  SoftmaxStats stats{};
  // No barrier: CanonicalBlockReduce leaves its result in every thread's register, and its
  // first barrier already orders the folds' reads of `grouped` before any later write.
  block.ForEachThread([&](Thread t) { stats = SoftmaxStats{m, s[t]}; });
  return stats;
}

// The seeded draw on the final survivors sorted[0, n), n <= 1024 (contract above): the winner
// in thread 0's `drawn`.
template <class B, class Shared, class RI>
SAMPCHECK_KERNEL_BODY void SeededGumbelOnSurvivors(B& block, Shared& sorted, std::int64_t n, SoftmaxStats st,
                                                   const SeededGumbelKey& key, RI& drawn) {
  auto value = Registers<double>(block);
  block.ForEachThread([&](Thread t) {
    value[t] = ArgmaxAboveF64::Identity();
    drawn[t] = kNoIndex;
    if (t.x >= n) return;
    const std::uint64_t k = sorted.Load(t.x);
    const float p = st.Prob(ValueOfDescendingKey(k));
    if (!SeededGumbelDrawable(p)) return;
    value[t] = SeededGumbelScore(key, static_cast<std::uint32_t>(IndexOfKey(k)), p);
    drawn[t] = IndexOfKey(k);
  });
  WarpFirstBlockArgmax<double>(block, value, drawn, ArgmaxAboveF64{});
}

// The whole kTopKFirst chain on the survivors: writes out[at ..] and probs[at ..] and returns
// true, or returns false having written nothing (contract above). A row split over
// slice_count > 1 blocks (gpu/kernels/sampling_filters_slices.cuh) takes its candidates from
// its slices' lists when they are complete, and leaves its survivors in
// survivor_rows[rows_base ..] for the last launch instead of writing the rows. With `draw`, the
// drawn token in thread 0's `drawn`.
template <class B, class Arr, class S, class RI>
SAMPCHECK_KERNEL_BODY bool SamplingFiltersOnSurvivors(B& block, Arr logits, std::int64_t in, Arr out, Arr probs,
                                                      std::int64_t at, std::int64_t vocab, std::int64_t k, float p,
                                                      float m, const FilterRules& rules, S slices,
                                                      std::int64_t slice_base, std::int64_t slice_count,
                                                      S survivor_rows, std::int64_t rows_base, bool& degenerate,
                                                      bool write_rows, bool draw, const SeededGumbelKey& key,
                                                      RI& drawn) {
  if (rules.order != FilterOrder::kTopKFirst || !TopKActive(k, vocab, rules.top_k) || k > kCandidates) return false;
  TopPWalk walk;
  float q;
  const bool run_top_p = ResolveTopP(rules.top_p, p, walk, q);
  if (run_top_p && walk != TopPWalk::kExclusive && walk != TopPWalk::kTieGroup) return false;
  auto grouped = GroupedCandidateSlots(block);  // shared with a split row's slice gather
  auto sorted = SortedCandidateSlots(block);
  // The survivors' number after a step: one word per step (top_k's ties, top_p, min_p), so that
  // no word is rewritten after every thread has read it and one barrier per step suffices.
  SAMPCHECK_SHARED(block, std::uint64_t, kept, 3);
  auto offset = Registers<std::uint32_t>(block);
  auto count = Registers<std::uint32_t>(block);
  std::uint32_t total = 0;
  // A split row's slices never list a degenerate slice's keys (its gather stops, the list is
  // incomplete), so a degenerate row is always read whole here.
  std::uint64_t first = 0;
  // At most 64 candidates, and only the token wanted or a row this block writes whole (a split
  // row's written survivors go to the last launch by lanes): warp 0 runs the steps on them
  // alone (gpu/kernels/sampling_filters_in_warp.cuh), and no lane grouping is made.
  const bool warp_steps = k <= kTreeKept && (write_rows ? slice_count <= 1 : draw);
  auto warp_keys = Registers<SlotKeys<2>>(block);
  bool in_warp = false;
  const bool merged = slice_count > 1 && MergeTopKCandidates(block, slices, slice_base, slice_count, k,
                                                               rules.top_k.ties_kept, grouped, sorted, offset, count,
                                                               total, warp_steps ? &warp_keys : nullptr, &in_warp);
  if (!merged) {
    if (!GatherSortedTopKCandidates(block, logits, in, vocab, k, rules.top_k.ties_kept, sorted, total, first)) {
      degenerate = IsDegenerateFirstKey(first);
      return false;
    }
    // The gather ends with a barrier after sorted's stores: K is read by every thread alike.
    block.ForEachThread([&](Thread) {
      in_warp = warp_steps && total <= kTreeKept && sorted.Load(k - 1) <= kLastFiniteDescending;
    });
    if (in_warp) {
      block.ForWarps(WarpZero{}, [&] {
        block.ForEachThread([&](Thread t) {
          for (int r = 0; r < 2; ++r) {
            const int e = r * kWarpSize + t.lane();
            warp_keys[t].v[r] = e < static_cast<int>(total) ? sorted.Load(e) : kNoKey;
          }
        });
      });
    } else {
      GroupCandidatesByLane(block, sorted, static_cast<int>(total), grouped, offset, count);
    }
  }
  if (in_warp) {
    SamplingFiltersInWarp(block, warp_keys, total, k, rules.top_k.ties_kept, run_top_p, walk, q, m, rules, draw, key,
                          drawn, write_rows, logits, in, out, probs, at, vocab);
    return true;
  }
  // top_k: the first k of the order, and with ties kept every later candidate of K's value
  // (exactly k otherwise: no step to run).
  std::int64_t n = k;
  std::uint64_t kth = 0;
  if (rules.top_k.ties_kept) {
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      std::uint32_t end = static_cast<std::uint32_t>(k);
      const std::uint64_t kth_key = sorted.Load(k - 1);
      while (end < total && (sorted.Load(end) >> 32) == (kth_key >> 32)) ++end;
      kept.Store(0, end);
    });
    block.Sync();
    block.ForEachThread([&](Thread) { n = static_cast<std::int64_t>(kept.Load(0)); });
  }
  std::uint64_t first_key = 0;  // the order's first key, every step's first survivor
  block.ForEachThread([&](Thread) { kth = sorted.Load(k - 1), first_key = sorted.Load(0); });
  if (kth > kLastFiniteDescending) return false;  // -inf among the top k: the full-row path's rules
  std::uint64_t last = 0;
  // No barrier: nothing writes `sorted` from here on.
  auto read_last = [&] { block.ForEachThread([&](Thread) { last = sorted.Load(n - 1); }); };
  read_last();
  if (run_top_p) {
    // The walk's numerators ExpF32Cr(x - M) of sorted[0, n), two positions a thread, made in
    // the folds' phase (the sum's barriers order them before the walk), two to a word of the
    // partition path's second weights buffer (unused on this path): thread 0 then divides and
    // adds, one shared read per two positions, where it made an ExpF32Cr a position in
    // sequence (about 200 instructions each). The same quotients: st.Prob(x) is
    // ExpF32Cr(x - M) / s with M the first key's value, as here.
    auto numerators = PartitionChunkWeights(block).narrow;
    const float max = ValueOfDescendingKey(first_key);
    const SoftmaxStats st =
        SurvivorSoftmaxStats(block, grouped, offset, count, last, first_key, [&](Thread t) {
          const std::int64_t j = 2 * static_cast<std::int64_t>(t.x);
          if (j >= n) return;
          const float e0 = math::ExpF32Cr(ValueOfDescendingKey(sorted.Load(j)) - max);
          const float e1 = j + 1 < n ? math::ExpF32Cr(ValueOfDescendingKey(sorted.Load(j + 1)) - max) : 0.0f;
          numerators.Store(t.x, FloatWord(e0) | FloatWord(e1) << 32);
        });
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      TopPWalkState s;
      std::int64_t end = n;
      std::uint64_t pair = 0;
      for (std::int64_t j = 0; j < n; ++j) {  // positions are the walk's identities
        if (j % 2 == 0) pair = numerators.Load(j / 2);
        ++s.position;
        std::uint64_t cut = 0;
        const float prob = WordFloat(j % 2 == 0 ? pair : pair >> 32) / st.sum;
        if (TopPVisitPrefix(s, walk, q, static_cast<std::uint64_t>(j), prob, cut)) {
          end = cut == static_cast<std::uint64_t>(j) ? j + 1 : j;
          break;
        }
      }
      kept.Store(1, static_cast<std::uint64_t>(end));
    });
    block.Sync();
    block.ForEachThread([&](Thread) { n = static_cast<std::int64_t>(kept.Load(1)); });
    read_last();
  }
  if (m > 0.0f) {
    if (rules.min_p.first_only_at_one && m >= 1.0f) {
      n = 1;
    } else {
      const SoftmaxStats st = SurvivorSoftmaxStats(block, grouped, offset, count, last, first_key);
      // RowMaxProb over the survivors: the first's probability 1 / s, the largest (Prob is
      // monotone along the order; no -0.0 among them), so no reduction.
      const float threshold = MinPThreshold(st.Prob(ValueOfDescendingKey(first_key)), m);
      // min_p's survivors are a prefix (probs do not increase along the order) holding the
      // first (its probability is the maximum, >= threshold as min(m, 1) <= 1): its length is
      // written by the one thread t whose entry passes while entry t + 1 does not (or is
      // past n), one barrier and no scan.
      auto passes = [&](std::int64_t j) {
        return j < n && st.Prob(ValueOfDescendingKey(sorted.Load(j))) >= threshold;
      };
      block.ForEachThread([&](Thread t) {
        if (passes(t.x) && !passes(t.x + 1)) kept.Store(2, static_cast<std::uint64_t>(t.x + 1));
      });
      block.Sync();
      block.ForEachThread([&](Thread) { n = static_cast<std::int64_t>(kept.Load(2)); });
    }
    read_last();
  }
  // The output rows: every index written once, by the lane that owns it.
  const SoftmaxStats st = SurvivorSoftmaxStats(block, grouped, offset, count, last, first_key);
  if (draw) SeededGumbelOnSurvivors(block, sorted, n, st, key, drawn);
  if (!write_rows) return true;  // the block ends: nothing to order
  block.ForEachThread([&](Thread t) {
    if (slice_count > 1) {  // the last launch writes the rows, slice by slice
      survivor_rows.Store(rows_base + kSurvivorRowLanes + t.x, (std::uint64_t{offset[t]} << 32) | count[t]);
      if (static_cast<std::uint32_t>(t.x) < total) survivor_rows.Store(rows_base + t.x, grouped.Load(t.x));
      if (t.x == 0) survivor_rows.Store(rows_base + kSurvivorRowLast, last);
      if (t.x == 0) survivor_rows.Store(rows_base + kSurvivorRowStats, PackSoftmaxStats(st));
      return;
    }
    WriteSurvivorLane(logits, in, out, probs, at, t.x, vocab, grouped, 0, offset[t], offset[t] + count[t], last, st);
  });
  return true;  // the block ends: nothing in the launch reads the rows or the survivors after them
}

}  // namespace sampcheck::gpu
