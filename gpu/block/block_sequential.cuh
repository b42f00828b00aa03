// SPDX-License-Identifier: Apache-2.0
#pragma once
// A sequential fold of a row on the block model: thread 0 visits the entries in index order,
// the block only stages them through shared memory (docs/gpu.md "The draw, speculative, finish
// and consensus kernels": the inverse-CDF running sum is sequential).
//
// Contract of BlockSequentialFold<kLanes, T>(block, load, n, fold):
// - The block has kLanes threads (any count: the fold is serial). load(t, i) returns entry i
//   (0 <= i < n) as a T, called in thread t's phase; fold(t, i, v) is called in thread 0 only,
//   for i = 0, 1, ..., n - 1 in that order, and returns true to stop: the remaining tiles are
//   neither loaded nor folded. fold keeps its state in thread 0's registers (Registers<...>[t]).
// - Why serial: a rounded running sum (an f32 sum in index order, the "first running sum above
//   t" of an inverse CDF, FlashInfer's mass above a pivot in the reference's order) has no
//   reassociation that keeps its bits, so one thread adds. The row is staged in tiles of kLanes
//   (thread l loads entry base + l: coalesced on the device); a stop is published through a
//   shared flag that every thread reads into a block-level local after a barrier, so the loop
//   over tiles ends for the whole block at once.
// - Ends with a barrier: the caller may fold again or read what thread 0 wrote to shared memory
//   before the call.
// Example: loads {0.5, 0.25, 0.25}, fold adding until the sum exceeds 0.6: thread 0 sees 0.5,
//   then 0.25 (sum 0.75) and stops; entry 2 is never folded (tests/gpu_kernels_test.cc,
//   GpuFlashinferSamplingFromProbs, through the kernels that use it).

#include <cstdint>

#include "gpu/block/block_model.h"

namespace sampcheck::gpu {

template <int kLanes, class T, class B, class Load, class Fold>
SAMPCHECK_KERNEL_BODY void BlockSequentialFold(B& block, Load load, std::int64_t n, Fold fold) {
  SAMPCHECK_SHARED(block, T, tile, kLanes);
  SAMPCHECK_SHARED(block, std::int32_t, stopped, 1);
  block.ForEachThread([&](Thread t) {
    if (t.x == 0) stopped.Store(0, 0);
  });
  block.Sync();
  for (std::int64_t base = 0; base < n; base += kLanes) {
    block.ForEachThread([&](Thread t) {
      if (base + t.x < n) tile.Store(t.x, load(t, base + t.x));
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      const std::int64_t m = n - base < kLanes ? n - base : kLanes;
      for (std::int64_t k = 0; k < m; ++k) {
        if (fold(t, base + k, tile.Load(k))) {
          stopped.Store(0, 1);
          break;
        }
      }
    });
    block.Sync();
    bool done = false;
    block.ForEachThread([&](Thread) { done = stopped.Load(0) != 0; });
    if (done) break;
  }
  block.Sync();
}

}  // namespace sampcheck::gpu
