// SPDX-License-Identifier: Apache-2.0
#pragma once
// One thread's walk over the entries of its canonical lane, first, first + step, ... below
// end (docs/spec/reductions.md: lane l folds l, l + 1024, ... in increasing index order), for
// reads where a test drops most entries and the few kept ones cost much more: the survivors'
// sums after top-k (SurvivorSumOfRow, gpu/kernels/sampling_filters_on_partition.cuh).
//
// Contract: ScanLane(first, end, step, load, keep, dropped, kept) calls, for each index i of
// the walk in increasing order, x = load(i) once, then kept(i, x) when keep(x, i) holds and
// dropped(i, x) otherwise: exactly the calls of
//   for (i = first; i < end; i += step) { x = load(i); keep(x, i) ? kept(i, x) : dropped(i, x); }
// Why a function: the dropped entries run in a loop of their own, so that the compiler can
// keep the walk's state (the index, the bound, the row's handle) in registers there and spill
// them, when the kept entries' work needs the registers, around that work alone. As one loop
// the spills sit at the loop's head and cost every entry local-memory loads (docs/gpu.md,
// "Reading the SASS").
// Example: first 2, end 11, step 3, load(i) = i, keep "x odd": dropped(2, 2), kept(5, 5),
// dropped(8, 8) (tests/gpu_kernels_test.cc, GpuLaneScan).

#include <cstdint>

#include "core/portability.h"

namespace sampcheck::gpu {

template <class Load, class Keep, class Dropped, class Kept>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ScanLane(std::int64_t first, std::int64_t end, std::int64_t step,
                                                           Load&& load, Keep&& keep, Dropped&& dropped, Kept&& kept) {
  std::int64_t i = first;
  while (i < end) {
    auto x = load(i);
    while (!keep(x, i)) {  // the dropped entries' own loop
      dropped(i, x);
      i += step;
      if (i >= end) return;
      x = load(i);
    }
    kept(i, x);
    i += step;
  }
}

}  // namespace sampcheck::gpu
