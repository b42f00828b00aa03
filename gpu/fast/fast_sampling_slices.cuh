// SPDX-License-Identifier: Apache-2.0
#pragma once
// gpu-fast's one launch when a row takes several blocks (docs/gpu.md "gpu-fast", "Several
// blocks per row"): each block reads one contiguous slice of a row and writes the slice's
// partial result to a scratch of kFastSliceSlots keys per row; the last block of the row
// (gpu/block/last_block.cuh) then runs the fused kernel's row work (FastSamplingKernel::Row,
// gpu/fast/fast_sampling.cuh), which merges the partials in a fixed order and draws, so a row's
// bytes are read by many SMs at once and the row costs one launch.
//
// Contract:
// - Grid: rows x grid_slices blocks; block b serves row b / grid_slices, slice
//   g = b % grid_slices. The row takes n = FastRowSlices(slice_budget, V, greedy, k, rule)
//   slices (gpu/fast/fast_sampling_launch.h). n = 1: block g = 0 runs the row whole (Row), the
//   others return. n > 1: blocks with g >= n return at once; slice g is
//   [g V / n, (g + 1) V / n): contiguous, in order, covering the row, each at least
//   floor(V / n) entries. Inputs and token as FastSamplingKernel's (same validation); slices:
//   rows x kFastSliceSlots u64, row r's partials from r x kFastSliceSlots; tickets: rows u32,
//   zero on entry and left zero (the launcher's Tickets).
// - Keys: the filters' order keys of s_i = x_i x f32(1 / t) (greedy rows: of x_i), OrderKey in
//   gpu/fast/fast_sampling.cuh: larger value first, then lower index; unique per row. Only
//   canonical rows are sliced, so no profile's key variant is needed.
// - Greedy rows: slots 2 g and 2 g + 1 hold the slice's argmax (value bits, index in the row;
//   QuadRangeArgmaxF32 and StoreSliceWinnerF32, gpu/block/block_argmax.cuh: a total order,
//   exact whatever the reduction order), as the greedy kernel's slices (gpu/kernels/greedy.cuh);
//   2 x slices <= 2 x kFastSamplingSms words, within the row's kFastSliceSlots.
// - Survivor rows (canonical, 1 <= k <= kFastSliceSlots, every slice longer than k, n x k <=
//   kFastSliceSlots; k = FastSurvivorK: top-k's, or a min-p-only row's probe): slots g k ..
//   g k + k - 1 hold the slice's k smallest keys in ascending order, gathered in one read of
//   the slice (two or three when a lane holds 6 candidates) by GatherFastSurvivors
//   (gpu/fast/fast_top_k_survivors.cuh) on the slice's own 1024 virtual lanes. When the
//   slice's candidates do not fit, slot g k holds kNoKey (no key of a row equals it: an index
//   is below 2^32 - 1) and the row's last block reads the row whole instead.
// - Then every slice block takes its ticket: warp 0 in the gather tree's last level when the
//   tree's keys stand (TicketInTree, told to the block by the tree's barrier), else
//   LastBlockOf(tickets, row, n) after the partial's store; the last one runs Row, which reads
//   the n partials in slice order, never in arrival order.
// - Deterministic: integer keys only; the ticket's atomic only picks which block merges, and
//   the merge is the same whichever does; every slot a block writes is its own.
// Example: V = 8192 split into 4 slices, k = 2, row 0..8191 increasing: slice 3 = [6144, 8192)
//   writes the keys of 8191 then 8190 at slots 6, 7; the merge's first two keys are those
//   (tests/gpu_fast_sampling_test.cc, "SlicedRowsGiveTheOneBlockToken").

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/last_block.cuh"
#include "gpu/fast/fast_sampling.cuh"
#include "gpu/fast/fast_sampling_launch.h"
#include "gpu/fast/fast_top_k_survivors.cuh"

namespace sampcheck::gpu {

template <int kBlockThreads>
struct FastSamplingSlicesKernel {
  static constexpr const char* kName = "fast_sampling_slices";
  static constexpr int kThreads = kBlockThreads;
  // No kMinBlocksPerSm: 64 registers, one block per SM, timed on an H200 11 % faster than two
  // blocks at 32 registers with their spills (docs/gpu.md "Occupancy").
  static_assert(kThreads % kWarpSize == 0 && kThreads >= kWarpSize && kThreads <= 1024,
                "one block of whole warps, at most 1024 threads");

  template <class B, class In, class F32, class I32, class U64, class Scratch, class Tickets, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, F32 temperature, I32 top_k, F32 top_p, F32 min_p,
                                        U64 seed, U64 position, F32 q, Scratch slices, Tickets tickets, Out token,
                                        std::int64_t vocab, std::int64_t pitch, std::int64_t slice_budget,
                                        std::int64_t grid_slices, FastSamplingOptions options) const {
    const std::int64_t row = block.index() / grid_slices;
    const std::int64_t g = block.index() % grid_slices;
    const float t = temperature.Load(row);
    const bool greedy = FastIsGreedy(t, options.greedy_below);
    // The survivors each slice gathers: top-k's k, or a min-p-only row's probe, for which alone
    // top-p and min-p are read here (two loads more on every thread's path otherwise).
    const std::int64_t top_k_row = FastTopKOf(top_k.Load(row), options.bug);
    const bool k_given = greedy || FastTopKOn(top_k_row, vocab);
    const std::int64_t k =
        k_given ? top_k_row : FastSurvivorK(top_k_row, top_p.Load(row), min_p.Load(row), vocab, options.rule);
    const std::int64_t n = FastRowSlices(slice_budget, vocab, greedy, k, options.rule);
    if (n <= 1 || g >= n) {  // the row runs whole in its first block, or takes fewer slices than the grid's
      if (n <= 1 && g == 0) {
        FastSamplingKernel<kThreads>{}.Row(block, row, logits, temperature, top_k, top_p, min_p, seed, position, q,
                                           slices, token, vocab, pitch, slice_budget, options);
      }
      return;
    }
    const std::uint32_t ticket =
        WriteSlicePartial(block, logits, slices, tickets, row, g, n, t, greedy, k, vocab, pitch);
    if (!LastBlockAfterTree(block, ticket, tickets, row, n)) return;
    FastSamplingKernel<kThreads>{}.Row(block, row, logits, temperature, top_k, top_p, min_p, seed, position, q, slices,
                                       token, vocab, pitch, slice_budget, options);
  }

 private:
  // Slice g's partial (contract above) into slices[row kFastSliceSlots ..].
  template <class B, class In, class Scratch, class Tickets>
  SAMPCHECK_KERNEL_BODY static std::uint32_t WriteSlicePartial(B& block, In logits, Scratch slices, Tickets tickets,
                                                               std::int64_t row, std::int64_t g, std::int64_t n,
                                                               float t, bool greedy, std::int64_t k,
                                                               std::int64_t vocab, std::int64_t pitch) {
    const std::int64_t lo = SliceBegin(g, n, vocab);
    const std::int64_t length = SliceBegin(g + 1, n, vocab) - lo;
    const std::int64_t base = row * pitch + lo;
    const std::int64_t out = row * kFastSliceSlots;
    if (greedy) {
      // The slice's argmax (a compare of floats an entry), one barrier, as the greedy kernel's
      // slices store theirs.
      auto value = Registers<float>(block);
      auto index = Registers<std::int64_t>(block);
      QuadRangeArgmaxF32<kThreads>(block, logits, base, length, value, index);
      StoreSliceWinnerF32(block, slices, out + 2 * g, lo, value, index);
      return kTicketNotYet;
    }
    // The key of the slice's entry i (row index lo + i), recomputed at every read.
    const fast_detail::ScaledOrderKeys<In> key_of{logits, base, lo, fast_detail::FastInverseTemperature(t)};
    auto slice_keys = fast_detail::SurvivorKeySlots(block);  // the last block's merge reuses it
    std::uint32_t total = 0;
    // Key j of the list is stored by the thread that places it: the tree's lane in warp 0,
    // which then takes the row's ticket itself when the tree's keys stand (WarpTakesTicket:
    // its SyncWarp orders the lanes' stores before lane 0's fence, and the tree's barrier
    // tells the block; one barrier fewer than LastBlockOf's), or thread j after the sort, with
    // a barrier after it, before LastBlockOf (thread 0's fence orders every thread's stores).
    std::uint32_t ticket = kTicketNotYet;
    const bool gathered = fast_detail::GatherFastSurvivors<kThreads>(
        block, length, k, key_of, slice_keys, total,
        [&](Thread, std::int64_t j, std::uint64_t key) { slices.Store(out + g * k + j, key); }, NoPlace{}, nullptr,
        [&](B& warp, const LaneKeyTreeResult& tree) {
          return TicketInTree(warp, !tree.short_lane, tickets, row, n);
        },
        &ticket);
    if (gathered) return ticket;
    block.ForEachThread([&](Thread th) {
      if (th.x == 0) slices.Store(out + g * k, fast_detail::kNoKey);
    });
    block.Sync();
    return kTicketNotYet;
  }
};

}  // namespace sampcheck::gpu
