// SPDX-License-Identifier: Apache-2.0
#pragma once
// A bitonic sorting network (Batcher 1968) over the slots a shared array's keys actually use,
// with the stages inside a warp run in registers by warp shuffles and the stages inside a
// thread in registers: block barriers only where a compare-exchange crosses warps; and the
// k-th smallest of 1024 slots by pairwise merges of warp-sorted runs, without a block-wide sort
// (docs/gpu.md "Sorting networks and the canonical reduction").
//
// Contract:
// - BitonicSortSlots<kThreads>(block, keys, count): a block of kThreads threads (whole warps,
//   kThreads divides kSortSlots = 1024) sorts keys[0, n) ascending in place, n =
//   SortSlotsFor(count) = the next power of two >= count, at least 32, at most 1024. The
//   caller has written keys[0, n) (slots count .. n - 1 with keys above every real key, e.g.
//   ~0, so that keys[0, count) are the real keys in order) and synchronised; slots from n on
//   are neither read nor written (PadSortSlots below writes the padding). count is
//   block-uniform. Ends with a barrier.
// - Any keys (ties included): the network sorts any sequence of integers, and equal integers
//   are indistinguishable, so the result is the sorted multiset, the same bits as any sort.
//   The filters' keys are unique (value key, then index), so it is also their unique order.
// - Layout: thread t holds slots t + r kThreads (r < max(1, n / kThreads)) in registers. Stage
//   (k, j) pairs slot s with s ^ j; s keeps the smaller key iff (s & j) == 0 equals (s & k) ==
//   0 (ascending runs where s & k == 0). Partners j >= kThreads are in the same thread
//   (registers); j < 32 in the same warp (ShuffleXor: lane l ^ j of the same register); the
//   others, 32 <= j < kThreads, cross warps, and a level's crossing stages go through an
//   exchange array in shared memory (Batcher's network with transposes, as GPU sorts of a
//   block's keys run it):
//   - one crossing stage (j = 32: the level k = 64): every slot stores its key, a barrier,
//     every slot loads its partner's and keeps its half, a barrier: 2 accesses;
//   - c >= 2 (levels k >= 128 with kThreads >= 128): the keys are stored in slot order, a
//     barrier, and loaded transposed: of a register's run of m = min(n, kThreads) slots, h =
//     m / 32 rows of 32, thread u < m takes row u mod h, column u / h, so the rows of a column
//     are h neighbouring lanes and every crossing stage is a ShuffleXor of lane u ^ j / 32;
//     then stored transposed, a barrier, and loaded in slot order: 4 accesses, 2 barriers for
//     any c (the shared stage by stage took 2 c + 2 or 4 c + 2 accesses and c + 1 barriers
//     until 2026-12-06). The exchange array holds slot s at SwizzledSlot(s)
//     (gpu/block/swizzled_slot.h): a warp's stores and loads in either order touch 32
//     different words modulo 32, no bank conflict on the device. A thread's reload reads the
//     words it writes next (the next level's store), so a transposed level ends without a
//     barrier; the first crossing level (k = 64) is always the one-stage kind, whose barriers
//     order the first load of `keys` before every other thread's store.
//   - BitonicSortSlots<kThreads> (one buffer) exchanges in `keys`; the final store of the
//     sorted slots in slot order takes a barrier more after a transposed level (its reads are
//     of the swizzled words, its stores of the plain ones).
//   - BitonicSortSlots<kThreads, true> (two buffers) exchanges in a second array of 1024 slots
//     declared inside (8 KiB more static shared memory, which gpu's sampling_filters, 48,944
//     of its 49,152 bytes, has not): no barrier more.
//   Threads t >= n (n < kThreads) hold padding that never reaches the arrays: a partner s ^ j
//   of s < n is < n, and a transposed partner lane of u < m is < m.
// - Barriers: 1 (the end) + 2 a merge level k = 64 .. n with a crossing stage (+ 1 with one
//   buffer where k = 128 .. n crosses): with 1024 threads, 3 for n = 64 and 11 (one buffer 12)
//   for n = 1024 (the full network: 55; stage by stage until 2026-12-06: 21); with 128, 3 and
//   11 (12). Accesses of the busiest thread at 1024 threads: 2 + those of the levels: 4 for n =
//   64, 20 for n = 1024 (stage by stage: 8 and 72 with one buffer, 4 and 32 with two).
// - Code: the body is one function out of line on the device (sort_detail::SortSlots, given
//   the array's View, a pointer in a register; the emulator inlines it). Inlined at each of a
//   kernel's sorts, its transposed levels made gpu-fast's sample select (four sorts) too large
//   for nvcc 13.0 to inline at its hot call site: its count read's loop of a quad in the slice
//   kernel rose from 602 SASS instructions and 17 stack accesses to 651 and 27; out of line,
//   585 and none (fast_sampling's: 726 and 147 -> 626 and 51).
// - KthSmallestSlot<kThreads>(block, keys, k): below; 4 <= k <= 64: four barriers and 23
//   accesses a thread at 1024 threads (the warps' merge tree); else ten barriers, at most 40
//   searching reads a key.
// Example: keys {5, 3, 9, ~0, ..} with count 3: n = 32, keys[0 .. 3) = {3, 5, 9}
//   (tests/gpu_bitonic_sort_test.cc).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/merge_runs.cuh"
#include "gpu/block/swizzled_slot.h"
#include "gpu/block/warp_merge_tree.cuh"

namespace sampcheck::gpu {

inline constexpr int kSortSlots = 1024;

// The slots a sort of `count` keys runs over (contract above).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int SortSlotsFor(std::uint32_t count) {
  int n = kWarpSize;
  while (n < kSortSlots && static_cast<std::uint32_t>(n) < count) n *= 2;
  return n;
}

// Thread t's share of the padding after `count` keys: ~0, above every key, in the slots of
// [count, end) that the network's layout gives it (t, t + kThreads, ...), in the caller's phase
// before its barrier. end = SortSlotsFor(count) is what BitonicSortSlots reads; callers whose
// threads read every slot afterwards pad to kSortSlots.
template <int kThreads, class Shared>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void PadSortSlots(Thread t, Shared& keys, std::uint32_t count,
                                                               std::uint32_t end) {
  for (std::uint32_t s = static_cast<std::uint32_t>(t.x); s < end; s += kThreads) {
    if (s >= count) keys.Store(s, ~std::uint64_t{0});
  }
}

namespace sort_detail {

// Whether slot s keeps the smaller of its pair in stage (k, j).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool KeepsLower(int s, int k, int j) {
  return ((s & j) == 0) == ((s & k) == 0);
}

// Slot s's half of the compare-exchange with partner value b in stage (k, j).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t Keep(int s, int k, int j, std::uint64_t a, std::uint64_t b) {
  return tree_detail::KeepAscending(KeepsLower(s, k, j), a, b);
}

// Stage (k, j) between lanes lane ^ mask for register r, slot(t) the slot thread t holds there.
template <class B, class Slots, class SlotOf>
SAMPCHECK_KERNEL_BODY SAMPCHECK_FORCE_INLINE void LaneStage(B& block, Slots& slots, int r, int mask, int k, int j,
                                                            SlotOf slot) {
  tree_detail::LaneStage(block, slots, r, mask, [&](Thread t) { return KeepsLower(slot(t), k, j); });
}

// A merge level's stages (k, j0), (k, j0 / 2), .., (k, 32), j0 < kThreads, that cross warps
// (contract "Layout"): slots[t].v[r] holds slot t + r kThreads on entry and on return;
// `buffer` is the exchange array (slots [0, n) are written before they are read). Ends after
// the last reads of `buffer`: with a barrier when j0 = 32, without one otherwise (the reads
// are of the thread's own words, which only it writes next).
template <int kThreads, int kRegs, class B, class Shared, class Slots>
SAMPCHECK_KERNEL_BODY void CrossWarpStages(B& block, Shared& buffer, Slots& slots, int n, int regs, int k, int j0) {
  if (j0 == kWarpSize) {  // one stage: each slot reads its partner's key
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kRegs; ++r) {
        const int s = t.x + r * kThreads;
        if (r < regs && s < n) buffer.Store(s, slots[t].v[r]);
      }
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kRegs; ++r) {
        const int s = t.x + r * kThreads;
        if (r < regs && s < n) slots[t].v[r] = Keep(s, k, kWarpSize, slots[t].v[r], buffer.Load(s ^ kWarpSize));
      }
    });
    block.Sync();  // the partners' reads before the next level's stores
    return;
  }
  // Transposed: thread u < m of a register's run of m slots holds the run's row u mod h and
  // column u / h (h rows of 32), so the h rows of a column are h neighbouring lanes of a
  // warp, and every crossing stage (j = 32 .. j0: rows r and r ^ j / 32) is a ShuffleXor.
  const int m = n < kThreads ? n : kThreads;
  const int h = m / kWarpSize;
  auto transposed = [&](int u, int r) { return r * kThreads + (u % h) * kWarpSize + u / h; };
  auto exchange = [&](bool to_transposed) {
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kRegs; ++r) {
        const int s = t.x + r * kThreads;
        if (r < regs && s < n) buffer.Store(SwizzledSlot(to_transposed ? s : transposed(t.x, r)), slots[t].v[r]);
      }
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kRegs; ++r) {
        const int s = t.x + r * kThreads;
        if (r < regs && s < n) slots[t].v[r] = buffer.Load(SwizzledSlot(to_transposed ? transposed(t.x, r) : s));
      }
    });
  };
  exchange(true);
  // With n < kThreads the threads past m hold padding (all ones, loaded as such and kept by
  // every earlier stage), and so do their partners (u ^ j / 32 >= m for u >= m, as j / 32 <
  // h): whichever they keep is all ones, so their slot index, past n, does not matter.
  for (int r = 0; r < kRegs && r < regs; ++r) {
    for (int j = j0; j >= kWarpSize; j /= 2) {
      LaneStage(block, slots, r, j / kWarpSize, k, j, [&](Thread t) { return transposed(t.x, r); });
    }
  }
  exchange(false);
}

// The network over the exchange array `buffer` (keys itself, or a second array); returns with
// slot t + r kThreads in slots[t].v[r], and whether the last reads of `buffer` (a transposed
// level's) still need a barrier before another thread writes there.
template <int kThreads, int kRegs, class B, class Shared, class Slots>
SAMPCHECK_KERNEL_BODY bool SortLevels(B& block, Shared& buffer, Slots& slots, int n, int regs) {
  bool reads_pending = false;
  for (int k = 2; k <= n; k *= 2) {
    int j = k / 2;
    if (j >= kThreads) {  // partners in the same thread: every such stage of the level at once
      block.ForEachThread([&](Thread t) {
        for (int d = j; d >= kThreads; d /= 2) {
          const int rd = d / kThreads;
          for (int r = 0; r < kRegs; ++r) {
            if (r >= regs || (r & rd) != 0) continue;
            const int s = t.x + r * kThreads;
            const std::uint64_t a = slots[t].v[r];
            const std::uint64_t b = slots[t].v[r | rd];
            slots[t].v[r] = Keep(s, k, d, a, b);
            slots[t].v[r | rd] = Keep(s | d, k, d, b, a);
          }
        }
      });
      j = kThreads / 2;
    }
    if (j >= kWarpSize) {  // partners in other warps: through `buffer`
      CrossWarpStages<kThreads, kRegs>(block, buffer, slots, n, regs, k, j);
      reads_pending = j > kWarpSize;
      j = kWarpSize / 2;
    }
    for (; j >= 1; j /= 2) {  // partners in the same warp: lane ^ j
      for (int r = 0; r < kRegs && r < regs; ++r) {
        LaneStage(block, slots, r, j, k, j, [&](Thread t) { return t.x + r * kThreads; });
      }
    }
  }
  return reads_pending;
}

// BitonicSortSlots' body, out of line on the device (contract "Code").
template <int kThreads, bool kTwoBuffers, class B, class View>
SAMPCHECK_OUT_OF_LINE SAMPCHECK_KERNEL_BODY void SortSlots(B& block, View keys, std::uint32_t count) {
  static_assert(kThreads % kWarpSize == 0 && kThreads <= kSortSlots && kSortSlots % kThreads == 0,
                "whole warps that divide the slots");
  constexpr int kRegs = kSortSlots / kThreads;
  const int n = SortSlotsFor(count);
  const int regs = n > kThreads ? n / kThreads : 1;  // registers in use per thread
  auto slots = Registers<SlotKeys<kRegs>>(block);
  block.ForEachThread([&](Thread t) {
    for (int r = 0; r < kRegs; ++r) {
      const int s = t.x + r * kThreads;
      slots[t].v[r] = r < regs && s < n ? keys.Load(s) : ~std::uint64_t{0};
    }
  });
  if constexpr (kTwoBuffers) {
    SAMPCHECK_SHARED(block, std::uint64_t, scratch, kSortSlots);
    SortLevels<kThreads, kRegs>(block, scratch, slots, n, regs);
  } else if (SortLevels<kThreads, kRegs>(block, keys, slots, n, regs)) {
    block.Sync();  // the transposed level's reads of keys before the stores below
  }
  block.ForEachThread([&](Thread t) {
    for (int r = 0; r < kRegs; ++r) {
      const int s = t.x + r * kThreads;
      if (r < regs && s < n) keys.Store(s, slots[t].v[r]);
    }
  });
  block.Sync();
}

}  // namespace sort_detail

template <int kThreads, bool kTwoBuffers = false, class B, class Shared>
SAMPCHECK_KERNEL_BODY void BitonicSortSlots(B& block, Shared& keys, std::uint32_t count) {
  sort_detail::SortSlots<kThreads, kTwoBuffers>(block, keys.View(), count);
}

// Each warp's 32 keys of each register sorted ascending across its lanes (register r of lane
// l holds the run's l-th key): the network's stages n = 2 .. 32 by ShuffleXor, no barrier and
// no shared memory, the last (n = 32, every lane ascending) the merge tree's WarpBitonicMerge
// (gpu/block/warp_merge_tree.cuh). The runs MergeRuns (gpu/block/merge_runs.cuh) merges.
template <int kRegs, class B, class Slots>
SAMPCHECK_KERNEL_BODY void WarpSortSlots(B& block, Slots& slots) {
  for (int r = 0; r < kRegs; ++r) {
    for (int n = 2; n < kWarpSize; n *= 2) {
      for (int j = n / 2; j >= 1; j /= 2) {
        sort_detail::LaneStage(block, slots, r, j, n, j, [](Thread t) { return t.lane(); });
      }
    }
  }
  tree_detail::WarpBitonicMerge<kRegs>(block, slots);
}

// Below 4 KthSmallestSlot takes the binary searches, which are shorter there: a level reads
// floor(log2 k) + 1 <= 2 keys and stores one, where the merge tree reads and stores two (k = 1:
// 15 accesses in all, k = 3: 19, against the tree's 22 or 23; the near-V gathers' k is V - k' +
// 1, often 1).
inline constexpr int kTreeMinK = 4;

// The k-th smallest (1 <= k <= kSortSlots) of keys[0, kSortSlots), in every thread, for keys
// whose first k are distinct (ties only above the k-th, e.g. padding): each run of 32 slots is
// sorted in its warp's registers (ShuffleXor stages of the network above, no barrier). 4 <= k
// <= 64 (the typical top-k; since 2026-12-03): the odd runs store theirs back to their own
// slots, and the warps' merge tree (MergeTreeRuns, gpu/block/warp_merge_tree.cuh) merges the 32
// runs in their registers, the keys it places at k - 1 and 0 going to a slot of their own: 1 +
// 2 + 1 = 4 barriers (6 until 2026-12-07, when the tree merged two runs a level), 22 or 23
// accesses a thread of 1024 (its load and an odd run's store, 3 at level 1, 8 at level 2, up to
// 8 at level 3 with the answer's stores, 2 reads of them).
// Else the runs are written back; then MergeRuns (gpu/block/merge_runs.cuh) merges the 32 runs pairwise in five
// levels keeping each merged run's first k keys, and the keys it places at k - 1 and 0 go to a
// slot of their own: 1 + 2 x 4 + 1 = 10 barriers, at most 40 binary-search reads a key (30 for
// k <= 63), where ranking each key over the 32 runs took 2 barriers and up to 192 reads.
// `keys` is left unspecified; the caller has written keys and synchronised, and may rewrite
// them on return (their last reads precede the last barrier). `smallest` gets the key of
// rank 0 from the same merge.
template <int kThreads, class B, class Shared>
SAMPCHECK_KERNEL_BODY std::uint64_t KthSmallestSlot(B& block, Shared& keys, std::int64_t k, std::uint64_t& smallest) {
  static_assert(kThreads % kWarpSize == 0 && kThreads <= kSortSlots && kSortSlots % kThreads == 0,
                "whole warps that divide the slots");
  static_assert(kSortSlots == kMergeSlots, "the merge takes every slot");
  constexpr int kRegs = kSortSlots / kThreads;
  SAMPCHECK_SHARED(block, std::uint64_t, kth_key, 2);  // rank k - 1, rank 0
  const int kk = static_cast<int>(k);
  auto slots = Registers<SlotKeys<kRegs>>(block);
  block.ForEachThread([&](Thread t) {
    for (int r = 0; r < kRegs; ++r) slots[t].v[r] = keys.Load(t.x + r * kThreads);
  });
  WarpSortSlots<kRegs>(block, slots);
  auto place = [&](Thread, int position, std::uint64_t x) {
    if (position == kk - 1) kth_key.Store(0, x);
    if (position == 0) kth_key.Store(1, x);
  };
  if (kk >= kTreeMinK && kk <= kTreeKept) {
    // Run v = slots 32 v .. 32 v + 31 (TreeRunOf's: slot t + r kThreads is lane l of run v),
    // up to 32 keys: the odd runs store theirs back to their own slots (StoreTreeRun, half).
    auto runs = Registers<SlotKeys<2 * kRegs>>(block);
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kRegs; ++r) {
        runs[t].v[2 * r] = slots[t].v[r];
        runs[t].v[2 * r + 1] = kTreeAbove;
        const int v = TreeRunOf<kThreads>(t, r);
        if (v % 2 == 1) StoreTreeRun(t, v, slots[t].v[r], kTreeAbove, true, keys);
      }
    });
    block.Sync();
    MergeTreeRuns<kThreads>(block, keys, runs, kTreeRuns, true, place);
  } else {
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kRegs; ++r) keys.Store(t.x + r * kThreads, slots[t].v[r]);
    });
    block.Sync();
    MergeRuns<kThreads>(block, keys, slots, kWarpSize, kSortSlots / kWarpSize, kk, place);
  }
  block.Sync();
  std::uint64_t kth = 0;
  block.ForEachThread([&](Thread) { kth = kth_key.Load(0), smallest = kth_key.Load(1); });
  return kth;
}

template <int kThreads, class B, class Shared>
SAMPCHECK_KERNEL_BODY std::uint64_t KthSmallestSlot(B& block, Shared& keys, std::int64_t k) {
  std::uint64_t smallest = 0;
  return KthSmallestSlot<kThreads>(block, keys, k, smallest);
}

}  // namespace sampcheck::gpu
