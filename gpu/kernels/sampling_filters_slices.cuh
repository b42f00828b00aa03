// SPDX-License-Identifier: Apache-2.0
#pragma once
// sampling_filters with several blocks per row when the batch is small (docs/gpu.md "Top-k
// survivors", "Several blocks per row"): a first launch gathers each slice's exact top k, the
// per-row kernel (gpu/kernels/sampling_filters.cuh) merges them instead of reading the row
// and runs every filter step on the survivors, and a last launch writes the output rows slice
// by slice. Bit-exact with the one-block survivor path (gpu/kernels/sampling_filters_on_survivors.cuh),
// hence with reference/sampling_filters.h.
//
// Contract:
// - A row takes n = SamplingFiltersRowSlices(budget, V, k, rules) slices (budget: RowSliceBudget
//   of the batch, gpu/block/row_slices.cuh): TopKRowSlices's n for lists of L keys when the
//   survivor path applies whatever the row's p and m (kTopKFirst, k >= 1, no ascend limit; a
//   prefix top_p walk: kExclusive or kTieGroup), else 1 (one block reads the row, as before).
//   L = SliceListLength = k, or k + 1 when ties at the k-th value are kept (vllm, flashinfer).
//   Slice g is [SliceBegin(g), SliceBegin(g + 1)) of the row, longer than L.
// - SamplingFiltersSlicesKernel: grid rows x grid_slices; block b serves row b / grid_slices,
//   slice g = b % grid_slices (g >= n: returns). It gathers the slice's candidates with the
//   one-block gather (GatherTopKCandidates, gpu/block/top_k_survivors.cuh: three reads of the
//   slice, exact integer keys, ties not kept) and writes the slice's L smallest keys in
//   ascending order, with row indices, to slices[row kRowSliceSlots + g L ..]; kNoKey at the
//   list's first slot when its candidates do not fit (the per-row kernel then reads the row).
// - The per-row kernel merges the n lists (MergeSliceLists: exactly the row's L smallest keys
//   in order) and rebuilds the lane grouping of the canonical order from them (lane = index
//   mod 1024, index order within a lane); every later step is the one-block path's. Ties
//   kept: when the row's (k + 1)-th key has another value than the k-th, no entry ties with
//   K past the k-th, and top_k keeps exactly k; when the values are equal, more ties may hide
//   past every list, so the row is read whole (the one-block gather). A row of
//   n > 1 whose survivor path succeeds does not write its rows: it leaves its survivors in
//   survivor_rows (layout kSurvivorRow* below), else it writes kNoKey at kSurvivorRowLast and
//   its rows itself.
// - SamplingFiltersRowsKernel: grid as the first launch; the block of slice g writes out and
//   probs over [SliceBegin(g), SliceBegin(g + 1)) by WriteSurvivorLane, the one-block path's
//   output loop on that range: survivors (key <= last) read back from the row (a -0.0 stays
//   -0.0) with probs st.Prob(x), -inf and +0 elsewhere. Every index is written once, by one
//   thread; no barrier.
// - Deterministic: integer keys and counts, fixed orders, no atomics; every slot has one writer.
// Example: 1 x 16384, k = 50: budget min(132, 16384 / 4096) = 4, n = min(4, 1024 / 50, 16384 /
//   51) = 4 slices of 4096; the output bits equal the one-block launch's
//   (tests/gpu_kernels_test.cc, GpuSamplingFiltersSlices).

#include <cstdint>
#include <cstring>

#include "gpu/block/block_model.h"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/row_slices.cuh"
#include "gpu/block/top_k_survivors.cuh"
#include "gpu/kernels/filter_rules.h"

namespace sampcheck::gpu {

// survivor_rows per row: the candidates grouped by lane, each lane's (offset << 32 | count),
// the last survivor's key (kNoKey: the per-row kernel wrote the row) and the softmax
// statistics (M's bits << 32 | s's bits).
inline constexpr std::int64_t kSurvivorRowLanes = kCandidates;
inline constexpr std::int64_t kSurvivorRowLast = kSurvivorRowLanes + kCanonicalLanes;
inline constexpr std::int64_t kSurvivorRowStats = kSurvivorRowLast + 1;
inline constexpr std::int64_t kSurvivorRowWords = kSurvivorRowStats + 1;

// The keys a slice lists: its k smallest, and one more when ties are kept (contract above).
SAMPCHECK_HOST_DEVICE constexpr std::int64_t SliceListLength(std::int64_t k, const FilterRules& rules) {
  return rules.top_k.ties_kept ? k + 1 : k;
}

SAMPCHECK_HOST_DEVICE constexpr std::int64_t SamplingFiltersRowSlices(std::int64_t budget, std::int64_t vocab,
                                                                      std::int64_t k, const FilterRules& rules) {
  if (rules.order != FilterOrder::kTopKFirst || rules.top_k.ascend_limit || k <= 0) return 1;
  if (rules.top_p != TopPWalk::kExclusive && rules.top_p != TopPWalk::kTieGroup) return 1;
  return TopKRowSlices(budget, vocab, SliceListLength(k, rules));
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t PackSoftmaxStats(SoftmaxStats st) {
  std::uint32_t m, s;
  std::memcpy(&m, &st.max, sizeof m);
  std::memcpy(&s, &st.sum, sizeof s);
  return (std::uint64_t{m} << 32) | s;
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE SoftmaxStats UnpackSoftmaxStats(std::uint64_t w) {
  const auto m = static_cast<std::uint32_t>(w >> 32);
  const auto s = static_cast<std::uint32_t>(w);
  SoftmaxStats st{};
  std::memcpy(&st.max, &m, sizeof m);
  std::memcpy(&st.sum, &s, sizeof s);
  return st;
}

// The output of lane first mod 1024 over [first, end): grouped[keys_base + j], j in [j, j_end),
// are the lane's candidates from index first on, in index order; survivors are key <= last.
template <class Arr, class Keys>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void WriteSurvivorLane(Arr logits, std::int64_t in, Arr out, Arr probs,
                                                                    std::int64_t at, std::int64_t first,
                                                                    std::int64_t end, Keys& grouped,
                                                                    std::int64_t keys_base, std::uint32_t j,
                                                                    std::uint32_t j_end, std::uint64_t last,
                                                                    SoftmaxStats st) {
  for (std::int64_t i = first; i < end; i += kCanonicalLanes) {
    bool keep = false;
    if (j < j_end) {
      const std::uint64_t key = grouped.Load(keys_base + j);
      if (IndexOfKey(key) == i) keep = key <= last, ++j;
    }
    if (keep) {
      const float x = logits.Load(in + i);
      out.Store(at + i, x);
      probs.Store(at + i, st.Prob(x));
    } else {
      out.Store(at + i, NegativeInfinity());
      probs.Store(at + i, 0.0f);
    }
  }
}

// The row's candidates from its slices' lists (contract above) when all are complete: sorted =
// exactly the row's L smallest keys (MergeSliceLists), grouped / offset / count their lane
// grouping (lane = index mod 1024, index order within a lane), each candidate's place counted
// over the L - 1 others (no sort). Returns false when a list is incomplete, or when ties are
// kept and the (k + 1)-th key ties with the k-th: the caller then gathers from the row, which
// rewrites every array here.
template <class B, class S, class Shared, class R>
SAMPCHECK_KERNEL_BODY bool MergeTopKCandidates(B& block, S slices, std::int64_t slice_base, std::int64_t slice_count,
                                               std::int64_t k, bool ties, Shared& grouped, Shared& sorted, Shared& flag,
                                               R& offset, R& count, std::uint32_t& total) {
  const std::int64_t list = ties ? k + 1 : k;  // SliceListLength
  block.ForEachThread([&](Thread t) {
    if (t.x != 0) return;
    std::uint64_t complete = 1;
    for (std::int64_t g = 0; g < slice_count; ++g) complete &= slices.Load(slice_base + g * list) != kNoKey ? 1u : 0u;
    flag.Store(0, complete);
  });
  block.Sync();
  bool complete = false;
  block.ForEachThread([&](Thread) { complete = flag.Load(0) != 0; });
  if (!complete) {
    block.Sync();  // flag is rewritten by the caller
    return false;
  }
  block.ForEachThread([&](Thread t) {
    MergeSliceLists(t, kCanonicalLanes, slices, slice_base, slice_count, list,
                    [&](std::int64_t rank, std::uint64_t x) { sorted.Store(rank, x); });
  });
  block.Sync();
  bool boundary_tie = false;
  block.ForEachThread([&](Thread t) {
    boundary_tie = ties && (sorted.Load(k - 1) >> 32) == (sorted.Load(k) >> 32);
    const bool own = t.x < list;
    const std::uint64_t mine = own ? sorted.Load(t.x) : 0;
    const std::int64_t my_index = IndexOfKey(mine);
    const std::int64_t my_lane = my_index % kCanonicalLanes;
    std::uint32_t before = 0, in_lane = 0, place = 0;
    for (std::int64_t j = 0; j < list; ++j) {
      const std::int64_t i = IndexOfKey(sorted.Load(j));
      const std::int64_t lane = i % kCanonicalLanes;
      before += lane < t.x ? 1u : 0u;
      in_lane += lane == t.x ? 1u : 0u;
      place += lane < my_lane || (lane == my_lane && i < my_index) ? 1u : 0u;
    }
    offset[t] = before;
    count[t] = in_lane;
    if (own) grouped.Store(place, mine);
  });
  block.Sync();
  total = static_cast<std::uint32_t>(list);
  return !boundary_tie;
}

struct SamplingFiltersSlicesKernel {
  static constexpr const char* kName = "sampling_filters_slices";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class Arr, class S, class K>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, Arr logits, K top_k, bool has_k, S slices, std::int64_t vocab,
                                        std::int64_t pitch, std::int64_t slice_budget, std::int64_t grid_slices,
                                        FilterRules rules) const {
    const std::int64_t row = block.index() / grid_slices;
    const std::int64_t g = block.index() % grid_slices;
    const std::int64_t k = has_k ? top_k.Load(row) : 0;
    const std::int64_t n = SamplingFiltersRowSlices(slice_budget, vocab, k, rules);
    if (n <= 1 || g >= n) return;  // the row runs whole, or takes fewer slices than the grid's
    const std::int64_t lo = SliceBegin(g, n, vocab);
    const std::int64_t length = SliceBegin(g + 1, n, vocab) - lo;
    const std::int64_t length_k = SliceListLength(k, rules);
    const std::int64_t list = row * kRowSliceSlots + g * length_k;
    SAMPCHECK_SHARED(block, std::uint64_t, grouped, kCandidates);
    SAMPCHECK_SHARED(block, std::uint64_t, sorted, kCandidates);
    auto offset = Registers<std::uint32_t>(block);
    auto count = Registers<std::uint32_t>(block);
    std::uint32_t total = 0;
    std::uint64_t first = 0;  // a degenerate slice gathers nothing: its list is incomplete
    const bool gathered =
        GatherTopKCandidates(block, logits, row * pitch + lo, length, length_k, false, grouped, sorted, offset, count,
                             total, first);
    block.ForEachThread([&](Thread t) {
      if (!gathered) {
        if (t.x == 0) slices.Store(list, kNoKey);
        return;
      }
      // The slice's keys carry slice indices in their low word: lo + i < V < 2^32, no carry.
      if (t.x < length_k) slices.Store(list + t.x, sorted.Load(t.x) + static_cast<std::uint64_t>(lo));
    });
  }
};

struct SamplingFiltersRowsKernel {
  static constexpr const char* kName = "sampling_filters_rows";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class Arr, class S, class K>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, Arr logits, Arr out, Arr probs, S survivor_rows, K top_k, bool has_k,
                                        std::int64_t vocab, std::int64_t pitch, std::int64_t slice_budget,
                                        std::int64_t grid_slices, FilterRules rules) const {
    const std::int64_t row = block.index() / grid_slices;
    const std::int64_t g = block.index() % grid_slices;
    const std::int64_t k = has_k ? top_k.Load(row) : 0;
    const std::int64_t n = SamplingFiltersRowSlices(slice_budget, vocab, k, rules);
    if (n <= 1 || g >= n) return;
    const std::int64_t lo = SliceBegin(g, n, vocab);
    const std::int64_t hi = SliceBegin(g + 1, n, vocab);
    const std::int64_t base = row * kSurvivorRowWords;
    block.ForEachThread([&](Thread t) {
      const std::uint64_t last = survivor_rows.Load(base + kSurvivorRowLast);
      if (last == kNoKey) return;  // the per-row kernel wrote this row
      const SoftmaxStats st = UnpackSoftmaxStats(survivor_rows.Load(base + kSurvivorRowStats));
      const std::uint64_t lane = survivor_rows.Load(base + kSurvivorRowLanes + t.x);
      std::uint32_t j = static_cast<std::uint32_t>(lane >> 32);
      const std::uint32_t j_end = j + static_cast<std::uint32_t>(lane);
      // Thread t writes lane t's indices in the slice; its candidates before the slice are skipped.
      const std::int64_t first = lo + (t.x - lo % kCanonicalLanes + kCanonicalLanes) % kCanonicalLanes;
      while (j < j_end && IndexOfKey(survivor_rows.Load(base + j)) < first) ++j;
      WriteSurvivorLane(logits, row * pitch, out, probs, row * vocab, first, hi, survivor_rows, base, j, j_end, last, st);
    });
  }
};

}  // namespace sampcheck::gpu
