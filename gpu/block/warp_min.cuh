// SPDX-License-Identifier: Apache-2.0
#pragma once
// Warp operations (docs/gpu.md "Warp operations"): a register combined over each warp's 32
// lanes, in every lane, and its smallest value (the split row's list heads,
// gpu/block/row_slices.cuh; the sample select's smallest key, gpu/block/sample_select.cuh;
// gpu-fast's walk over the survivors, gpu/fast/fast_sampling.cuh); the warps' values a phase
// stored, combined in every thread (the partition's level 0, gpu/block/radix_partition.cuh;
// gpu-fast's block reductions), and a block's vote; a Ballot's lowest and highest lane; a
// lane's value in the whole warp (the radix select's digit of a rank,
// gpu/block/radix_select.cuh, too), and the lane of an inverse CDF's step.
//
// Contract:
// - WarpAllReduce(block, r, combine), block-level: r[t] becomes combine over t's warp by an
//   xor butterfly: ShuffleXor 1, 2, .., 16, each lane combining its value and its partner's.
//   combine commutative: at each step a lane and its partner combine the same two values, so
//   every lane of the warp ends with the same bits (floats included); combine also associative
//   (integers, minima): that value is the combination in any order (the any-order sum's
//   words, gpu/block/warp_running_sum.cuh). Five ShuffleXor, no barrier, no shared memory.
// - WarpMin(block, r): WarpAllReduce keeping the smaller (operator<).
// - Exact for integers (keys, packed words) whatever the order of the steps: a minimum of a
//   total order. Not for floats with NaN (operator< is not a total order there).
// - CombineWarpValues(block, warps, identity, value_of, combine), block-level, after the
//   barrier that follows the stores: value_of(w) (w < warps <= 32) is warp w's value (a
//   shared load); lane l loads value l (lanes from `warps` on take `identity`, neutral for
//   combine) and WarpAllReduce combines them, so every thread holds the same result after one
//   load, where a loop over the warps loads 32 in sequence. Returned as a block-level value
//   (BlockUniform: the emulator checks that every thread holds the same bits).
// - StoreWarpBallots(block, mine, votes), block-level, in a phase the caller ends with a
//   barrier: lane 0 of each warp w stores at votes[w] the Ballot of mine over w's lanes.
//   AnyWarpBallot(block, warps, votes), block-level, after that barrier: whether any thread's
//   mine was true, in every thread: lane l loads warp l's word (l < warps <= 32) and one Ballot
//   of "nonzero" tells (one load a thread, one collective). A block's vote (the tree path of
//   both modes' gathers, gpu/block/lane_key_tree.cuh; gpu's survivor sum,
//   gpu/kernels/sampling_filters_on_partition.cuh).
// - LowestLane(mask), HighestLane(mask): the lowest and the highest lane whose bit is set in a
//   Ballot's mask, -1 when none (registers only).
// - WarpWordOfLane(block, from, word): in every lane of each warp, the 64-bit word(l) of the
//   lane l = from(t) names (the same lane in the whole warp; 0 when no lane has that number),
//   by an OR butterfly (one lane contributes, the others 0): exact, no shared memory.
//   WarpValueOfLane(block, from, value): the same for an f32 register, its bits.
// - LastSegmentAtOrBelow(block, active, mass, start, x): in every lane of each warp, the highest
//   lane l with active(l), mass_l > 0 and start_l <= x (x the same in the warp), -1 when none, by
//   a Ballot: of segments that follow each other from the first start, the last one of
//   positive mass that starts at or below x, the one that holds x (an inverse CDF's step over a
//   warp's lanes: gpu-fast's proposals, gpu/fast/fast_proposals.cuh, and the walk of a warp's
//   runs, gpu/block/warp_run_walk.cuh).
// Example: lanes holding 31 - lane, 100 + lane in a second warp: 0 in every lane of the
//   first, 100 in every lane of the second (tests/gpu_kernels_test.cc, "GpuWarpMin").

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/float_word.cuh"

namespace sampcheck::gpu {

template <class B, class R, class F>
SAMPCHECK_KERNEL_BODY void WarpAllReduce(B& block, R& r, F&& combine) {
  for (int m = 1; m < kWarpSize; m *= 2) {
    ExchangeXor(
        block, m, [&](Thread t) -> auto& { return r[t]; },
        [&](Thread, const auto& a, const auto& b) { return combine(a, b); });
  }
}

template <class B, class R>
SAMPCHECK_KERNEL_BODY void WarpMin(B& block, R& r) {
  WarpAllReduce(block, r, [](const auto& a, const auto& b) { return b < a ? b : a; });
}

template <class T, class B, class ValueOf, class F>
SAMPCHECK_KERNEL_BODY T CombineWarpValues(B& block, int warps, T identity, ValueOf&& value_of, F&& combine) {
  auto r = Registers<T>(block);
  block.ForEachThread([&](Thread t) { r[t] = t.lane() < warps ? value_of(t.lane()) : identity; });
  WarpAllReduce(block, r, combine);
  return BlockUniform(block, r);
}

template <class B, class R, class Votes>
SAMPCHECK_KERNEL_BODY void StoreWarpBallots(B& block, const R& mine, Votes& votes) {
  auto ballot = Ballot(block, mine);
  block.ForEachThread([&](Thread t) {
    if (t.lane() == 0) votes.Store(t.warp(), ballot[t]);
  });
}

template <class B, class Votes>
SAMPCHECK_KERNEL_BODY bool AnyWarpBallot(B& block, int warps, Votes& votes) {
  auto any = Registers<bool>(block);
  block.ForEachThread([&](Thread t) { any[t] = t.lane() < warps && votes.Load(t.lane()) != 0; });
  return BlockUniform(block, Ballot(block, any)) != 0;
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int LowestLane(std::uint32_t mask) {
  int lowest = -1;
  for (int l = kWarpSize; l-- > 0;) lowest = (mask >> l & 1u) != 0 ? l : lowest;
  return lowest;
}

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int HighestLane(std::uint32_t mask) {
  int highest = -1;
  for (int l = 0; l < kWarpSize; ++l) highest = (mask >> l & 1u) != 0 ? l : highest;
  return highest;
}

template <class B, class F, class W>
SAMPCHECK_KERNEL_BODY auto WarpWordOfLane(B& block, const F& from, const W& word) {
  auto bits = Registers<std::uint64_t>(block);
  block.ForEachThread([&](Thread t) { bits[t] = t.lane() == from(t) ? word(t) : 0u; });
  WarpAllReduce(block, bits, [](std::uint64_t a, std::uint64_t b) { return a | b; });
  return bits;
}

template <class B, class R, class F>
SAMPCHECK_KERNEL_BODY auto WarpValueOfLane(B& block, const F& from, const R& value) {
  const auto bits = WarpWordOfLane(block, from, [&](Thread t) { return FloatWord(value[t]); });
  auto out = Registers<float>(block);
  block.ForEachThread([&](Thread t) { out[t] = WordFloat(bits[t]); });
  return out;
}

template <class B, class Active, class R>
SAMPCHECK_KERNEL_BODY auto LastSegmentAtOrBelow(B& block, const Active& active, const R& mass, const R& start,
                                                const R& x) {
  auto hit = Registers<bool>(block);
  block.ForEachThread([&](Thread t) { hit[t] = active(t) && mass[t] > 0.0f && start[t] <= x[t]; });
  auto mask = Ballot(block, hit);
  auto lane = Registers<int>(block);
  block.ForEachThread([&](Thread t) { lane[t] = HighestLane(mask[t]); });
  return lane;
}

}  // namespace sampcheck::gpu
