// SPDX-License-Identifier: Apache-2.0
#pragma once
// sampling_filters with several blocks per row when the batch is small (docs/gpu.md "Top-k
// survivors", "Several blocks per row"): a first launch gathers each slice's exact top k, and
// the last block of each row (gpu/block/last_block.cuh) runs the per-row kernel's work
// (SamplingFiltersKernel::Row, gpu/kernels/sampling_filters.cuh), which merges them instead of
// reading the row and runs every filter step on the survivors; a second launch writes the
// output rows slice by slice. Bit-exact with the one-block survivor path
// (gpu/kernels/sampling_filters_on_survivors.cuh), hence with reference/sampling_filters.h.
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
//   one-block gather (GatherSortedTopKCandidates, gpu/block/top_k_survivors.cuh: one to three reads of the
//   slice, exact integer keys, ties not kept) and writes the slice's L smallest keys in
//   ascending order, with row indices, to slices[row kRowSliceSlots + g L ..]; kNoKey at the
//   list's first slot when its candidates do not fit (the per-row work then reads the row).
//   Then it takes the row's ticket (tickets: rows u32, zero on entry and left zero): warp 0 in
//   the gather tree's last level when the tree's keys stand and the slice is not degenerate
//   (TicketInTree, told to the block by the tree's barrier), else LastBlockOf(tickets, row,
//   n) after the list's store; the last block runs SamplingFiltersKernel::Row on the row, which
//   reads the n lists in slice order. A row of n = 1 runs Row whole in its block g = 0. Every
//   other argument is the per-row kernel's.
// - The per-row kernel merges the n lists (MergeRuns, gpu/block/merge_runs.cuh: exactly the row's L smallest keys
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
// - Deterministic: integer keys and counts, fixed orders; the ticket's atomic only picks which
//   block merges, and the merge is the same whichever does; every slot has one writer.
// Example: 1 x 16384, k = 50: budget min(132, 16384 / 4096) = 4, n = min(4, 1024 / 50, 16384 /
//   51) = 4 slices of 4096; the output bits equal the one-block launch's
//   (tests/gpu_kernels_test.cc, GpuSamplingFiltersSlices).

#include <cstdint>
#include <cstring>
#include <utility>

#include "gpu/block/bitonic_sort.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/last_block.cuh"
#include "gpu/block/merge_runs.cuh"
#include "gpu/block/radix_partition.cuh"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/row_slices.cuh"
#include "gpu/block/top_k_survivors.cuh"
#include "gpu/kernels/dropped_column.cuh"
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

// The survivor path's candidate arrays (kCandidates keys each, gpu/block/top_k_survivors.cuh):
// one pair per kernel on the device, so a split row's slice gather and its last block's merge
// (gpu/kernels/sampling_filters_on_survivors.cuh) share them (a kernel declares at most 48 KiB
// of shared memory statically).
template <class B>
SAMPCHECK_KERNEL_BODY auto GroupedCandidateSlots(B& block) {
  return PartitionWarpSlots(block);  // the partition path's second chunk buffer: one storage
}
template <class B>
SAMPCHECK_KERNEL_BODY auto SortedCandidateSlots(B& block) {
  return PartitionChunkWeights(block).wide;  // the partition path's weights of a chunk: one storage
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
      StoreDroppedColumn(out, probs, at + i);
    }
  }
}

// The row's candidates from its slices' lists (contract above) when all are complete: sorted =
// exactly the row's L smallest keys (MergeSliceLists), grouped / offset / count their lane grouping
// (GroupCandidatesByLane, gpu/block/top_k_survivors.cuh). Returns false when a list is
// incomplete, or when ties are kept and the (k + 1)-th key ties with the k-th: the caller then
// gathers from the row, which rewrites every array here.
// With warp_keys (the caller's survivor steps may run in warp 0, gpu/kernels/
// sampling_filters_in_warp.cuh) and the merge tree's keys in warp 0's registers: warp 0 copies
// them to *warp_keys and checks that no boundary tie sends the row to the gather and that K is
// finite; one barrier tells the block (`in_warp`), and then no grouping is made (a barrier and
// warp 0's sort of the lane-order keys); else the grouping from sorted, as without.
template <class B, class S, class Shared, class R, class Tree = decltype(Registers<SlotKeys<2>>(std::declval<B&>()))>
SAMPCHECK_KERNEL_BODY bool MergeTopKCandidates(B& block, S slices, std::int64_t slice_base, std::int64_t slice_count,
                                               std::int64_t k, bool ties, Shared& grouped, Shared& sorted, R& offset,
                                               R& count, std::uint32_t& total, Tree* warp_keys = nullptr,
                                               bool* in_warp = nullptr) {
  const std::int64_t list = ties ? k + 1 : k;  // SliceListLength
  // The lists read from global memory once, coalesced (MergeSliceLists, gpu/block/row_slices.cuh:
  // into the warps' registers for L <= 64, else staged in `grouped`, rebuilt below): about 20
  // loads a key at 20 slices of top-k 50, 160 KB of scattered global loads in one block otherwise.
  // With the warps' merge tree (list <= 64, at most 32 lists) its last level, in warp 0, also
  // keeps each placed key in the lane that holds it, where the lane grouping takes them: no
  // barrier between the merge and the grouping, whose barrier orders sorted's stores before
  // every later read (one barrier fewer since 2026-12-07).
  const bool in_tree = list <= kTreeKept && slice_count <= kTreeRuns;
  auto tree = Registers<SlotKeys<2>>(block);
  std::uint64_t first_head = 0;
  if (!MergeSliceLists<kCanonicalLanes>(block, slices, slice_base, slice_count, list, kNoKey, grouped, first_head,
                                        [&](Thread t, int position, std::uint64_t x) {
                                          sorted.Store(position, x);
                                          if (in_tree) tree[t].v[position / kWarpSize] = x;
                                        })) {
    return false;
  }
  if (!in_tree) block.Sync();
  total = static_cast<std::uint32_t>(list);
  if (in_tree && warp_keys != nullptr) {
    SAMPCHECK_SHARED(block, std::uint32_t, stays, 1);
    block.ForWarps(WarpZero{}, [&] {
      auto at = Registers<int>(block);
      block.ForEachThread([&](Thread t) { at[t] = static_cast<int>(k - 1); });
      auto of = [&](Thread t, int r) { return tree[t].v[r]; };
      const auto kth = TreePositionValue<std::uint64_t>(block, of, at);
      block.ForEachThread([&](Thread t) { at[t] = static_cast<int>(ties ? k : k - 1); });  // k < list <= 64
      const auto after = TreePositionValue<std::uint64_t>(block, of, at);
      block.ForEachThread([&](Thread t) {
        (*warp_keys)[t] = tree[t];
        const bool tie = ties && (after[t] >> 32) == (kth[t] >> 32);
        if (t.lane() == 0) stays.Store(0, !tie && kth[t] <= kLastFiniteDescending ? 1u : 0u);
      });
    });
    block.Sync();  // stays, and sorted's stores before any later reader
    block.ForEachThread([&](Thread) { *in_warp = stays.Load(0) != 0; });
    if (*in_warp) return true;
  }
  GroupCandidatesByLane(block, sorted, static_cast<int>(list), grouped, offset, count,
                        in_tree && warp_keys == nullptr ? &tree : nullptr);
  bool boundary_tie = false;
  block.ForEachThread([&](Thread) { boundary_tie = ties && (sorted.Load(k - 1) >> 32) == (sorted.Load(k) >> 32); });
  // The caller then gathers from the row, whose first phase rewrites sorted: after these reads.
  if (boundary_tie) block.Sync();
  return !boundary_tie;
}

struct SamplingFiltersKernel;

// RowKernel: SamplingFiltersKernel (gpu/kernels/sampling_filters.cuh). A template parameter so
// that this header, which that one includes, needs only its declaration.
template <class RowKernel = SamplingFiltersKernel>
struct SamplingFiltersSlicesKernelOf {
  static constexpr const char* kName = "sampling_filters_slices";
  static constexpr int kThreads = kCanonicalLanes;
  // No kMinBlocksPerSm: ptxas takes 64 registers, one block per SM. Timed on an H200
  // (docs/gpu.md "Occupancy"), that beat two blocks at 32 registers by up to 29 %: the bound's
  // spills went to a stack frame that no SM's L1 holds.

  template <class B, class Arr, class S, class K, class P, class Tickets, class Seeds, class Token>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, Arr logits, Arr out, Arr probs, S scratch, K top_k, bool has_k,
                                        P top_p, bool has_p, P min_p, bool has_m, std::int64_t vocab,
                                        std::int64_t pitch, FilterRules rules, S slices, S survivor_rows,
                                        Tickets tickets, std::int64_t slice_budget, std::int64_t grid_slices,
                                        bool write_rows, Seeds seed, Seeds positions, Token token, bool draw) const {
    const std::int64_t row = block.index() / grid_slices;
    const std::int64_t g = block.index() % grid_slices;
    const std::int64_t k = has_k ? top_k.Load(row) : 0;
    const std::int64_t n = SamplingFiltersRowSlices(slice_budget, vocab, k, rules);
    if (n <= 1 || g >= n) {  // the row runs whole in its first block, or takes fewer slices than the grid's
      if (n <= 1 && g == 0) {
        RowKernel{}.Row(block, row, logits, out, probs, scratch, top_k, has_k, top_p, has_p, min_p, has_m, vocab,
                        pitch, rules, slices, survivor_rows, slice_budget, write_rows, seed, positions, token, draw);
      }
      return;
    }
    const std::uint32_t ticket = WriteSliceList(block, logits, slices, tickets, row, g, n, k, vocab, pitch, rules);
    if (!LastBlockAfterTree(block, ticket, tickets, row, n)) return;
    RowKernel{}.Row(block, row, logits, out, probs, scratch, top_k, has_k, top_p, has_p, min_p, has_m, vocab, pitch,
                    rules, slices, survivor_rows, slice_budget, write_rows, seed, positions, token, draw);
  }

 private:
  // Slice g's list (contract above) into slices[row kRowSliceSlots + g L ..].
  template <class B, class Arr, class S, class Tickets>
  SAMPCHECK_KERNEL_BODY static std::uint32_t WriteSliceList(B& block, Arr logits, S slices, Tickets tickets,
                                                            std::int64_t row, std::int64_t g, std::int64_t n,
                                                            std::int64_t k, std::int64_t vocab, std::int64_t pitch,
                                                            const FilterRules& rules) {
    const std::int64_t lo = SliceBegin(g, n, vocab);
    const std::int64_t length = SliceBegin(g + 1, n, vocab) - lo;
    const std::int64_t length_k = SliceListLength(k, rules);
    const std::int64_t list = row * kRowSliceSlots + g * length_k;
    auto sorted = SortedCandidateSlots(block);  // the last block's merge reuses them
    std::uint32_t total = 0;
    std::uint64_t first = 0;  // a degenerate slice gathers nothing: its list is incomplete
    // The gather's lanes store key j of the list: the tree's lanes in warp 0, which then take
    // the row's ticket themselves when the tree's keys stand and the slice is not degenerate
    // (WarpTakesTicket: its SyncWarp orders the lanes' stores before lane 0's fence, and the
    // tree's barrier tells the block; one barrier fewer than LastBlockOf's), or thread j after
    // the candidates' sort, with a barrier after it, before LastBlockOf (thread 0's fence orders
    // every thread's stores). The slice's keys carry slice indices in their low word: lo + i <
    // V < 2^32, no carry.
    auto place = [&](Thread, std::int64_t j, std::uint64_t key) {
      slices.Store(list + j, key + static_cast<std::uint64_t>(lo));
    };
    auto decide = [&](B& warp, const LaneKeyTreeResult& tree) {
      return TicketInTree(warp, !tree.short_lane && !IsDegenerateFirstKey(tree.first), tickets, row, n);
    };
    std::uint32_t ticket = kTicketNotYet;
    if (GatherSortedTopKCandidates(block, logits, row * pitch + lo, length, length_k, false, sorted, total, first,
                                   place, decide, &ticket)) {
      return ticket;
    }
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) slices.Store(list, kNoKey);  // after any of the tree's stores: a barrier between
    });
    block.Sync();
    return kTicketNotYet;
  }
};

using SamplingFiltersSlicesKernel = SamplingFiltersSlicesKernelOf<>;

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
