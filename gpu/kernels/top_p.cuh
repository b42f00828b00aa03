// SPDX-License-Identifier: Apache-2.0
#pragma once
// top_p (nucleus) kernel: keep the most probable tokens until their mass reaches p; bit-exact
// with reference/top_p.h (docs/spec/filters.md#top_p, "Arithmetic", "Kept set").
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32, finite or -inf (the glue
//   decides the rows of sampling_filters and logprobs holding NaN or +inf on the host); top_p:
//   rows f32, not NaN; out: rows x V f32, kept entries bit-identical, dropped -inf.
// - TopPKernel's rows holding a NaN or a +inf: DegenerateSoftmaxFilterStep
//   (gpu/kernels/degenerate_rows.cuh), enabled iff p < 1 (docs/spec/filters.md "Degenerate rows").
// - probs_i = ExpF32Cr(x_i - M) / s (RowSoftmaxStats: SoftmaxRow's bits), for every profile.
// - Out-of-range p: p >= 1 copies the row (except TopPWalk::kSglang, whose mask runs at every
//   p); p <= 0 keeps the first token of the order (kTieGroup: the first tie group). A row
//   without a finite logit is copied.
// - Walk (the order-dependent part, sequential as the reference): the finite entries are
//   visited in the canonical order (kVllmAscending: ascending value, equal values by
//   increasing index), in chunks of at most 1024: the chunk's upper key is found by radix
//   select (SelectKth, no sort of the row), its entries are gathered and sorted by a bitonic
//   network in shared memory (CollectSorted), and thread 0 walks them in order, carrying the
//   f32 running sums from chunk to chunk; with a scratch (TopPWalkRow), the chunks of
//   gpu/block/radix_partition.cuh's chunk loop instead, as probabilities at their positions:
//     kExclusive: kept iff E_j < p (E_0 = +0, E_{j+1} = E_j + prob_j, one f32 addition);
//     kTieGroup: a run of equal probs is kept iff E at its first token < p;
//     kSglang: C_j = C_{j-1} + prob_j, kept iff !(f32(C_j - prob_j) > p), each position on its
//       own (dropped ones written -inf by thread 0 as it walks, or, on the chunk loop, marked
//       and written by the threads holding their keys; the source row is not `out`);
//     kVllmAscending: c_j = c_{j-1} + prob_j, the first position with !(c_j <= f32(1 - p)) and
//       everything after it kept, and the last position (the largest) always.
//   The prefix rules stop at their first drop; the kept set is then "key <= cut" (ascending:
//   "key >= cut"), applied by every thread. -inf entries are never visited: their prob is +0,
//   they come after every finite entry (before them, ascending) and stay -inf (docs/spec/
//   filters.md "Work on the survivors only").
// - `limit` (sampling_filters' joint orders): only the first `limit` positions of the order
//   are walked; the others are dropped.
// Example: the ln 2 row, probs (0.5, 0.25, 0.125, 0.125), p = 0.75: E = 0, 0.5, 0.75:
//   kExclusive keeps {0, 1}, kSglang {0, 1, 2} (tests/gpu_kernels_test.cc, GpuTopP).

#include <cstdint>
#include <type_traits>

#include "gpu/block/block_model.h"
#include "gpu/block/lane_scan.cuh"
#include "gpu/kernels/filter_rules.h"
#include "gpu/block/radix_partition.cuh"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/top_k_survivors.cuh"
#include "gpu/block/warp_running_sum.cuh"
#include "gpu/kernels/degenerate_rows.cuh"

namespace sampcheck::gpu {

// Thread 0's running state of a walk, kept across chunks.
struct TopPWalkState {
  float sum = 0.0f;         // E (exclusive rules) or C / c (inclusive rules)
  float group_prob = 0.0f;  // kTieGroup: the current group's prob
  bool started = false;
  bool keep_group = false;
  std::uint64_t last_kept = 0;
  std::int64_t position = 0;  // positions walked so far (1-based rank of the last one)
  float last_prob = 1.0f;     // the chunk loop's walk: the last position's probability (1 before any)
};

// One position of a prefix walk (kExclusive, kTieGroup; contract above): `key` is the next
// entry of the order and `prob` its probability. Returns true at the walk's first drop, with
// `cut` the last kept key (kept iff key <= cut); the survivor path
// (gpu/kernels/sampling_filters_on_survivors.cuh) walks its sorted survivors with the same step.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool TopPVisitPrefix(TopPWalkState& s, TopPWalk walk, float p,
                                                                std::uint64_t key, float prob, std::uint64_t& cut) {
  if (walk == TopPWalk::kExclusive) {
    const bool keep = s.sum < p;
    s.sum = s.sum + prob;
    if (keep || s.position == 1) {  // p <= 0: the first token all the same
      s.last_kept = key;
      if (!keep) return cut = key, true;
      return false;
    }
    return cut = s.last_kept, true;
  }
  // kTieGroup
  if (!s.started || prob != s.group_prob) {
    s.started = true;
    s.group_prob = prob;
    s.keep_group = s.sum < p;
  }
  s.sum = s.sum + prob;
  if (s.keep_group) {
    s.last_kept = key;
    return false;
  }
  return cut = s.last_kept, true;
}

// The number of positions after the last one walked (s.position of `total`, with probability
// `prob`) that cannot end the walk, at most 2^29 - 1 (radix_partition.cuh "Chunk loop": the
// chunk loop reads ahead only over those). A sound bound, so that at most one chunk is read
// for nothing where the walk ends: kSglang ends at position `total` alone. The prefix rules
// stop only where E >= p: the next probabilities are at most `prob` (descending order) and each
// f32 addition rounds by at most 2^-23, so while E + n x (prob + 2^-23) < p none of the next n
// stops. vLLM's ascending walk stops where c > f32(1 - p): the next n probabilities are the
// n smallest of the R left, so they sum to at most n / R of the mass left, which is at most
// T - c + position x 2^-24 with T = 1 + vocab x 2^-22 >= the sum of every probability
// (ExpF32Cr rounded, s a sum of vocab terms, each quotient rounded: (1 + u) / (1 - (vocab - 1)u)
// with vocab <= 2^20); each addition rounds by at most 2^-24.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t TopPWalkSafe(TopPWalk walk, float p, float threshold,
                                                                      const TopPWalkState& s, float prob,
                                                                      std::int64_t total, std::int64_t vocab) {
  const double left = static_cast<double>(total - s.position);  // positions not walked yet
  double room = left - 1.0;
  if (walk == TopPWalk::kExclusive || walk == TopPWalk::kTieGroup) {
    const double fit =
        (static_cast<double>(p) - static_cast<double>(s.sum)) / (static_cast<double>(prob) + 0x1p-23) - 1.0;
    room = fit < room ? fit : room;
  } else if (walk == TopPWalk::kVllmAscending) {
    if (vocab > (std::int64_t{1} << 20) || left < 1.0) return 0;
    const double mass_left = 1.0 + static_cast<double>(vocab) * 0x1p-22 - static_cast<double>(s.sum) +
                             static_cast<double>(s.position) * 0x1p-24;
    const double fit =
        (static_cast<double>(threshold) - static_cast<double>(s.sum)) / (mass_left / left + 0x1p-24) - 1.0;
    room = fit < room ? fit : room;
  }
  room = room < 0x1p29 - 1.0 ? room : 0x1p29 - 1.0;
  return room > 0.0 ? static_cast<std::uint64_t>(room) : 0u;
}

// A walk's rule and bounds, by value (TopPWalkWords keeps them in registers): `threshold` is
// vLLM's f32(1 - p), `total` the position the walk ends at, `vocab` TopPWalkSafe's bound on the
// mass.
struct TopPWalkRule {
  TopPWalk walk = TopPWalk::kExclusive;
  float p = 0.0f;
  float threshold = 0.0f;
  std::int64_t total = 0;
  std::int64_t vocab = 0;
};

// Position s.position of a walk (already counted), with its probability and its identity `id`
// (a key, or a position of the chunk loop): the rule of the contract above. Returns true when
// kSglang drops it; sets `stop`, with `stop_cut` the cut's identity, at a prefix rule's first
// drop or at vLLM's cut (or its last position).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool TopPWalkStep(TopPWalkState& s, const TopPWalkRule& r,
                                                             std::uint64_t id, float prob, bool& stop,
                                                             std::uint64_t& stop_cut) {
  switch (r.walk) {
    case TopPWalk::kExclusive:
    case TopPWalk::kTieGroup:
      stop = TopPVisitPrefix(s, r.walk, r.p, id, prob, stop_cut);
      return false;
    case TopPWalk::kSglang: {
      s.sum = s.sum + prob;
      const float before = s.sum - prob;
      return before > r.p;
    }
    case TopPWalk::kVllmAscending:
      s.sum = s.sum + prob;
      if (!(s.sum <= r.threshold) || s.position == r.total) stop = true, stop_cut = id;
      return false;
  }
  return false;
}

// The positions of the chunk loop's next m that TopPWalkSafe says cannot end the walk (every
// rule but kSglang, whose drops may come anywhere), an even number (whole words): the walk adds
// them as the running sum alone.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t TopPWalkSumOnly(const TopPWalkState& s, std::uint32_t m,
                                                                         const TopPWalkRule& rule) {
  if (rule.walk == TopPWalk::kSglang) return 0;
  const std::uint64_t safe = TopPWalkSafe(rule.walk, rule.p, rule.threshold, s, s.last_prob, rule.total, rule.vocab);
  return static_cast<std::uint32_t>((safe < m ? safe : m) / 2) * 2;
}

// The state after positions the walk keeps without a step (TopPWalkWords' sum-only and warp-added
// positions, an any-order chunk): `kept` more positions, E `sum` after them, the last one's
// probability `prob`. Each is kept, so the step would set only what is set here (the last kept
// position; a tie group's keep holds, since a group not kept ends the walk at its first position).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void TopPKeepPositions(TopPWalkState& s, std::uint32_t kept, float sum,
                                                                  float prob) {
  s.sum = sum;
  s.position += kept;
  s.last_kept = static_cast<std::uint64_t>(s.position);
  s.started = true;
  s.keep_group = true;
  s.group_prob = prob;
}

// The chunk loop's verdict word after a chunk's walk (TopPWalkWords' contract): `prob` the last
// position's probability, `stop_cut` the cut's position at a stop, `marked` the marks' flag.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t TopPWalkVerdict(const TopPWalkState& s,
                                                                         const TopPWalkRule& rule, float prob,
                                                                         bool stop, std::uint64_t stop_cut,
                                                                         std::uint64_t marked) {
  const std::uint64_t code = stop ? 1u : (s.position >= rule.total ? 2u : 0u);
  const std::uint64_t safe =
      code == 0 ? TopPWalkSafe(rule.walk, rule.p, rule.threshold, s, prob, rule.total, rule.vocab) : 0u;
  return code << 62 | safe << 32 | marked | (stop ? stop_cut : static_cast<std::uint64_t>(s.position));
}

// Thread 0's walk over the chunk loop's next m probabilities (gpu/block/radix_partition.cuh
// "Chunk loop": words, a shared array's View(), whose Load(i) holds positions 2i and 2i + 1 of
// the chunk, low half first), up to position rule.total, each position's identity its
// position; marks (PartitionChunkMarks, or NoChunkMarks for the rules that mark nothing) takes
// kSglang's drops. Positions 0 .. summed - 1 were added already (TopPWalkChunk's warp: every
// one kept, each E before it below p for the prefix rules, or within TopPWalkSumOnly), `sum`
// being E after them. Returns the chunk loop's verdict word: code << 62 (0: go on; 1: stopped,
// with the cut's position; 2: position rule.total reached, with the last position walked) |
// safe << 32 (TopPWalkSafe after the last position walked, while the walk goes on) |
// kPartitionChunkMarked when it marked a position | position.
//
// Out of line on the device (SAMPCHECK_OUT_OF_LINE) so that its loops have registers of their
// own: inlined into the 64-register filter kernels, ptxas kept the chunk's size in the stack
// frame and reloaded it at every position, a local-memory round trip (the L1 is shared with
// 1023 threads' frames) that matches the measured 0.16 us a position at top-p 0.999
// (docs/gpu.md "Top-p over a sorted scratch"). The sum-only positions (TopPWalkSumOnly) the
// warp left after its rounds (few) are added as the running sum alone, a group of 4 words
// loaded while the previous group is added (TopPKeepPositions). The other positions take the
// step, each word read at its first position: no word is read that the walk does not reach.
// On the host SAMPCHECK_OUT_OF_LINE is empty: the emulator runs the same source.
template <class Words, class Marks>
SAMPCHECK_OUT_OF_LINE SAMPCHECK_KERNEL_BODY std::uint64_t TopPWalkWords(TopPWalkState& state, std::uint32_t m,
                                                                       Words words, TopPWalkRule rule, Marks marks,
                                                                       std::uint32_t summed, float sum) {
  TopPWalkState s = state;
  float prob = 1.0f;  // the last position's, for TopPWalkSafe (1 before any)
  const std::uint32_t fast = TopPWalkSumOnly(s, m, rule);
  const std::uint32_t kept = summed > fast ? summed : fast;  // added as the running sum alone
  if (kept > 0) {
    std::uint32_t j = summed;
    if (j % 2 != 0 && j < fast) sum = sum + WordFloat(words.Load(j / 2) >> 32), ++j;
    constexpr std::uint32_t kGroup = 4;  // words a group: 8 additions cover a shared load's latency
    const std::uint32_t first = j / 2, groups = j < fast ? (fast / 2 - first) / kGroup : 0;
    std::uint64_t w0 = 0, w1 = 0, w2 = 0, w3 = 0;
    if (groups > 0) {
      w0 = words.Load(first), w1 = words.Load(first + 1), w2 = words.Load(first + 2), w3 = words.Load(first + 3);
    }
    for (std::uint32_t g = 0; g < groups; ++g) {
      const std::uint64_t a0 = w0, a1 = w1, a2 = w2, a3 = w3;
      if (g + 1 < groups) {
        const std::uint32_t i = first + (g + 1) * kGroup;
        w0 = words.Load(i), w1 = words.Load(i + 1), w2 = words.Load(i + 2), w3 = words.Load(i + 3);
      }
      sum = sum + WordFloat(a0);
      sum = sum + WordFloat(a0 >> 32);
      sum = sum + WordFloat(a1);
      sum = sum + WordFloat(a1 >> 32);
      sum = sum + WordFloat(a2);
      sum = sum + WordFloat(a2 >> 32);
      sum = sum + WordFloat(a3);
      sum = sum + WordFloat(a3 >> 32);
    }
    for (std::uint32_t i = first + groups * kGroup; i < fast / 2; ++i) {
      const std::uint64_t a = words.Load(i);
      sum = sum + WordFloat(a);
      sum = sum + WordFloat(a >> 32);
    }
    const std::uint64_t last = words.Load((kept - 1) / 2);  // the last sum-only position's
    prob = WordFloat(kept % 2 != 0 ? last : last >> 32);
    TopPKeepPositions(s, kept, sum, prob);
  }
  bool stop = false;
  std::uint64_t stop_cut = 0;
  std::uint64_t pair = 0;
  for (std::uint32_t j = kept; j < m && !stop && s.position < rule.total; ++j) {
    if (j % 2 == 0 || j == kept) pair = words.Load(j / 2);
    ++s.position;
    prob = WordFloat(j % 2 == 0 ? pair : pair >> 32);
    if (TopPWalkStep(s, rule, static_cast<std::uint64_t>(s.position), prob, stop, stop_cut)) marks.Mark(j);
  }
  if (m > 0) s.last_prob = prob;
  const std::uint64_t verdict = TopPWalkVerdict(s, rule, prob, stop, stop_cut, 0u);
  const std::uint64_t marked = marks.Close() ? kPartitionChunkMarked : 0u;
  state = s;
  return verdict | marked;
}

// Rounds of the warp's running sum a chunk (WarpRunningSum): the first chunk, from E = 0,
// leaves E's binade up to 11 times, in windowed rounds (max(64, done) positions each: a round
// per doubling of the positions done, and one per binade left, at most 5 + 11). A later chunk
// of m positions under a prefix rule (probabilities not increasing along the walk) after at
// least `walked` positions adds at most m / walked times E, so E leaves its binade at most L
// times, the least L with 2^L >= 1 + m / walked (powers of two in (E, E (1 + m / walked)]): one
// round ends at each, one more covers the rest, and at least 2 (the rounding may still take
// E across one more power of two than the exact sum: then thread 0 adds what is left, as
// after every round is spent). Until 2026-12-02 every later chunk took 2 rounds, enough
// after a first chunk of at least m positions: a first chunk of 245 left a second of 994
// to cross 3 binades, and thread 0 added 725 positions one by one (402 shared reads). vLLM's
// ascending walk and kSglang's keep 2.
inline constexpr int kTopPSumRounds = 2;
inline constexpr int kTopPFirstSumRounds = 16;
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE int TopPSumRounds(std::int64_t walked, std::uint32_t m, bool prefix) {
  if (walked == 0) return kTopPFirstSumRounds;
  if (!prefix) return kTopPSumRounds;
  int binades = 0;
  while ((walked << binades) < walked + m) ++binades;  // m <= 2048: at most 11
  return binades + 1 > kTopPSumRounds ? binades + 1 : kTopPSumRounds;
}

// The positions of a chunk of m that warp 0 adds (TopPWalkChunk) and where it must stop: the
// prefix rules keep every position whose E is below p, so the warp adds the chunk up to the
// first that is not (bound p), at most up to position rule.total; vLLM's ascending walk keeps
// its TopPWalkSumOnly positions (bound +inf); kSglang none.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t TopPWarpPositions(const TopPWalkState& s, std::uint32_t m,
                                                                           const TopPWalkRule& rule) {
  if (rule.walk == TopPWalk::kExclusive || rule.walk == TopPWalk::kTieGroup) {
    const std::int64_t left = rule.total - s.position;
    return left < static_cast<std::int64_t>(m) ? static_cast<std::uint32_t>(left > 0 ? left : 0) : m;
  }
  return TopPWalkSumOnly(s, m, rule);
}
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float TopPWarpBound(const TopPWalkRule& rule) {
  return rule.walk == TopPWalk::kExclusive || rule.walk == TopPWalk::kTieGroup ? rule.p : -NegativeInfinity();
}

// Thread 0's E and positions(its state) to every lane of warp 0 (an xor butterfly of one word,
// 5 shuffles): sum and count there, count 0 in the other warps.
template <class B, class RS, class Positions, class RF, class RC>
SAMPCHECK_KERNEL_BODY void TopPWarpJob(B& block, RS& state, Positions positions, RF& sum, RC& count) {
  auto job = Registers<std::uint64_t>(block);  // thread 0's (positions << 32 | E), then warp 0's
  block.ForEachThread([&](Thread t) {
    job[t] = t.x == 0 ? static_cast<std::uint64_t>(positions(state[t])) << 32 | FloatWord(state[t].sum) : 0u;
  });
  for (int mask = 1; mask < kWarpSize; mask *= 2) {  // lane 0's word to every lane of its warp
    auto other = ShuffleXor(block, job, mask);
    block.ForEachThread([&](Thread t) {
      if ((t.lane() & mask) != 0) job[t] = other[t];
    });
  }
  block.ForEachThread([&](Thread t) {
    sum[t] = WordFloat(job[t]);
    count[t] = static_cast<std::uint32_t>(job[t] >> 32);
  });
}

// The chunk loop's walk of one chunk (block-level code, no barrier; the WeightedVisit's walk of
// TopPWalkRow and sampling_filters' partition path): warp 0 adds the chunk's positions that
// the rule keeps without a step (TopPWarpPositions) at once, with the sequential sum's bits
// (gpu/block/warp_running_sum.cuh), from thread 0's E, which an xor butterfly hands to the warp
// with their number (5 shuffles); thread 0 walks the rest (TopPWalkWords), its verdict in
// thread 0's register. `walked`: the positions of the chunks this function walked before (a
// block-level value, 0 before the walk's first chunk, m added here): at most the walk's
// position (chunks walked in any order are not counted), so TopPSumRounds' bound holds; the
// first chunk takes kTopPFirstSumRounds, windowed. The warp's sum has the bits of thread 0's
// sequential additions (WarpRunningSum's contract), so the walk's result does not change.
template <class B, class RS, class Words, class Marks>
SAMPCHECK_KERNEL_BODY auto TopPWalkChunk(B& block, RS& state, std::uint32_t m, Words words, const TopPWalkRule& rule,
                                         Marks marks, std::int64_t& walked) {
  const int rounds =
      TopPSumRounds(walked, m, rule.walk == TopPWalk::kExclusive || rule.walk == TopPWalk::kTieGroup);
  walked += m;
  auto sum = Registers<float>(block);
  auto count = Registers<std::uint32_t>(block);  // 0 outside warp 0
  auto done = Registers<std::uint32_t>(block);
  // Warp 0 alone (ForWarps, gpu/block/block_model.h): the other warps, whose count is 0, took
  // part in its butterflies and minima until 2026-12-06.
  block.ForWarps(WarpZero{}, [&] {
    TopPWarpJob(block, state, [&](const TopPWalkState& s) { return TopPWarpPositions(s, m, rule); }, sum, count);
    WarpRunningSum(block, sum, count, done, words, rounds, TopPWarpBound(rule), rounds == kTopPFirstSumRounds);
  });
  auto verdict = Registers<std::uint64_t>(block);
  block.ForEachThread([&](Thread t) {
    if (t.x == 0) verdict[t] = TopPWalkWords(state[t], m, words, rule, marks, done[t], sum[t]);
  });
  return verdict;
}

// The chunk loop's walk of a chunk handed in any order (WeightedVisit's any-order walk,
// gpu/block/radix_partition.cuh "Chunk loop"; block-level code, no barrier): a prefix rule keeps
// every position of the chunk when warp 0's WarpAnyOrderSum adds them all with every partial
// sum below p (the probabilities do not increase along the prefix rules' order, the sum's
// precondition: it has the sorted walk's E, each E_j is below p, and the sorted walk would keep
// them all), up to position rule.total; thread 0 takes the state the sorted walk would leave
// (TopPKeepPositions; the last position's probability is the chunk's smallest) and its verdict.
// Otherwise the verdict is kPartitionChunkUnordered and the state is untouched: the chunk loop
// sorts the chunk and walks it (TopPWalkChunk). The other rules always answer
// kPartitionChunkUnordered.
template <class B, class RS, class Words, class Parts = NoAnyOrderParts>
SAMPCHECK_KERNEL_BODY auto TopPWalkChunkAnyOrder(B& block, RS& state, std::uint32_t m, Words words,
                                                 const TopPWalkRule& rule, const Parts& parts = {}) {
  auto sum = Registers<float>(block);
  auto count = Registers<std::uint32_t>(block);  // 0 outside warp 0
  auto added = Registers<std::uint32_t>(block);
  auto smallest = Registers<float>(block);
  const bool prefix = rule.walk == TopPWalk::kExclusive || rule.walk == TopPWalk::kTieGroup;
  auto positions = [&](const TopPWalkState& s) {
    return prefix && static_cast<std::int64_t>(m) <= rule.total - s.position ? m : 0u;
  };
  block.ForWarps(WarpZero{}, [&] {  // warp 0 alone, as TopPWalkChunk's sum
    TopPWarpJob(block, state, positions, sum, count);
    WarpAnyOrderSum(block, sum, count, added, smallest, words, rule.p, parts);
  });
  auto verdict = Registers<std::uint64_t>(block);
  block.ForEachThread([&](Thread t) {
    if (t.x != 0) return;
    verdict[t] = kPartitionChunkUnordered;
    if (added[t] == 0) return;
    TopPWalkState s = state[t];
    TopPKeepPositions(s, m, sum[t], smallest[t]);
    s.last_prob = smallest[t];
    state[t] = s;
    verdict[t] = TopPWalkVerdict(s, rule, smallest[t], false, 0, 0);
  });
  return verdict;
}

// The end of one chunk of a walk, once thread 0 has stored its verdict in `verdict` (slot 0: 0
// to go on, 1 at a prefix rule's first drop, 2 at the walk's end; slot 1: the cut key; slot 2:
// the last key walked): every thread reads it back. Returns true when the walk is over.
// sync_to_go_on = false: no barrier after the reads while the walk goes on (the caller's next
// chunk passes a barrier before thread 0 writes `verdict` again).
template <class B, class Shared>
SAMPCHECK_KERNEL_BODY bool ReadWalkVerdict(B& block, Shared& verdict, bool& done, std::uint64_t& cut,
                                           std::uint64_t& last, bool sync_to_go_on = true) {
  block.Sync();
  std::uint64_t flag = 0;
  block.ForEachThread([&](Thread) {
    flag = verdict.Load(0);
    done = flag == 1;
    cut = verdict.Load(1);
    last = verdict.Load(2);
  });
  if (sync_to_go_on || flag != 0) block.Sync();
  return flag != 0;
}

// Walks row `src` and masks `dst` (the same entries at dst_base). walk and p are resolved
// (0 < p, or p = 0 with kExclusive). st: the softmax of src. 1 <= limit <= n_finite (with a
// scratch and a descending walk n_finite may be V: the visit ends at the last finite entry).
// With a scratch (2 x vocab u64 from scratch_base, gpu/block/radix_partition.cuh) the order is
// visited through the radix partition (a bounded number of reads of the row); without one,
// chunk by chunk (a radix select and a gather per 1024 entries).
template <class B, class Arr, class S = NoScratch>
SAMPCHECK_KERNEL_BODY void TopPWalkRow(B& block, Arr src, std::int64_t src_base, Arr dst, std::int64_t dst_base,
                                       std::int64_t vocab, TopPWalk walk, float p, SoftmaxStats st, std::int64_t limit,
                                       std::int64_t n_finite, S scratch = {}, std::int64_t scratch_base = 0) {
  auto sorted = PartitionChunk(block);  // shared with the partition path
  SAMPCHECK_SHARED(block, std::uint64_t, verdict, 3);  // done flag, cut key, last key walked
  const bool ascending = walk == TopPWalk::kVllmAscending;
  const float threshold = 1.0f - p;  // vLLM's f32(1 - p)
  const std::int64_t start = ascending ? vocab - n_finite : 0;
  const std::int64_t end = ascending ? vocab : limit;
  bool done = false;
  std::uint64_t cut = 0;
  std::uint64_t last = 0;  // the last key walked
  auto state = Registers<TopPWalkState>(block);
  const TopPWalkRule rule{walk, p, threshold, end - start, vocab};  // positions count from `start`
  // The keys hold the value (ValueOfDescendingKey; an ascending key's value word is the
  // descending one's complement; -0.0 comes back as +0.0, whose x - M and probability are the
  // same bits), so the walk reads no row (vLLM's ascending walk read each value until
  // 2026-11-30).
  auto prob_of_key = [&](std::uint64_t key) {
    return st.Prob(ValueOfDescendingKey(ascending ? key ^ (std::uint64_t{0xffffffffu} << 32) : key));
  };
  // Thread 0 walks sorted[0 .. m), the next m keys of the order, up to position `end`; returns
  // true when the walk is over (a prefix rule's first drop, or position `end` reached).
  auto walk_chunk = [&](std::uint32_t m, auto&& key_of) {
    block.ForEachThread([&](Thread t) {
      if (t.x != 0) return;
      TopPWalkState s = state[t];
      bool stop = false;
      std::uint64_t stop_cut = 0, seen = verdict.Load(2);
      for (std::uint32_t j = 0; j < m && !stop && s.position < rule.total; ++j) {
        const std::uint64_t key = key_of(j);
        ++s.position;
        seen = key;
        if (TopPWalkStep(s, rule, key, prob_of_key(key), stop, stop_cut)) {
          dst.Store(dst_base + static_cast<std::int64_t>(key & 0xffffffffu), NegativeInfinity());
        }
      }
      state[t] = s;
      verdict.Store(0, stop ? 1u : (s.position >= rule.total ? 2u : 0u));
      verdict.Store(1, stop ? stop_cut : 0u);
      verdict.Store(2, seen);
    });
    return ReadWalkVerdict(block, verdict, done, cut, last);
  };
  block.ForEachThread([&](Thread t) {
    if (t.x == 0) verdict.Store(2, 0);
  });
  block.Sync();
  if constexpr (std::is_same_v<S, NoScratch>) {
    bool has_lo = ascending;
    std::uint64_t lo = ascending ? kLastNegInfAscending : 0;
    std::int64_t consumed = start;
    for (;;) {
      const std::int64_t n = end - consumed > kCandidates ? consumed + kCandidates : end;
      std::uint64_t hi;
      if (!ascending && n == n_finite) {
        hi = kLastFiniteDescending;  // every finite entry
      } else if (ascending && n == vocab) {
        hi = kNoKey;
      } else {
        hi = SelectKth(block, src, src_base, vocab, ascending, n);
      }
      const std::uint32_t m = CollectSorted(block, src, src_base, vocab, ascending, has_lo, lo, hi, sorted);
      const bool over = walk_chunk(m, [&](std::uint32_t j) { return sorted.Load(j); });
      consumed = n;
      lo = hi;
      has_lo = true;
      if (over || n == end) break;
    }
  } else {
    // Every finite entry, in order, as probabilities placed beside the walk (radix_partition.cuh
    // "Chunk loop": one barrier per chunk); the walk stops the visit at its end. Its positions
    // are the cut's identity (the loop finds the key), and kSglang marks the positions it drops,
    // written -inf by the threads holding their keys (a chunk without a drop stores and reads
    // no marks).
    std::int64_t walked = 0;  // block-level: the same in every thread
    auto walk_weights = [&](std::uint32_t m, auto words, auto marks) {
      return TopPWalkChunk(block, state, m, words, rule, marks, walked);
    };
    auto finish_walk = [&](bool stopped, std::uint64_t key) {
      done = stopped;
      cut = stopped ? key : 0u;
      last = key;
    };
    auto drop = [&](Thread, std::uint64_t key, std::uint64_t) {
      dst.Store(dst_base + static_cast<std::int64_t>(key & 0xffffffffu), NegativeInfinity());
    };
    // The prefix rules' chunks after the first are walked unsorted where their sum allows it
    // (TopPWalkChunkAnyOrder).
    auto any_order = [&](std::uint32_t m, auto words, auto parts) {
      return TopPWalkChunkAnyOrder(block, state, m, words, rule, parts);
    };
    const bool prefix = walk == TopPWalk::kExclusive || walk == TopPWalk::kTieGroup;
    VisitKeysInOrder(block, src, src_base, vocab, ascending, ascending, kLastNegInfAscending,
                     ascending ? kNoKey : kLastFiniteDescending, scratch, scratch_base, sorted,
                     WeightedVisit<decltype(walk_chunk), decltype(prob_of_key), decltype(walk_weights),
                                   decltype(finish_walk), decltype(drop), AnyOrderWalk<decltype(any_order)>>{
                         walk_chunk, prob_of_key, walk_weights, finish_walk, drop,
                         {prefix, any_order, AnyOrderGridBelow(rule.p)}});
  }
  if (walk == TopPWalk::kSglang) return;  // dropped one by one; beyond `limit`: top_k's -inf
  if (!done) cut = last;                  // walked to the end keeping every position
  block.ForEachThread([&](Thread t) {
    ForEachLaneEntry<kLaneSumGroup>(
        t.x, vocab, kCanonicalLanes, [&](std::int64_t i) { return src.Load(src_base + i); },
        [&](std::int64_t i, float x) {
          const std::uint64_t key = OrderKey(x, i, ascending);
          if (ascending ? key < cut : key > cut) dst.Store(dst_base + i, NegativeInfinity());
        });
  });
  block.Sync();
}

// Resolves a profile's walk at this p: false when the row is left as it is (p >= 1).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool ResolveTopP(TopPWalk rule, float p, TopPWalk& walk, float& q) {
  walk = rule;
  q = p;
  if (rule == TopPWalk::kSglang) {
    if (!(p > 0.0f)) walk = TopPWalk::kExclusive, q = 0.0f;  // SGLang rejects p <= 0: the first token
    return true;
  }
  if (p >= 1.0f) return false;
  if (p > 0.0f) return true;
  if (rule == TopPWalk::kTieGroup) {
    q = 0x1p-149f;  // the first tie group: E = 0 < the smallest subnormal
  } else {
    walk = TopPWalk::kExclusive, q = 0.0f;
  }
  return true;
}

// TopPRow: src and dst hold the same row (dst may be src); src is read, dst masked.
template <class B, class Arr, class S = NoScratch>
SAMPCHECK_KERNEL_BODY void TopPStep(B& block, Arr src, std::int64_t src_base, Arr dst, std::int64_t dst_base,
                                    std::int64_t vocab, float p, TopPWalk rule, S scratch = {},
                                    std::int64_t scratch_base = 0) {
  TopPWalk walk;
  float q;
  if (!ResolveTopP(rule, p, walk, q)) return;
  // The partition counts the finite entries itself (and visits none on a row without one):
  // only the chunked walk and vLLM's ascending start need their number.
  const bool counted = std::is_same_v<S, NoScratch> || walk == TopPWalk::kVllmAscending;
  const std::int64_t n_finite = counted ? CountFinite(block, src, src_base, vocab) : vocab;
  if (n_finite == 0) return;
  const SoftmaxStats st = RowSoftmaxStats(block, src, src_base, vocab);
  TopPWalkRow(block, src, src_base, dst, dst_base, vocab, walk, q, st, n_finite, n_finite, scratch, scratch_base);
}

struct TopPKernel {
  static constexpr const char* kName = "top_p";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class Arr, class P>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, Arr logits, Arr out, P top_p, std::int64_t vocab, std::int64_t pitch,
                                        TopPWalk rule, DegenerateRowRule degenerate) const {
    const std::int64_t row = block.index();
    const float p = top_p.Load(row);
    if (CopyRowFindingDegenerate(block, logits, row * pitch, out, row * vocab, vocab)) {
      return DegenerateSoftmaxFilterStep(block, out, row * vocab, vocab, p < 1.0f, degenerate);  // p >= 1: disabled
    }
    // The walk reads the input row and masks out (kSglang writes out while it walks).
    TopPStep(block, logits, row * pitch, out, row * vocab, vocab, p, rule);
  }
};

}  // namespace sampcheck::gpu
