// SPDX-License-Identifier: Apache-2.0
#pragma once
// A read of the canonical lanes' entries (docs/spec/reductions.md: lane l folds l, l + 1024, ...
// in increasing index order) four to a 16-byte load: a warp loads four strides of its 32 lanes'
// columns at once, 8 lanes a stride, one quad each, and four ShuffleFrom rounds hand every lane
// its own four entries (docs/gpu.md "Quad reads", "Canonical lanes by quads"). For the reads
// whose order is their result (a canonical lane sum), which ForEachQuadElement's split of the
// row cannot serve.
//
// Contract: ForEachLaneEntryByQuads(block, row, base, vocab, wants, f), block-level code of a
// block of kCanonicalLanes threads, makes for every thread t with wants[t] the calls
//   for (i = t.x; i < vocab; i += kCanonicalLanes) f(t, i, row.Load(base + i));
// in that order, spread over several phases (f keeps a thread's state across them in Registers,
// indexed by t, never in a phase's locals; it must not write what a later load reads), and none
// for the other threads.
// - Loads: a warp all of whose lanes want loads stride group g (strides 4g .. 4g + 3, a stride
//   being 1024 consecutive entries) by lane 8j + q: the quad of entries 1024 (4g + j) + 32 w +
//   4q .. + 3 (w: the warp), one Load4 (LoadQuad: four Loads when base is off a 16-byte
//   boundary, so that no result depends on the row's address; the entries at or past vocab
//   one at a time, never past it). Round c = 0 .. 3: lane d takes, from lane 8J + d / 4 with J =
//   (c + d % 4) % 4, that lane's component (J - c) % 4, which is entry 1024 (4g + J) + 32 w + d:
//   the lane's own entry of stride 4g + J. In a warp where some lane does not want, each lane
//   that wants loads its entries one at a time, as the strided read does: no entry is loaded
//   that no lane wants, and every entry at most once, so bytes loaded are those of the strided
//   read (the budget tests' row passes), with a quarter of its accesses in each thread's chain.
// - Why: the strided read makes one 4-byte load an entry, one load in flight a thread where its
//   entry's work is large (an ExpF32Cr: gpu/block/lane_scan.cuh, kGroup 1), and a read bound by
//   the memory's latency (docs/gpu.md "Loads in flight"); a quad keeps 16 bytes in flight per
//   load.
// Example: vocab 2050, every lane wants: warp 0's lane 8 (j = 1, q = 0) loads entries 1024 ..
//   1027, lane 9 entries 1028 .. 1031, lane 16 (j = 2) entries 2048 and 2049 one at a time;
//   thread 5 is handed entries 5, 1029 and 2053 (past vocab) and sees f(t5, 5, x5), f(t5, 1029,
//   x1029) (tests/gpu_emulator_test.cc, "GpuLaneQuads").

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"  // kCanonicalLanes
#include "gpu/block/quad.h"
#include "gpu/block/quad_reads.cuh"

namespace sampcheck::gpu {

namespace lane_quads_detail {

// q.v[k] for k in 0 .. 3 by selects: a run-time index into a register array puts it in local
// memory on the device.
template <class T>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE T Component(const Quad<T>& q, int k) {
  const T lo = k == 0 ? q.v[0] : q.v[1];
  const T hi = k == 2 ? q.v[2] : q.v[3];
  return k < 2 ? lo : hi;
}

template <class T>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void SetComponent(Quad<T>& q, int k, T x) {
  for (int j = 0; j < 4; ++j) q.v[j] = j == k ? x : q.v[j];
}

}  // namespace lane_quads_detail

template <class B, class Arr, class Wants, class F>
SAMPCHECK_KERNEL_BODY void ForEachLaneEntryByQuads(B& block, Arr row, std::int64_t base, std::int64_t vocab,
                                                   const Wants& wants, F&& f) {
  using T = decltype(row.Load(base));
  constexpr std::int64_t kStride = kCanonicalLanes;
  const bool scalar = OffBoundaryAt(row, base);
  const auto votes = Ballot(block, wants);
  auto whole = Registers<bool>(block);  // every lane of the thread's warp wants: quads
  block.ForEachThread([&](Thread t) { whole[t] = votes[t] == ~std::uint32_t{0}; });
  const std::int64_t strides = (vocab + kStride - 1) / kStride;
  auto held = Registers<Quad<T>>(block);  // the quad this lane loaded
  auto mine = Registers<Quad<T>>(block);  // the lane's own entries of the group's four strides
  auto send = Registers<T>(block);
  auto from = Registers<int>(block);
  for (std::int64_t g = 0; 4 * g < strides; ++g) {
    const std::int64_t first = 4 * g * kStride;  // the group's first entry
    block.ForEachThread([&](Thread t) {
      if (!whole[t]) return;
      const std::int64_t at = first + (t.lane() / 8) * kStride + t.warp() * kWarpSize + 4 * (t.lane() % 8);
      Quad<T> x{};
      if (at + 4 <= vocab) {
        x = LoadQuad(row, base + at, scalar);
      } else {
        for (int k = 0; k < 4; ++k) {
          if (at + k < vocab) x.v[k] = row.Load(base + at + k);
        }
      }
      held[t] = x;
    });
    for (int c = 0; c < 4; ++c) {
      block.ForEachThread([&](Thread t) {
        send[t] = lane_quads_detail::Component(held[t], (t.lane() / 8 - c) & 3);
        from[t] = 8 * ((c + t.lane() % 4) & 3) + t.lane() / 4;
      });
      const auto got = ShuffleFrom(block, send, from);
      block.ForEachThread([&](Thread t) { lane_quads_detail::SetComponent(mine[t], (c + t.lane() % 4) & 3, got[t]); });
    }
    block.ForEachThread([&](Thread t) {
      if (!wants[t]) return;
      // Not unrolled by a pragma: with `#pragma unroll` here and in SetComponent ptxas spilled
      // more (--resource-usage, nvcc 13.0, sm_90: SamplingFiltersOnPartition's spill loads
      // 1,032 -> 1,628 bytes, stores 1,042 -> 1,186).
      for (int j = 0; j < 4; ++j) {
        const std::int64_t i = first + j * kStride + t.x;
        if (i >= vocab) break;
        f(t, i, whole[t] ? lane_quads_detail::Component(mine[t], j) : row.Load(base + i));
      }
    });
  }
}

}  // namespace sampcheck::gpu
