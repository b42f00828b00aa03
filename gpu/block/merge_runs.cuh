// SPDX-License-Identifier: Apache-2.0
#pragma once
// The first `keep` keys of several sorted runs in shared memory, in order, by pairwise merges
// (the merge-path rank of each key: its place in its own run plus the keys of the partner run
// below it), level by level, each merged run cut to its first `keep` keys. Serves the k-th
// smallest of 1024 lane minima (KthSmallestSlot, gpu/block/bitonic_sort.cuh: 32 warp-sorted
// runs of 32) and a split row's merge of its slices' top-k lists (gpu/fast/fast_sampling.cuh,
// gpu/kernels/sampling_filters_slices.cuh) (docs/gpu.md "Sorting networks and the canonical
// reduction").
//
// Contract:
// - keys[g run, g run + min(run, keep)) for g < runs: each sorted ascending, written and
//   synchronised by the caller; 1 <= runs, 1 <= run, runs x run <= kMergeSlots; kThreads divides
//   kMergeSlots. held[t].v[r]: the key of slot t + r kThreads, for every slot that takes part
//   (the caller's registers: no thread reads its own keys back; StageRuns below fills both).
//   The keys of every run's first min(run, keep) slots take part; the other slots are neither
//   read nor written.
// - Level i = 1, 2, .. merges runs 2q and 2q + 1 of level i - 1 (a last run without a partner
//   passes through), the merged run at stride run x 2^i, until one run is left. A key's place in
//   the merged run is its place in its own run plus the partner run's keys below it (the left
//   run counts keys < x, the right one keys <= x: equal keys take distinct places, the left
//   run's first, so the merge is stable). A key with `keep` keys below it in its merged run has
//   at least `keep` below it in the whole set: it drops out, and a run holds at most its first
//   `keep` keys. So the places < keep of the last run are exactly the first min(keep, keys)
//   keys of the sorted multiset, each once.
// - place(t, position, key) is called for each of them by the thread that holds the key (slots
//   t + r kThreads at the start), in the last level's phase (runs = 1: the first phase), with no
//   barrier after it: the caller's. `keys` is rewritten at the merged runs' places; its last
//   reads are in that phase, so the caller synchronises before rewriting it.
// - Barriers: 2 (levels - 1), levels = ceil(log2 runs). Shared reads of a key: at most the sum
//   over levels of floor(log2 m) + 1, m = min(keys of the partner run, keep): 6 + 7 + 8 + 9 +
//   10 = 40 for 32 runs of 32 and keep = 1024, 6 a level for keep <= 63.
// - Integer comparisons only: the places do not depend on kThreads.
// Example: runs (1, 5) and (2, 3), run = 2, keep = 2: 1 is placed at 0 (0 + 0), 5 drops (1 + 2),
//   2 at 1 (0 + 1), 3 drops (1 + 1) (tests/gpu_merge_runs_test.cc, "ContractExample").

#include <cstdint>

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

inline constexpr int kMergeSlots = 1024;

// One thread's keys: slots t + r kThreads, r < kRegs (also the bitonic sort's registers,
// gpu/block/bitonic_sort.cuh).
template <int kRegs>
struct SlotKeys {
  std::uint64_t v[kRegs];
};

namespace merge_detail {

// Each key's run at the current level and its place in it; place kDropped once the key cannot
// be among the first `keep`.
template <int kRegs>
struct MergePlaces {
  int run[kRegs];
  int place[kRegs];
};
inline constexpr int kDropped = -1;

// The largest power of two <= m, 0 for m = 0.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int FloorPow2(int m) {
  int h = 1;
  while (2 * h <= m) h *= 2;
  return m > 0 ? h : 0;
}

// The keys of one level's partner runs, block-uniform: the runs made of 2^(level - 1) whole
// initial runs hold min(2^(level - 1) first, keep) keys (`full`), the last run may hold fewer
// (`tail`), and there is none past it. top: FloorPow2 of the count, where the search starts.
struct PartnerKeys {
  int tail_run;
  int full, full_top;
  int tail, tail_top;
};
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE PartnerKeys PartnerKeysAt(int level, int runs, int first, int keep) {
  PartnerKeys p{};
  const int span = 1 << (level - 1);  // initial runs in a run of level - 1
  p.tail_run = (runs - 1) >> (level - 1);
  p.full = span * first < keep ? span * first : keep;
  const int tail_span = runs - p.tail_run * span;
  p.tail = tail_span * first < keep ? tail_span * first : keep;
  p.full_top = FloorPow2(p.full);
  p.tail_top = FloorPow2(p.tail);
  return p;
}

// The number of keys of keys[base, base + m) at most `bound`, the run sorted ascending, top =
// FloorPow2(m): binary lifting, so at most floor(log2 m) + 1 shared reads, each depending on the
// one before. The caller turns "below x" into "at most x - 1" once (integer keys), so the step
// is one comparison.
template <class Shared>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int CountAtMost(Shared& keys, int base, int m, int top,
                                                             std::uint64_t bound) {
  int c = 0;
  for (int h = top; h > 0; h >>= 1) {
    const int probe = c + h;
    if (probe <= m && keys.Load(base + probe - 1) <= bound) c = probe;
  }
  return c;
}

}  // namespace merge_detail

// Slots [0, count) from load(s), stored to `keys` and held in the storing thread's registers
// (slot t + r kThreads in held[t].v[r]), then the barrier MergeRuns' contract asks for.
template <int kThreads, class B, class Shared, class Held, class Load>
SAMPCHECK_KERNEL_BODY void StageRuns(B& block, Shared& keys, Held& held, int count, Load load) {
  constexpr int kRegs = kMergeSlots / kThreads;
  block.ForEachThread([&](Thread t) {
    for (int r = 0; r < kRegs; ++r) {
      const int s = t.x + r * kThreads;
      if (s >= count) continue;
      held[t].v[r] = load(s);
      keys.Store(s, held[t].v[r]);
    }
  });
  block.Sync();
}

template <int kThreads, class B, class Shared, class Held, class Place>
SAMPCHECK_KERNEL_BODY void MergeRuns(B& block, Shared& keys, const Held& held, int run, int runs, int keep,
                                     Place place) {
  static_assert(kThreads % kWarpSize == 0 && kThreads <= kMergeSlots && kMergeSlots % kThreads == 0,
                "whole warps that divide the slots");
  constexpr int kRegs = kMergeSlots / kThreads;
  const int first = run < keep ? run : keep;  // the slots of a run that take part
  int levels = 0;
  while ((1 << levels) < runs) ++levels;
  auto at = Registers<merge_detail::MergePlaces<kRegs>>(block);
  block.ForEachThread([&](Thread t) {
    for (int r = 0; r < kRegs; ++r) {
      const int s = t.x + r * kThreads;
      const bool in = s < runs * run && s % run < first;
      at[t].run[r] = s / run;
      at[t].place[r] = in ? s % run : merge_detail::kDropped;
      if (levels == 0 && in) place(t, s, held[t].v[r]);
    }
  });
  for (int level = 1; level <= levels; ++level) {
    const int len = run << (level - 1);  // the stride of level - 1's runs
    const bool last = level == levels;
    const merge_detail::PartnerKeys partners = merge_detail::PartnerKeysAt(level, runs, first, keep);
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kRegs; ++r) {
        if (at[t].place[r] == merge_detail::kDropped) continue;
        const std::uint64_t x = held[t].v[r];
        const int q = at[t].run[r];
        const int partner = q ^ 1;
        const bool tail = partner == partners.tail_run;
        const int m = partner < partners.tail_run ? partners.full : (tail ? partners.tail : 0);
        const int top = partner < partners.tail_run ? partners.full_top : (tail ? partners.tail_top : 0);
        // The left run counts keys < x: at most x - 1, none when x is 0.
        const bool left = (q & 1) == 0;
        const int below = left && x == 0 ? 0 : merge_detail::CountAtMost(keys, partner * len, m, top, left ? x - 1 : x);
        const int merged = at[t].place[r] + below;
        at[t].run[r] = q >> 1;
        at[t].place[r] = merged < keep ? merged : merge_detail::kDropped;
        if (last && merged < keep) place(t, merged, x);
      }
    });
    if (last) break;
    block.Sync();  // the searches read slots the placing rewrites
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kRegs; ++r) {
        if (at[t].place[r] != merge_detail::kDropped) keys.Store(at[t].run[r] * 2 * len + at[t].place[r], held[t].v[r]);
      }
    });
    block.Sync();
  }
}

}  // namespace sampcheck::gpu
