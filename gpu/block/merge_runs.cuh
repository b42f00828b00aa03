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
//   kMergeSlots. The keys of every run's first min(run, keep) slots take part; the other slots
//   are neither read nor written.
// - Level i = 1, 2, .. merges runs 2q and 2q + 1 of level i - 1 (a last run without a partner
//   passes through), the merged run at stride run x 2^i, until one run is left. A key's place in
//   the merged run is its place in its own run plus CountBelow over the partner run's keys (the
//   left run counts keys < x, the right one keys <= x: equal keys take distinct places, the
//   left run's first, so the merge is stable). A key with `keep` keys below it in its merged run
//   has at least `keep` below it in the whole set: it drops out, and a run holds at most its
//   first `keep` keys. So the places < keep of the last run are exactly the first min(keep,
//   keys) keys of the sorted multiset, each once.
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

namespace merge_detail {

// Each key's slot during the merge, kDropped once it cannot be among the first `keep`.
template <int kRegs>
struct MergeSlots {
  int v[kRegs];
};
template <int kRegs>
struct MergeKeys {
  std::uint64_t v[kRegs];
};
inline constexpr int kDropped = -1;

// The number of keys of keys[base, base + m) below x (strict: key < x, else key <= x), the run
// sorted ascending: binary lifting from the largest power of two <= m, so at most floor(log2
// m) + 1 shared reads, each depending on the one before.
template <class Shared>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int CountBelow(Shared& keys, int base, int m, std::uint64_t x,
                                                          bool strict) {
  int h = 1;
  while (2 * h <= m) h *= 2;
  int c = 0;
  for (; h >= 1; h /= 2) {
    if (c + h > m) continue;
    const std::uint64_t y = keys.Load(base + c + h - 1);
    if (strict ? y < x : y <= x) c += h;
  }
  return c;
}

}  // namespace merge_detail

template <int kThreads, class B, class Shared, class Place>
SAMPCHECK_KERNEL_BODY void MergeRuns(B& block, Shared& keys, int run, int runs, int keep, Place place) {
  static_assert(kThreads % kWarpSize == 0 && kThreads <= kMergeSlots && kMergeSlots % kThreads == 0,
                "whole warps that divide the slots");
  constexpr int kRegs = kMergeSlots / kThreads;
  const int first = run < keep ? run : keep;  // the slots of a run that take part
  int levels = 0;
  while ((1 << levels) < runs) ++levels;
  auto key = Registers<merge_detail::MergeKeys<kRegs>>(block);
  auto at = Registers<merge_detail::MergeSlots<kRegs>>(block);
  block.ForEachThread([&](Thread t) {
    for (int r = 0; r < kRegs; ++r) {
      const int s = t.x + r * kThreads;
      const bool in = s < runs * run && s % run < first;
      key[t].v[r] = in ? keys.Load(s) : 0;
      at[t].v[r] = in ? s : merge_detail::kDropped;
      if (levels == 0 && in) place(t, s, key[t].v[r]);
    }
  });
  for (int level = 1; level <= levels; ++level) {
    const int len = run << (level - 1);  // the stride of level - 1's runs
    const bool last = level == levels;
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kRegs; ++r) {
        const int s = at[t].v[r];
        if (s == merge_detail::kDropped) continue;
        const int q = s / len;
        const int partner = q ^ 1;
        // The partner's keys: `first` from each of its initial runs (those of [partner
        // 2^(level - 1), ..) below runs), at most `keep`.
        const int from = partner << (level - 1);
        const int spans = from >= runs ? 0 : (runs - from < (1 << (level - 1)) ? runs - from : 1 << (level - 1));
        const int m = spans * first < keep ? spans * first : keep;
        const int below = m == 0 ? 0 : merge_detail::CountBelow(keys, partner * len, m, key[t].v[r], q % 2 == 0);
        const int merged = s - q * len + below;
        at[t].v[r] = merged < keep ? (q - q % 2) * len + merged : merge_detail::kDropped;
        if (last && merged < keep) place(t, merged, key[t].v[r]);
      }
    });
    if (last) break;
    block.Sync();  // the searches read slots the placing rewrites
    block.ForEachThread([&](Thread t) {
      for (int r = 0; r < kRegs; ++r) {
        if (at[t].v[r] != merge_detail::kDropped) keys.Store(at[t].v[r], key[t].v[r]);
      }
    });
    block.Sync();
  }
}

}  // namespace sampcheck::gpu
