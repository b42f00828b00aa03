// SPDX-License-Identifier: Apache-2.0
#pragma once
// gpu-fast's proposals (docs/gpu.md "gpu-fast", "Proposals"): kFastProposals independent draws
// proportional to e_i = exp(s_i - m) over a set P that holds every token the filters keep,
// from per-thread masses that a read the row takes anyway accumulated (the maximum's read,
// the sample select's count read). The caller accepts the first proposal that the filters
// keep (rejection sampling with proposal P: the accepted token follows e restricted to the
// kept set, exactly in exact arithmetic), after one read that sums, for every proposal, the
// mass before it in the order (top-p's test): one read in all instead of two per rejection
// round, and the number of reads no longer depends on how many rounds a row happens to need.
//
// Contract:
// - The order of the draws is thread-major: thread t of kThreads owns the indices t,
//   t + kThreads, ... (the strided order of the reads the masses come from), ascending;
//   thread 0's indices come first, then thread 1's, and so on. Any fixed order draws the same
//   law, and this one needs no second read to find the chunk a target falls in.
// - OnlineMass: a thread's sum of exp(s - M) over its tokens of P with a running maximum M
//   (a free-order online softmax; -inf entries weigh 0); Mass(m) = sum x exp(M - m), its
//   mass relative to the row's maximum m >= M.
// - DrawProposals: mass[t] is thread t's mass (finite, >= 0), weight(key_of(i)) e_i for i in P
//   and 0 otherwise (the same bits at every call; key_of a key source of
//   gpu/block/key_reads.cuh, so that a walk keeps several loads in flight), u[d] in [0, 1). The warps' masses are summed by a
//   butterfly (the same bits in every lane) and folded in warp order by every thread:
//   `total`, block-uniform. Target x_d = u_d x total lies in warp w's interval
//   [C_w, C_w + W_w) (C_w the sum of the earlier warps' masses, sequential); rounding at the
//   end (x_d at or past the total) takes the last warp of positive mass. In that warp the
//   lanes' masses are summed sequentially from C_w (so the lanes' intervals tile the warp
//   exactly): the lane whose interval holds x_d, else the warp's last lane of positive mass,
//   owns x_d, and its indices are walked from its interval's start: the first i of positive
//   weight whose running sum exceeds x_d, else its last of positive weight. Thread d does
//   proposal d's search and walk (kWarps + 32 shared loads and ceil(vocab / kThreads)
//   entries). The lane masses are sums in a free order and the walk adds the
//   exact weights, so a draw may differ from the exact inverse CDF where the two round
//   differently (the distributional tier). Result: picks[d], block-uniform, an index of
//   positive weight (-1 only when no token of P has one). Two barriers, none at the end (the
//   slots are free again, the picks' array is its own). `slots`: 1024 shared u64 the caller lends (their
//   words carry float bits); undefined afterwards.
// - SumProposalLanes: the block sums of some of kN floats per thread (a butterfly per value,
//   two values packed in one 64-bit shuffle and one slot, the warps' sums folded in warp
//   order): two barriers, through the lent slots. A caller sums
//   the first proposal's first and the others only when it is rejected (the emulator's time
//   grows with the butterflies' phases; the device's barriers with the calls).
// - Deterministic for a given kThreads: fixed orders, no atomics.
// Example: 2 threads' masses {1, 3} (warp 0), u = 0.5: total 4, x = 2 lies in lane 1's
//   interval [1, 4); lane 1's indices are walked and the first whose running sum from 1
//   exceeds 2 is the proposal (tests/gpu_fast_sampling_test.cc, "ProposalsFollowTheWeights",
//   checks 8 proposals over 200 weights against one sequential walk of the same order).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/float_word.cuh"
#include "gpu/block/key_reads.cuh"
#include "reference/math/exp.h"

namespace sampcheck::gpu::fast_detail {

// Proposals per row: with an acceptance of about 0.73 (top-k 5000 and top-p 0.9 on the
// benchmark's logits: the sample's last splitter admits a third more tokens than top-k keeps,
// 0.82 of the mass, and top-p keeps 0.9 of that) all eight are rejected in 2 rows of 10^5
// (0.27^8); such a row takes the rejection rounds after them.
inline constexpr int kFastProposals = 8;

struct OnlineMass {
  float max = 0.0f;
  float sum = 0.0f;
  bool any = false;  // a finite entry seen

  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Add(float s) {
    if (!(s >= -0x1.fffffep127f)) return;  // -inf: exp(-inf - m) = 0
    if (!any || s > max) {
      sum = any ? sum * math::ExpF32Cr(max - s) : 0.0f;
      max = s;
      any = true;
    }
    sum += math::ExpF32Cr(s - max);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Mass(float m) const {
    return any ? sum * math::ExpF32Cr(max - m) : 0.0f;
  }
};

template <int kN>
struct LaneSums {
  float v[kN];
};

// lanes: Registers<LaneSums<kN>>; the block sums of values [begin, end) into out[begin, end).
// Two values share a butterfly: packed into one 64-bit word (FloatWord), shuffled as one (two
// 32-bit shuffles on the device, as two floats would take) and added each on its own, so
// every sum has the same operations as a butterfly of its own, in half the phases; the pair's
// warp sums share a slot too (half the slot loads of the fold).
template <int kThreads, int kN, class B, class R, class Slots>
SAMPCHECK_KERNEL_BODY void SumProposalLanes(B& block, R& lanes, Slots& slots, float (&out)[kN], int begin, int end) {
  constexpr int kWarps = kThreads / kWarpSize;
  static_assert(kWarps * kN <= 1024, "the warps' sums fit the lent slots");
  for (int n = begin; n < end; n += 2) {
    const bool pair = n + 1 < end;
    auto lane = Registers<std::uint64_t>(block);
    block.ForEachThread([&](Thread t) {
      lane[t] = FloatWord(lanes[t].v[n]) | (pair ? FloatWord(lanes[t].v[n + 1]) << 32 : 0);
    });
    for (int m = kWarpSize / 2; m >= 1; m /= 2) {
      auto other = ShuffleXor(block, lane, m);
      block.ForEachThread([&](Thread t) {
        const float low = WordFloat(lane[t]) + WordFloat(other[t]);
        const float high = WordFloat(lane[t] >> 32) + WordFloat(other[t] >> 32);
        lane[t] = FloatWord(low) | (pair ? FloatWord(high) << 32 : 0);
      });
    }
    block.ForEachThread([&](Thread t) {
      if (t.lane() == 0) slots.Store(t.warp() * kN + n, lane[t]);  // the pair's warp sums, one word
    });
  }
  block.Sync();
  block.ForEachThread([&](Thread) {
    for (int n = begin; n < end; n += 2) {
      float low = 0.0f, high = 0.0f;
      for (int w = 0; w < kWarps; ++w) {
        const std::uint64_t word = slots.Load(w * kN + n);
        low += WordFloat(word);
        high += WordFloat(word >> 32);
      }
      out[n] = low;
      if (n + 1 < end) out[n + 1] = high;
    }
  });
  block.Sync();
}

// mass: Registers<float>.
template <int kThreads, int kD, class B, class R, class Slots, class KeyOf, class Weight>
SAMPCHECK_KERNEL_BODY void DrawProposals(B& block, std::int64_t vocab, R& mass, Slots& slots, const KeyOf& key_of,
                                         Weight weight, const float (&u)[kD], std::int64_t (&picks)[kD],
                                         float& total) {
  constexpr int kWarps = kThreads / kWarpSize;
  static_assert(kD < kThreads, "a thread per proposal");
  // Slots 0 .. kD - 1: the picks; slot kD: the total's bits.
  SAMPCHECK_SHARED(block, std::int64_t, proposal_picks, kD + 1);
  // The warps' masses by a butterfly: every lane ends with the same bits.
  auto warp_mass = Registers<float>(block);
  block.ForEachThread([&](Thread t) { warp_mass[t] = mass[t]; });
  for (int m = kWarpSize / 2; m >= 1; m /= 2) {
    auto other = ShuffleXor(block, warp_mass, m);
    block.ForEachThread([&](Thread t) { warp_mass[t] = warp_mass[t] + other[t]; });
  }
  // Slot t: thread t's mass in the low word; a warp's first slot also its warp's in the high.
  block.ForEachThread([&](Thread t) {
    slots.Store(t.x, FloatWord(mass[t]) | (t.lane() == 0 ? FloatWord(warp_mass[t]) << 32 : 0));
  });
  block.Sync();
  // Thread d draws proposal d: the same sums in the same order in each of them.
  block.ForEachThread([&](Thread t) {
    if (t.x >= kD) return;
    float all = 0.0f;
    for (int w = 0; w < kWarps; ++w) all += WordFloat(slots.Load(w * kWarpSize) >> 32);
    if (t.x == 0) proposal_picks.Store(kD, static_cast<std::int64_t>(FloatWord(all)));
    const float x = u[t.x] * all;
    // The warp holding x: the last of positive mass that starts at or below x.
    float start = 0.0f, warp_start = 0.0f;
    int warp = -1;
    for (int w = 0; w < kWarps; ++w) {
      const float wm = WordFloat(slots.Load(w * kWarpSize) >> 32);
      if (wm > 0.0f && start <= x) {
        warp = w;
        warp_start = start;
      }
      start += wm;
    }
    std::int64_t chosen = -1;
    if (warp >= 0) {
      // Its lane holding x, by sequential sums from the warp's start: the lanes' intervals
      // tile the warp's exactly.
      float before = warp_start, lane_start = 0.0f;
      int owner = -1;
      for (int l = 0; l < kWarpSize; ++l) {
        const float lm = WordFloat(slots.Load(warp * kWarpSize + l));
        if (lm > 0.0f && before <= x) {
          owner = warp * kWarpSize + l;
          lane_start = before;
        }
        before += lm;
      }
      // The owner's indices from its interval's start.
      float c = lane_start;
      if (owner >= 0) {
        (void)ForEachKeyUntil(key_of, owner, vocab, kThreads, [&](std::int64_t i, std::uint64_t key) {
          const float w = weight(key);
          if (!(w > 0.0f)) return false;
          c += w;
          chosen = i;
          return c > x;
        });
      }
    }
    proposal_picks.Store(t.x, chosen);
  });
  block.Sync();
  block.ForEachThread([&](Thread) {
    for (int d = 0; d < kD; ++d) picks[d] = proposal_picks.Load(d);
    total = WordFloat(static_cast<std::uint64_t>(proposal_picks.Load(kD)));
  });
}

}  // namespace sampcheck::gpu::fast_detail
