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
// - The order of the draws is thread-major: thread t of kThreads owns the list of its share of
//   the row (ThreadShare, gpu/block/thread_share.cuh: four elements a load, or strided, as the
//   read the masses come from took them), ascending; thread 0's list comes first, then thread
//   1's, and so on. Any fixed order draws the same law, and this one needs no second read to
//   find the chunk a target falls in.
// - OnlineMass: a thread's sum of exp(s - M) over its tokens of P with a running maximum M
//   (a free-order online softmax; -inf entries weigh 0); Mass(m) = sum x exp(M - m), its
//   mass relative to the row's maximum m >= M.
// - DrawProposals: mass[t] is thread t's mass over its share's list (finite, >= 0), `share` that
//   share of the row (ShareOf(key_of, vocab, kThreads)), weight(key_of(i)) e_i for i in P
//   and 0 otherwise (the same bits at every call; key_of a key source of
//   gpu/block/key_reads.cuh, so that a walk keeps several loads in flight), u[d] in [0, 1).
//   Sums by warp butterflies (WarpAllReduce, WarpButterflyScan: the same bits in every lane):
//   the warps' masses W_w, their exclusive prefix C_w and `total` (block-uniform). Warp w
//   draws proposals w, w + kWarps, .. (a round's other warps skip it: ForWarps,
//   gpu/block/block_model.h): target x_d = u_d x total; its warp is the last of
//   positive mass with C_w <= x_d (the one whose interval [C_w, C_w + W_w) holds x_d, or at
//   the end, x_d at or past the total, the last of positive mass); its lane (owner) by the
//   same rule over the warp's lanes' masses scanned from C_w; the owner's list split into
//   32 runs of consecutive positions, each lane summing one (ceil(n / 32) of the owner's n
//   indices), scanned from the owner's start (WalkWarpRuns, gpu/block/warp_run_walk.cuh); the
//   run by the same rule, and the run's lane walks it from the run's start: the first i of
//   positive weight whose running sum exceeds x_d, else the run's last of positive weight. 2
//   shared loads a lane and about 2 vocab / (32 kThreads) entries a proposal (4 + 8 at V =
//   128256, by quads as strided), where one thread a proposal loaded kWarps + 32 words and
//   walked ceil(vocab / kThreads) entries in sequence (about 210 accesses) until 2026-12-02. The sums are in a free
//   order and the walk adds the exact weights, so a draw may differ from the exact inverse CDF
//   where the two round differently (the distributional tier); with weights whose every sum is
//   exact, it is the inverse CDF of the thread-major order. Result: picks[d], block-uniform, an
//   index of positive weight (-1 only when no token of P has one). Two barriers, none at the
//   end (the slots are free again, the picks' array is its own). `slots`: 1024 shared u64 the
//   caller lends (their words carry float bits); undefined afterwards.
// - SumProposalLanes: the block sums of some of kN floats per thread (a butterfly per value,
//   two values packed in one 64-bit shuffle and one slot, then the warps' sums by the same
//   butterfly, lane w loading warp w's: one load a pair, where every thread folded the kWarps
//   words of each pair in warp order until 2026-12-02): two barriers, through the lent slots. A caller sums
//   the first proposal's first and the others only when it is rejected (the emulator's time
//   grows with the butterflies' phases; the device's barriers with the calls).
// - AddBeforeProposals, ProposalKeys, RowWeight, SumBeforeProposals,
//   CountDroppedBeforeProposals: the sums of the weights before each drawn proposal (below its
//   key in the order), per thread over the keys a read gives it; SumBeforeProposals is top-k
//   off's whole read of a thread's share, CountDroppedBeforeProposals the near-V gather's count
//   read of a thread's keys, both out of line on the device.
// - Deterministic for a given kThreads: fixed orders, no atomics.
// Example: 2 threads' masses {1, 3} (warp 0), u = 0.5: total 4, x = 2 lies in lane 1's
//   interval [1, 4); lane 1's indices are walked and the first whose running sum from 1
//   exceeds 2 is the proposal (tests/gpu_fast_sampling_test.cc, "ProposalsFollowTheWeights",
//   checks 8 proposals over 200 weights against one sequential walk of the same order).

#include <cstdint>
#include <limits>

#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/cached_candidates.cuh"
#include "gpu/block/float_word.cuh"
#include "gpu/block/key_reads.cuh"
#include "gpu/block/thread_share.cuh"
#include "gpu/block/top_k_survivors.cuh"
#include "gpu/block/warp_min.cuh"
#include "gpu/block/warp_run_walk.cuh"
#include "gpu/block/fast_exp.cuh"

namespace sampcheck::gpu::fast_detail {

// Proposals per row: with an acceptance of about 0.73 (top-k 5000 and top-p 0.9 on the
// benchmark's logits: the sample's last splitter admits a third more tokens than top-k keeps,
// 0.82 of the mass, and top-p keeps 0.9 of that) all eight are rejected in 2 rows of 10^5
// (0.27^8); such a row takes the rejection rounds after them.
inline constexpr int kFastProposals = 8;

// Add(s) makes the sums of the definition, sum x exp(M - s) + exp(s - s) when s raises the
// maximum M and sum + exp(s - M) otherwise, with one exponential an entry instead of two: exp(s
// - s) = FastExpF32(+0) = 1 exactly (gpu/block/fast_exp.cuh), and the entries are finite or
// -inf (the caller's validation), so the new maximum's own term is the 1 added here. Before the
// first finite entry M = -inf, whose exp(M - s) = FastExpF32(-inf) = +0 takes the definition's
// empty sum (0 x 0 + 1 = 1, and a mass of 0 x 0 = +0 with no entry): no flag to carry. The same
// bits (tests/gpu_fast_sampling_test.cc, "OnlineMassAddsAsTheDefinition"); inlined into the
// reads of the whole row that take every entry's weight, where each exponential is about 31
// instructions.
struct OnlineMass {
  static constexpr float kNone = -std::numeric_limits<float>::infinity();
  float max = kNone;
  float sum = 0.0f;

  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Add(float s) {
    if (!(s >= -0x1.fffffep127f)) return;  // -inf: exp(-inf - m) = 0
    const bool up = s > max;
    const float e = FastExpF32(up ? max - s : s - max);
    sum = up ? sum * e + 1.0f : sum + e;
    max = up ? s : max;
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float Mass(float m) const { return sum * FastExpF32(max - m); }
};

template <int kN>
struct LaneSums {
  float v[kN];
};

// The drawn proposals' order keys (block-uniform): key[d] that of proposal d (any key above
// every key of the row, kNoKey, where none was drawn), last the largest drawn one (0: none).
// AddBeforeProposals(k, key, last, weight, sums): sums[d] += weight(k) for each d with k <
// key[d], k's weight to the mass before proposal d in the order. A key at or after the last
// drawn proposal adds to none (most of a row's keys): one compare, no weight. A function of the
// keys and `last`, not of a struct: gpu-fast's row keeps them as locals, which its gathers'
// hooks compare every key with (as a struct's members, those hooks' loops made more frame
// accesses: docs/gpu.md "Reading the SASS").
template <int kN, class Weight>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void AddBeforeProposals(std::uint64_t k, const std::uint64_t (&key)[kN],
                                                                   std::uint64_t last, const Weight& weight,
                                                                   float* sums) {
  if (k >= last) return;
  const float e = weight(k);
  for (int d = 0; d < kN; ++d) {
    if (k < key[d]) sums[d] += e;
  }
}

template <int kN>
struct ProposalKeys {
  std::uint64_t key[kN];
  std::uint64_t last = 0;
};
// The drawn proposals' keys and the last one's as a ProposalKeys; none drawn: `last` 0, so
// that no key adds to a sum (AddBeforeProposals).
template <int kN>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE ProposalKeys<kN> ProposalKeysOf(bool proposed,
                                                                            const std::uint64_t (&key)[kN],
                                                                            std::uint64_t last) {
  ProposalKeys<kN> keys{};
  for (int d = 0; proposed && d < kN; ++d) keys.key[d] = key[d];
  keys.last = proposed ? last : 0;
  return keys;
}

// A key's weight e = exp(s - m) relative to the row's maximum m, by FastExpF32 (within an ulp
// of exp, gpu/block/fast_exp.cuh): what the proposals and the reads around them sum and draw
// from. A value type, so that an out-of-line read takes m in a register.
struct RowWeight {
  float m;

  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float OfValue(float s) const { return FastExpF32(s - m); }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float operator()(std::uint64_t key) const {
    return OfValue(ValueOfDescendingKey(key));
  }
};

// Thread t's masses before each proposal over its share of the row (ForEachShareKey, in its
// order: the sums AddBeforeProposals makes from 0). Out of line on the device so that the read's
// loop has registers of its own: inlined into gpu-fast's row function (64 registers), the sums
// were reloaded from the stack frame each quad and stored to it after each addition (docs/gpu.md
// "Reading the SASS"). Every argument is a value: the callee's copies, in registers, m among
// them (RowWeight).
template <int kN, class KeyOf>
SAMPCHECK_OUT_OF_LINE SAMPCHECK_KERNEL_BODY LaneSums<kN> SumBeforeProposals(const KeyOf key_of, const ThreadShare share,
                                                                            int t, const ProposalKeys<kN> keys,
                                                                            const RowWeight weight) {
  LaneSums<kN> sums{};
  ForEachShareKey(key_of, share, t, [&](std::int64_t, std::uint64_t key) {
    AddBeforeProposals(key, keys.key, keys.last, weight, sums.v);
  });
  return sums;
}

// The sample select's per-key hooks on a proposal row (SelectWork's count and gather,
// gpu/block/sample_select.cuh: Take / Add / Give), each thread's state a value of the read, in
// its registers. As lambdas over references, the gather read loaded the eight sums from the
// stack frame at every key before the last proposal and stored each back after its addition
// (docs/gpu.md "Reading the SASS"). The same additions in the same order: the same bits.
// OnlineMassWork: while *on, the count read's OnlineMass of the keys below its last splitter.
template <class R>
struct OnlineMassWork {
  const bool* on;
  R* online;  // Registers<OnlineMass>
  struct Mine {
    bool on = false;
    OnlineMass mass{};
    SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Add(std::uint64_t key, std::uint64_t hi) {
      if (on && key < hi) mass.Add(ValueOfDescendingKey(key));
    }
  };
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE Mine Take(Thread t) const {
    if (!*on) return {};
    return {true, (*online)[t]};
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Give(Thread t, const Mine& mine) const {
    if (mine.on) (*online)[t] = mine.mass;
  }
};
// BeforeProposalsWork: once proposals are drawn (*on and *proposed), the gather read's masses
// before each proposal (AddBeforeProposals into sums 1 + d) and its keys' mass below the bin
// `lo` (sum 0), added to the thread's `parts`.
template <int kN, class R>
struct BeforeProposalsWork {
  const bool* on;
  const bool* proposed;
  const std::uint64_t (*key)[kN];  // the kN proposals' keys
  const std::uint64_t* last;
  const float* m;  // the row's maximum s
  R* parts;        // Registers<LaneSums<kN + 1>>
  struct Mine {
    bool on = false;
    ProposalKeys<kN> keys{};
    RowWeight weight{0.0f};
    LaneSums<kN + 1> sums{};
    SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Add(std::uint64_t k, std::uint64_t lo) {
      if (!on) return;
      AddBeforeProposals(k, keys.key, keys.last, weight, sums.v + 1);
      if (k < lo) sums.v[0] += weight(k);
    }
  };
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE Mine Take(Thread t) const {
    Mine mine;
    if (!*on || !*proposed) return mine;
    mine.on = true;
    mine.keys = ProposalKeysOf(true, *key, *last);
    mine.weight = RowWeight{*m};
    mine.sums = (*parts)[t];
    return mine;
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void Give(Thread t, const Mine& mine) const {
    if (mine.on) (*parts)[t] = mine.sums;
  }
};

// The near-V gather's read 2 in thread t (gpu/fast/fast_sampling.cuh: its count for
// CountUpToBound, gpu/fast/fast_top_k_survivors.cuh): the thread's keys of the reversed order
// (key_of: ReversedKeys) in its partition's order, the indices of those that pass `candidate`
// (CandidateCache::Add, in that order: the caller makes their keys again, a load each, as
// GatherCountedCandidates' in-line count would have held them), and the masses before each
// proposal over the same keys (AddBeforeProposals of each key's order key, ~key, from 0). Out
// of line for SumBeforeProposals' reason: inlined into the row function, this read's loop
// reloaded the sums from the stack frame and stored them back after each addition. Indices, not
// keys: 32-bit words, so that the cache, the proposals' keys and the sums fit the callee's
// registers (with 64-bit keys it spilled the proposals' keys inside the loop).
template <int kCap, int kN>
struct DroppedCount {
  CandidateCache<kCap, std::uint32_t> index;
  LaneSums<kN> before;
};
template <int kCap, int kN, class KeyOf, class Candidate>
SAMPCHECK_OUT_OF_LINE SAMPCHECK_KERNEL_BODY DroppedCount<kCap, kN> CountDroppedBeforeProposals(
    const KeyOf key_of, const KeyPartition part, int t, const Candidate candidate, const ProposalKeys<kN> keys,
    const RowWeight weight) {
  DroppedCount<kCap, kN> counted{};
  ForEachPartitionKey(key_of, part, t, [&](std::int64_t i, std::uint64_t key) {
    AddBeforeProposals(~key, keys.key, keys.last, weight, counted.before.v);
    if (candidate(key)) counted.index.Add(static_cast<std::uint32_t>(i));
  });
  return counted;
}

// lanes: Registers<LaneSums<kN>>; the block sums of values [begin, end) into out[begin, end).
// Two values share a butterfly: packed into one 64-bit word (FloatWord), shuffled as one (two
// 32-bit shuffles on the device, as two floats would take) and added each on its own, so
// every sum has the same operations as a butterfly of its own, in half the phases; the pair's
// warp sums share a slot too (half the slot loads of the fold).
template <int kThreads, int kN, class B, class R, class Slots>
SAMPCHECK_KERNEL_BODY void SumProposalLanes(B& block, R& lanes, Slots& slots, float (&out)[kN], int begin, int end) {
  constexpr int kWarps = kThreads / kWarpSize;
  static_assert(kWarps * kN <= 1024, "the warps' sums fit the lent slots");
  // A pair's two sums of one butterfly step (the high word only for a pair).
  auto add_pair = [](bool pair) {
    return [pair](std::uint64_t a, std::uint64_t b) {
      const float low = WordFloat(a) + WordFloat(b);
      const float high = WordFloat(a >> 32) + WordFloat(b >> 32);
      return FloatWord(low) | (pair ? FloatWord(high) << 32 : 0);
    };
  };
  for (int n = begin; n < end; n += 2) {
    const bool pair = n + 1 < end;
    auto lane = Registers<std::uint64_t>(block);
    block.ForEachThread([&](Thread t) {
      lane[t] = FloatWord(lanes[t].v[n]) | (pair ? FloatWord(lanes[t].v[n + 1]) << 32 : 0);
    });
    WarpAllReduce(block, lane, add_pair(pair));
    block.ForEachThread([&](Thread t) {
      if (t.lane() == 0) slots.Store(t.warp() * kN + n, lane[t]);  // the pair's warp sums, one word
    });
  }
  block.Sync();
  // The warps' sums of each pair: lane w of every warp loads warp w's word, and the same
  // packed butterfly adds them (the same bits in every lane).
  for (int n = begin; n < end; n += 2) {
    const bool pair = n + 1 < end;
    auto lane = Registers<std::uint64_t>(block);
    block.ForEachThread([&](Thread t) { lane[t] = t.lane() < kWarps ? slots.Load(t.lane() * kN + n) : 0u; });
    WarpAllReduce(block, lane, add_pair(pair));
    const std::uint64_t word = BlockUniform(block, lane);
    out[n] = WordFloat(word);
    if (pair) out[n + 1] = WordFloat(word >> 32);
  }
  block.Sync();
}

// mass: Registers<float>.
template <int kThreads, int kD, class B, class R, class Slots, class KeyOf, class Weight>
SAMPCHECK_KERNEL_BODY void DrawProposals(B& block, const ThreadShare& share, R& mass, Slots& slots,
                                         const KeyOf& key_of, Weight weight, const float (&u)[kD],
                                         std::int64_t (&picks)[kD], float& total) {
  constexpr int kWarps = kThreads / kWarpSize;
  static_assert(kWarps <= kWarpSize, "a lane per warp");
  SAMPCHECK_SHARED(block, std::int64_t, proposal_picks, kD);
  // The warps' masses by a butterfly: every lane ends with the same bits.
  auto warp_mass = Registers<float>(block);
  block.ForEachThread([&](Thread t) { warp_mass[t] = mass[t]; });
  WarpAllReduce(block, warp_mass, [](float a, float b) { return a + b; });
  // Slot t: thread t's mass in the low word; a warp's first slot also its warp's in the high.
  block.ForEachThread(
      [&](Thread t) { slots.Store(t.x, FloatWord(mass[t]) | (t.lane() == 0 ? FloatWord(warp_mass[t]) << 32 : 0)); });
  block.Sync();
  // Lane l of every warp: warp l's mass (0 past the last warp), the masses of the warps before
  // it (C_l) and the total, by one butterfly scan: the same bits in every warp.
  auto all = Registers<float>(block);
  auto warp_start = Registers<float>(block);
  auto wm = Registers<float>(block);
  block.ForEachThread([&](Thread t) {
    wm[t] = t.lane() < kWarps ? WordFloat(slots.Load(t.lane() * kWarpSize) >> 32) : 0.0f;
    all[t] = wm[t];
    warp_start[t] = 0.0f;
  });
  WarpButterflyScan(block, all, warp_start);
  total = BlockUniform(block, all);
  // Warp w draws proposals w, w + kWarps, ...: the warp of x (the last of positive mass
  // starting at or below x), its lane (the same rule over its lanes' masses from C_w), the
  // owner's indices split into 32 runs of consecutive ones (in its order), the run of x by the
  // same rule, and that run walked by its lane.
  for (int round = 0; round * kWarps < kD; ++round) {
    // The warps with a proposal this round (at 1024 threads the first kD of 32): the others
    // sit it out (ForWarps), where they took part in its scans and minima until 2026-12-06.
    block.ForWarps([&](int w) { return round * kWarps + w < kD; }, [&] {
      auto d_of = [&](Thread t) { return round * kWarps + t.warp(); };
      auto x = Registers<float>(block);
      block.ForEachThread([&](Thread t) { x[t] = d_of(t) < kD ? u[d_of(t)] * all[t] : 0.0f; });
      const auto warp = LastSegmentAtOrBelow(  // -1: no token of positive weight
          block, [&](Thread t) { return d_of(t) < kD && t.lane() < kWarps; }, wm, warp_start, x);
      auto c_w = WarpValueOfLane(
          block, [&](Thread t) { return warp[t]; }, warp_start);
      // The lanes of warp `warp`: their masses from C_w.
      auto lm = Registers<float>(block);
      auto lane_sum = Registers<float>(block);
      auto lane_start = Registers<float>(block);
      block.ForEachThread([&](Thread t) {
        lm[t] = warp[t] >= 0 ? WordFloat(slots.Load(warp[t] * kWarpSize + t.lane())) : 0.0f;
        lane_sum[t] = lm[t];
        lane_start[t] = c_w[t];
      });
      WarpButterflyScan(block, lane_sum, lane_start);
      const auto lane = LastSegmentAtOrBelow(
          block, [&](Thread t) { return warp[t] >= 0; }, lm, lane_start, x);
      auto owner = Registers<int>(block);  // a thread of the block, -1: none
      block.ForEachThread([&](Thread t) { owner[t] = lane[t] >= 0 ? warp[t] * kWarpSize + lane[t] : -1; });
      auto owner_start = WarpValueOfLane(
          block, [&](Thread t) { return owner[t] % kWarpSize; }, lane_start);
      // The owner's list (its share's indices, positions j < n) in runs: lane l's [l c, (l + 1) c).
      auto visit_run = [&](Thread t, const auto& visit) {
        const std::int64_t n = share.Count(owner[t]);
        const std::int64_t c = (n + kWarpSize - 1) / kWarpSize;
        const std::int64_t lo = t.lane() * c < n ? t.lane() * c : n, hi = lo + c < n ? lo + c : n;
        (void)ForEachShareKeyUntil(key_of, share, owner[t], lo, hi,
                                   [&](std::int64_t i, std::uint64_t key) { return visit(i, weight(key)); });
      };
      auto pick = Registers<std::int64_t>(block);  // -1: no token of P has weight
      block.ForEachThread([&](Thread t) { pick[t] = -1; });
      const auto walker = WalkWarpRuns(
          block, [&](Thread t) { return owner[t] >= 0; }, owner_start, x, visit_run, pick);
      block.ForEachThread([&](Thread t) {  // the run holding x, else lane 0, stores the pick
        if (d_of(t) < kD && t.lane() == (walker[t] >= 0 ? walker[t] : 0)) proposal_picks.Store(d_of(t), pick[t]);
      });
    });
  }
  block.Sync();
  block.ForEachThread([&](Thread) {
    for (int d = 0; d < kD; ++d) picks[d] = proposal_picks.Load(d);
  });
}

}  // namespace sampcheck::gpu::fast_detail
