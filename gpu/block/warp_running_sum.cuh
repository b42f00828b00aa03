// SPDX-License-Identifier: Apache-2.0
#pragma once
// The f32 running sum E_{j+1} = E_j + w_j (one rounded addition a position, in order) over the
// positions of a walk, computed by the 32 lanes of warp 0 at once with the bits of the
// sequential sum (docs/gpu.md "The running sum by warps"): top-p's E_j (docs/spec/filters.md
// "Arithmetic") up to the first position its walk may not keep (gpu/kernels/top_p.cuh
// TopPWalkChunk), which thread 0 added one after another before.
//
// Why it is exact (the grid):
// - Let E be a finite float >= +0 and g = max(biased exponent of E, 1). Every float in
//   [0, 2^24 u), u = 2^(g - 150), is a multiple of u (for g = 1 the subnormals and the first
//   binade share u), and E = n u with n = E's significand (its hidden bit included) < 2^24:
//   GridOf. The bits of n u are ((g - 1) << 23) + n (GridFloat).
// - For w a finite float >= +0, w / u = q + f exactly (q an integer, 0 <= f < 1: w's
//   significand shifted by its exponent minus g, GridStepOf). While n + q <= 2^24 - 2 the exact
//   sum E + w = (n + q + f) u lies below 2^24 u, where the floats are the multiples of u, so
//   round-to-nearest-even gives n' = n + d with d = q + [f > 1/2] + [f = 1/2 and n + q odd]
//   (the even significand on a tie), and n' <= 2^24 - 1 stays on the grid. A position adds an
//   integer that depends on n only through its parity: a map (d0, d1) of the two parities.
//   Maps compose in order (Compose: "a then b" adds a's d, then b's at the parity a leaves),
//   an associative rule, so a warp scan of its lanes' composed maps gives every lane its n at
//   once, and the sum over a run of positions is n + D(n's parity): exact, integer work.
// - A position whose n + q >= 2^24 - 1 (its sum may reach the next binade), or whose E or w is
//   not a finite float >= +0 (-0.0 included), is off the grid: it is added by the f32 addition
//   itself (E + w), and the positions after it start a new round on the grid of the new E. A
//   sorted walk leaves a binade at most once per doubling of E: a chunk of 1024 descending
//   weights after the first adds at most the sum before it, so it leaves one binade at most
//   (two rounds cover it); the first, from E = 0, leaves up to 11 (position 0 and 10
//   doublings: the first chunk's E_1024 <= 1024 w_0).
// - On the grid E only grows, so "E_j is not below a bound" holds from one position on: a lane
//   finds it in its run from the run's first and last n alone, and E_j >= bound is
//   n_j >= ceil(bound / u) (GridCeil).
//
// Contract (WarpRunningSum, block-level code, no barrier, no shared store):
// - In each lane of warp 0: `count` <= 2048 positions of a walk (the same in every lane of warp
//   0; a run of at most 66 positions of q < 2^24 each sums below 2^31 in GridRunMap), whose
//   weights `words.Load(i)` holds two to a 64-bit word (positions 2i and 2i + 1, low half
//   first, as FloatWords: the chunk loop's layout, gpu/block/radix_partition.cuh), and `sum`, E
//   before position 0 (the same in every lane). Other warps: count 0 (nothing is done for them).
//   `rounds` and `bound`: the same in every thread (block-level values).
// - The sum stops before the first position j whose E_j (the sum before it) is not below
//   `bound` (!(E_j < bound): a prefix walk's first position that may not be kept; +inf: never).
// - `rounds` rounds, a number the block knows (its control flow cannot depend on warp 0's
//   data): each splits the positions left (with `windowed`, at most max(kWindow, done) of them:
//   a first chunk from E = 0 leaves a binade about once per doubling of E, early in the chunk,
//   so a round over every position left would read them all to find one such event) into 32
//   runs of an even length, one a lane
//   (contiguous, in order); each lane composes its run's maps (GridRunMap: reading each word
//   once, and again for a run with a tie or a weight above E's binade); an xor butterfly
//   composes the lanes' maps in lane order (each lane's exclusive prefix and the warp's total);
//   a lane whose run ends at or past the grid's edge or the bound's ceiling (n + q at a
//   position, and n there, are at most the n after the run) reads its run again for its first
//   event (GridRunFirstEvent: a position whose E is not below the bound, or that leaves the
//   grid), and a WarpMin gives the warp the first. Then every lane of warp 0 takes E after the
//   round: the total's n when there is no event (done: the round's end); at a stop, E there, and `count` becomes that
//   position; else E at the position off the grid, n u, plus its weight by one f32 addition
//   (one more read), the round ending after it.
// - On return, in each lane of warp 0: `done` the positions summed (at most `count`; fewer
//   when the bound stopped the sum, then done = count = that position, or when more than
//   rounds - 1 positions left the grid, or the windows did not reach count) and `sum` E after
//   them, the bits of done sequential f32 additions from the `sum` given, whatever the weights
//   (NaN, infinities, negatives and -0.0 are added by the f32 addition: off the grid). The
//   caller adds positions done .. count - 1 itself.
// - Reads a lane in a round with no event and no tie: its run's words (at most
//   ceil(ceil(left / 32) / 2) + 1), no second read; shuffles: 5 (the butterfly, 64-bit words) +
//   5 (WarpMin) a round, in every warp the caller runs it in (TopPWalkChunk: warp 0 alone,
//   by ForWarps, gpu/block/block_model.h).
// Example: E = 1, weights 2^-24 (a tie: 1 + 2^-24 is halfway between 1 and 1 + 2^-23; 1's
//   significand is even, so E stays 1) then 2^-23 (on the grid: 1 + 2^-23, odd) then 2^-24 (a
//   tie again, now to 1 + 2^-22, even): the maps (0, 1), (1, 1), (0, 1) compose to (2, 3)
//   from n = 2^23 (even): n + 2, E = 1 + 2^-22, as three f32 additions give
//   (tests/gpu_warp_running_sum_test.cc).

#include <cstdint>
#include <type_traits>

#include "gpu/block/block_model.h"
#include "gpu/block/float_word.cuh"
#include "gpu/block/warp_min.cuh"

namespace sampcheck::gpu {

namespace running_sum_detail {

// Integers past every n of a grid (< 2^24) stay saturated there, so that a sum of maps never
// wraps: 2^30 + 2^30 fits in 32 bits before the minimum.
inline constexpr std::uint32_t kGridCap = 1u << 30;
// A position with n + q at or past this may leave the grid (n' <= n + q + 1 <= 2^24 - 1 below it).
inline constexpr std::uint32_t kGridEdge = (1u << 24) - 1;
// No position off the grid (WarpMin's identity).
inline constexpr std::uint64_t kOnGrid = ~std::uint64_t{0};
// A windowed round's fewest positions (WarpRunningSum).
inline constexpr std::uint32_t kWindow = 64;

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t FloatBits(float x) {
  return static_cast<std::uint32_t>(FloatWord(x));
}

// E's grid: g (0 when E is not a finite float >= +0: no position is on its grid) and n.
struct Grid {
  std::uint32_t g;
  std::uint32_t n;
};
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE Grid GridOf(float e) {
  const std::uint32_t bits = FloatBits(e);
  const std::uint32_t biased = (bits >> 23) & 0xffu;
  if ((bits >> 31) != 0 || biased == 0xffu) return Grid{0, 0};
  const std::uint32_t g = biased > 1 ? biased : 1u;
  return Grid{g, bits - ((g - 1) << 23)};
}
// n u on grid g (n < 2^24).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float GridFloat(std::uint32_t g, std::uint32_t n) {
  return WordFloat(((g - 1) << 23) + n);
}

// A position's map on grid g: d[parity of n] and q (kGridCap when w is off every grid: the
// position always leaves it).
struct GridStep {
  std::uint32_t d0, d1, q;
};
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE GridStep GridStepOf(float w, std::uint32_t g) {
  const std::uint32_t bits = FloatBits(w);
  const std::uint32_t biased = (bits >> 23) & 0xffu;
  if (g == 0 || (bits >> 31) != 0 || biased == 0xffu) return GridStep{kGridCap, kGridCap, kGridCap};
  const std::uint32_t m = biased > 0 ? (bits & 0x7fffffu) | 0x800000u : bits;  // w = m 2^(e - 150)
  const int shift = static_cast<int>(biased > 1 ? biased : 1u) - static_cast<int>(g);
  std::uint32_t q = 0;
  bool up = false, tie = false;
  if (shift >= 7) {
    q = kGridCap;  // m 2^7 >= 2^30 once m >= 2^23; below that, still past the grid's edge
  } else if (shift >= 0) {
    q = m << shift;
  } else if (shift > -25) {  // f = (m mod 2^r) / 2^r, r = -shift <= 24
    const int r = -shift;
    q = m >> r;
    const std::uint32_t rest = m & ((1u << r) - 1u), half = 1u << (r - 1);
    up = rest > half;
    tie = rest == half;
  }  // r >= 25: m < 2^24 <= 2^(r - 1), so q = 0 and f < 1/2
  const std::uint32_t d = q + (up ? 1u : 0u);
  const std::uint32_t odd = tie ? 1u : 0u;  // with n + q odd, a tie rounds up
  // n even: n + q odd iff q odd; n odd: iff q even.
  return GridStep{d + (odd & q), d + (odd & ~q), q};
}

// The smallest n whose n u is not below `bound` on grid g (g != 0): !(n u < bound) iff n >= it;
// kGridCap when no n of the grid reaches it (+inf, a bound at or past 2^24 u), 0 for bound <= 0
// or NaN (every E is "not below" those).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t GridCeil(float bound, std::uint32_t g) {
  if (!(bound > 0.0f)) return 0;
  const std::uint32_t bits = FloatBits(bound);
  const std::uint32_t biased = (bits >> 23) & 0xffu;
  const std::uint32_t e = biased > 1 ? biased : 1u;
  if (biased == 0xffu || e > g) return kGridCap;
  const std::uint32_t m = biased > 0 ? (bits & 0x7fffffu) | 0x800000u : bits;
  const std::uint32_t r = g - e < 31u ? g - e : 31u;  // bound / u = m / 2^r (m < 2^24: r = 31 gives 0 + 1)
  return (m >> r) + ((m & ((1u << r) - 1u)) != 0 ? 1u : 0u);
}
// A map of the two parities as one 64-bit word: d0 | d1 << 32.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t MapWord(std::uint32_t d0, std::uint32_t d1) {
  return static_cast<std::uint64_t>(d0) | static_cast<std::uint64_t>(d1) << 32;
}
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t MapAt(std::uint64_t map, std::uint32_t parity) {
  return static_cast<std::uint32_t>(parity != 0 ? map >> 32 : map);
}
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t Saturated(std::uint32_t x) {
  return x < kGridCap ? x : kGridCap;
}
// "a then b": from parity p, a adds a_p, then b adds b at the parity a leaves.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t Compose(std::uint64_t a, std::uint64_t b) {
  const std::uint32_t a0 = MapAt(a, 0), a1 = MapAt(a, 1);
  return MapWord(Saturated(a0 + MapAt(b, a0 & 1u)), Saturated(a1 + MapAt(b, (1u + a1) & 1u)));
}
// n after a map (n < 2^24, the map's values at most kGridCap: no wrap).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t Apply(std::uint64_t map, std::uint32_t n) {
  return n + MapAt(map, n & 1u);
}

// Position j's weight from the words (two a word, low half first), reading word j / 2 when
// `word` does not hold it already (at the run's start and at every even position).
template <class Words>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float WeightAt(const Words& words, std::uint32_t j, bool fresh,
                                                           std::uint64_t& word) {
  if (fresh || j % 2 == 0) word = words.Load(j / 2);
  return WordFloat(j % 2 == 0 ? word : word >> 32);
}

// A position's step on grid g when its d does not depend on n's parity, from w's bits `bits`:
// d = q + [f > 1/2]; `fits` when w is a finite float >= +0 at or below E's binade (g != 0),
// `tie` when f = 1/2 (then d = q, and the rounding adds one more at odd n + q).
struct PlainStep {
  std::uint32_t d;
  bool fits, tie;
};
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE PlainStep GridPlainStepOf(std::uint32_t bits, std::uint32_t g) {
  const std::uint32_t biased = (bits >> 23) & 0xffu;
  const std::uint32_t e = biased > 1 ? biased : 1u;
  const std::uint32_t m = biased > 0 ? (bits & 0x7fffffu) | 0x800000u : bits & 0x7fffffu;
  const std::uint32_t r = g >= e ? (g - e < 31u ? g - e : 31u) : 0u;  // w / u = m / 2^r
  const std::uint32_t rest = (m << (31 - r)) << 1;  // f as a 32-bit fraction (m < 2^24: r = 31 gives f < 1/2)
  return PlainStep{(m >> r) + (rest > 0x80000000u ? 1u : 0u), (bits >> 31) == 0 && biased != 0xffu && g >= e,
                   rest == 0x80000000u};
}

// A plain position (a finite weight >= +0 at or below E's binade, no tie): adds its d = q + [f >
// 1/2] to `sum`, the same at either parity; any other position clears `plain` (its addition to
// `sum` is then meaningless). w's bits `bits`, E's grid g.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void GridPlainStep(std::uint32_t bits, std::uint32_t g, std::uint32_t& sum,
                                                               bool& plain) {
  const PlainStep s = GridPlainStepOf(bits, g);
  sum += s.d;
  plain = plain && s.fits && !s.tie;
}

// A run's map: its positions' maps composed in order (lane work of WarpRunningSum). Out of
// line on the device, as top_p's walk (gpu/kernels/top_p.cuh TopPWalkWords), so that its loop
// has registers of its own in the 64-register filter kernels (tests/sass_loop_check.py GridRun).
//
// Most positions of a walk are at or below E's binade and no tie: their d is q + [f > 1/2] for
// either parity, and the run's map is a plain sum (a dozen integer instructions a position, no
// chain but the sum's addition). A run with a tie, a weight above E's binade or off every grid
// is composed again position by position (GridStepOf, Compose).
template <class Words>
SAMPCHECK_OUT_OF_LINE SAMPCHECK_KERNEL_BODY std::uint64_t GridRunMap(Words words, std::uint32_t lo, std::uint32_t hi,
                                                                    std::uint32_t g) {
  std::uint32_t sum = 0;
  bool plain = g != 0;
  std::uint64_t word = 0;
  for (std::uint32_t j = lo; j < hi; ++j) GridPlainStep(FloatBits(WeightAt(words, j, j == lo, word)), g, sum, plain);
  if (plain) return MapWord(Saturated(sum), Saturated(sum));
  std::uint64_t map = 0;
  for (std::uint32_t j = lo; j < hi; ++j) {
    const GridStep s = GridStepOf(WeightAt(words, j, j == lo, word), g);
    map = Compose(map, MapWord(s.d0, s.d1));
  }
  return map;
}

// An event of a round: the first position whose E (the sum before it) is not below the bound
// (the sum stops there) or that leaves the grid, as (position << 32 | kStopEvent if a stop | n
// there); kOnGrid for none. n < 2^31 (a saturated n at most kGridCap + 2^24).
inline constexpr std::uint64_t kStopEvent = std::uint64_t{1} << 31;
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t GridEvent(std::uint32_t j, bool stop, std::uint32_t n) {
  return static_cast<std::uint64_t>(j) << 32 | (stop ? kStopEvent : 0u) | n;
}

// The run's first event from n at lo (stop at n >= ceil, the bound's GridCeil), or kOnGrid.
template <class Words>
SAMPCHECK_OUT_OF_LINE SAMPCHECK_KERNEL_BODY std::uint64_t GridRunFirstEvent(Words words, std::uint32_t lo,
                                                                           std::uint32_t hi, std::uint32_t g,
                                                                           std::uint32_t n, std::uint32_t ceil) {
  std::uint64_t word = 0;
  for (std::uint32_t j = lo; j < hi; ++j) {
    if (n >= ceil) return GridEvent(j, true, n);
    const GridStep s = GridStepOf(WeightAt(words, j, j == lo, word), g);
    if (n >= kGridEdge || n + s.q >= kGridEdge) return GridEvent(j, false, n);
    n = Apply(MapWord(s.d0, s.d1), n);
  }
  return kOnGrid;
}

// f(bits) for a lane's positions of an any-order sum (WarpAnyOrderSum): positions 2i and 2i + 1
// of words i = lane, lane + 32, .. below `count`, one read a word.
template <class Words, class F>
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE void ForEachLanePosition(const Words& words, std::uint32_t lane,
                                                                      std::uint32_t count, F&& f) {
  for (std::uint32_t i = lane; 2 * i < count; i += kWarpSize) {
    const std::uint64_t word = words.Load(i);
    for (std::uint32_t h = 0; h < 2 && 2 * i + h < count; ++h) {
      f(static_cast<std::uint32_t>(h == 0 ? word : word >> 32));
    }
  }
}

// A lane's share of an any-order sum: `part` = (its smallest weight's bits << 32 | the sum of
// its positions' d, a tie's q included), the sum kGridCap when one does not fit E's grid
// (GridPlainStepOf); `tie` its largest tie weight's bits (0 for none: +0 is never a tie). Out of
// line on the device, as GridRunMap. At most 64 positions of q < 2^24 each: the sum stays below
// 2^30 before it is saturated.
struct AnyOrderLane {
  std::uint64_t part;
  std::uint32_t tie;
};
template <class Words>
SAMPCHECK_OUT_OF_LINE SAMPCHECK_KERNEL_BODY AnyOrderLane GridRunAnyOrder(Words words, std::uint32_t lane,
                                                                         std::uint32_t count, std::uint32_t g) {
  std::uint32_t sum = 0, least = 0x7f800000u, tie = 0;  // +inf's bits: above every finite weight's
  bool fits = g != 0;
  ForEachLanePosition(words, lane, count, [&](std::uint32_t bits) {
    const PlainStep s = GridPlainStepOf(bits, g);
    sum += s.d;
    fits = fits && s.fits;
    tie = s.tie && bits > tie ? bits : tie;
    least = bits < least ? bits : least;  // weights >= +0: their bits order as they do
  });
  return AnyOrderLane{static_cast<std::uint64_t>(least) << 32 | (fits ? Saturated(sum) : kGridCap), tie};
}

// A lane's share of one tie pass (its positions as GridRunAnyOrder's, every one on grid g): with
// `tie` a tie weight's bits and `upper` the next larger tie weight's (+inf's above the largest),
// (next << 32 | number << 1 | parity): the parity of the sum of d over the weights strictly
// between them (none of them a tie), the number of positions of weight `tie`, and `next` the
// largest tie weight below `tie` (0: none). Out of line, as GridRunAnyOrder.
template <class Words>
SAMPCHECK_OUT_OF_LINE SAMPCHECK_KERNEL_BODY std::uint64_t GridRunTiePass(Words words, std::uint32_t lane,
                                                                      std::uint32_t count, std::uint32_t g,
                                                                      std::uint32_t upper, std::uint32_t tie) {
  std::uint32_t parity = 0, number = 0, next = 0;
  ForEachLanePosition(words, lane, count, [&](std::uint32_t bits) {
    const PlainStep s = GridPlainStepOf(bits, g);
    parity ^= bits > tie && bits < upper ? s.d & 1u : 0u;
    number += bits == tie ? 1u : 0u;
    next = s.tie && bits < tie && bits > next ? bits : next;
  });
  return static_cast<std::uint64_t>(next) << 32 | number << 1 | parity;
}

// A position's any-order part on grid g (AnyOrderParts), from its weight's bits: GridRunAnyOrder's
// part of that one position (its bits << 32 | d; kGridCap for d when it does not fit E's grid),
// with kAnyOrderTieFlag set for a tie (f = 1/2: d is then q). kAnyOrderNoPart, a slot without a
// position, is the identity of CombineAnyOrderParts.
inline constexpr std::uint32_t kAnyOrderTieFlag = 1u << 31;
inline constexpr std::uint64_t kAnyOrderNoPart = std::uint64_t{0x7f800000u} << 32;  // +inf's bits, d 0
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t AnyOrderPositionPart(std::uint32_t bits, std::uint32_t g) {
  const PlainStep s = GridPlainStepOf(bits, g);
  return static_cast<std::uint64_t>(bits) << 32 | (s.fits ? s.d : kGridCap) | (s.tie ? kAnyOrderTieFlag : 0u);  // g = 0: no fit
}
// Two parts as one: the smaller weight's bits, the saturated sum of d (each at most kGridCap:
// no wrap), either's tie flag. Associative and commutative, so any grouping of the positions
// gives the same part.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t CombineAnyOrderParts(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t least = (a >> 32) < (b >> 32) ? a >> 32 : b >> 32;
  const auto da = static_cast<std::uint32_t>(a), db = static_cast<std::uint32_t>(b);
  return least << 32 | ((da | db) & kAnyOrderTieFlag) |
         Saturated((da & ~kAnyOrderTieFlag) + (db & ~kAnyOrderTieFlag));
}

}  // namespace running_sum_detail

// An any-order sum's positions summed ahead by the warps that hold them (WarpAnyOrderSum's
// `parts`, StoreAnyOrderParts): Load(w), w < 32, is the part of the positions warp w held on
// grid g (0: none given), at words.Load(at + w).
template <class View>
struct AnyOrderParts {
  View words;
  std::int64_t at = 0;
  std::uint32_t g = 0;
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t Load(int w) const { return words.Load(at + w); }
};
struct NoAnyOrderParts {};

// The grid an E below `bound` (WarpAnyOrderSum's) ends its walk on: the largest float below the
// bound's (0 for a bound <= 0 or NaN). A long walk spends most of its chunks there (E doubles
// once per binade before it), so it is the grid the parts are summed on ahead.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint32_t AnyOrderGridBelow(float bound) {
  using namespace running_sum_detail;
  return bound > 0.0f ? GridOf(WordFloat(FloatBits(bound) - 1u)).g : 0u;
}

// Contract (StoreAnyOrderParts, block-level code, no barrier): position(t, bits) is true when
// thread t holds a position, and then sets `bits` to its weight's bits; each warp's lane 0
// stores the warp's part on grid g (an xor butterfly of 5 shuffles), parts.words.Store(parts.at
// + warp, ..): one store a warp, every warp (a warp without a position stores the identity).
template <class B, class Position, class View>
SAMPCHECK_KERNEL_BODY void StoreAnyOrderParts(B& block, Position position, const AnyOrderParts<View>& parts) {
  using namespace running_sum_detail;
  auto part = Registers<std::uint64_t>(block);
  block.ForEachThread([&](Thread t) {
    std::uint32_t bits = 0;
    part[t] = position(t, bits) ? AnyOrderPositionPart(bits, parts.g) : kAnyOrderNoPart;
  });
  WarpAllReduce(block, part, CombineAnyOrderParts);
  block.ForEachThread([&](Thread t) {
    if (t.lane() == 0) parts.words.Store(parts.at + t.warp(), part[t]);
  });
}

// The distinct tie weights an any-order sum resolves (one pass over the words each); a chunk with
// more is left to the sorted walk. Over the cost table's 64-row cases (2026-12-02), 70% of the
// chunks that held ties held one tie position, 20% two, 10% three or more; with 3 passes, 6 of
// top-p 0.999's 4094 chunks after the first are sorted for their ties.
inline constexpr int kAnyOrderTiePasses = 3;

// Contract (WarpAnyOrderSum, block-level code, no barrier, no shared store): in each lane of
// warp 0, `count` <= 2048 positions of a walk whose weights do not increase along it, held in
// `words` in any order (WarpRunningSum's layout; other warps: count 0), and `sum`, E before
// them, both the same in every lane. Wanted: the sequential sum along the walk (equal weights
// are the same bits, so every non-increasing order of them gives it).
// - When E is on a grid (a finite float >= +0) and every weight is a finite float >= +0 at or
//   below E's binade, a position whose fraction f is not 1/2 adds d = q + [f > 1/2] at either
//   parity of n. A tie (f = 1/2) adds q + [n + q odd], which leaves n even. So with t_1 > t_2 >
//   .. the distinct tie weights and S_i the sum of d over the weights strictly between t_i and
//   t_(i + 1) (S_0: above t_1), the first tie of weight t_1 adds q_1 + [n + S_0 + q_1 odd], the
//   first of t_i (i > 1) q_i + [S_(i - 1) + q_i odd] (n is even after the ties before), and every
//   later one of t_i q_i + [q_i odd]: the order matters only through which weights lie between
//   the tie weights, and the walk's order puts them there by their value. One pass over the words
//   per distinct tie weight (at most kAnyOrderTiePasses; GridRunTiePass) gives S_(i - 1)'s parity,
//   t_i's count and t_(i + 1); without a tie the positions add the same D in every order.
// - When moreover n + D (D: all of the positions' units) is below the grid's edge and below the
//   bound's ceiling, every partial sum along the walk is on the grid and below `bound`.
// Then `added` becomes `count`, `sum` E after every position (the bits of the sequential sum
// along the walk) and `smallest` the smallest weight. Otherwise (or count 0) `added` is 0 and
// `sum` and `smallest` are left as they were. Reads: ceil(count / 64) words a lane (lane l: words
// l, l + 32, ..), as many again per distinct tie weight; xor butterflies of 5 shuffles (two for
// the sums, one per tie pass), in every warp.
// - `parts` (AnyOrderParts, optional): the parts of exactly these `count` positions, summed
//   ahead by the warps that held them (StoreAnyOrderParts). When their grid is E's, lane l
//   reads warp l's part (one read a lane) instead of its words: the same part, the positions
//   grouped otherwise (CombineAnyOrderParts). When a part holds a tie, the lanes read their
//   words as without parts (the tie passes need the tie weights), then the tie passes: one read
//   more than without parts. Two more butterflies a call.
// Example: E = 0.5 (u = 2^-24, n = 2^23), weights 3 x 2^-26, 2^-24 + 2^-26 and 2^-23 + 3 x
//   2^-26 (q + f = 3/4, 1 + 1/4, 2 + 3/4: d = 1, 1, 3), D = 5 in every order: E = 0.5 + 5 x
//   2^-24. With 2^-25 (f = 1/2, a tie, the smallest: last along the walk) among them, n + 5 is
//   odd before it: it adds 1, E = 0.5 + 6 x 2^-24; without the 3 x 2^-26, n + 4 is even: it adds
//   0 (tests/gpu_warp_running_sum_test.cc).
template <class B, class R, class C, class Words, class Parts = NoAnyOrderParts>
SAMPCHECK_KERNEL_BODY void WarpAnyOrderSum(B& block, R& sum, const C& count, C& added, R& smallest, Words words,
                                           float bound, const Parts& parts = {}) {
  using namespace running_sum_detail;
  constexpr bool kParts = !std::is_same_v<Parts, NoAnyOrderParts>;
  auto part = Registers<std::uint64_t>(block);  // smallest bits << 32 | saturated D
  auto tie = Registers<std::uint32_t>(block);   // the largest tie weight's bits, then t_i's
  auto from_parts = [&](Thread t) {
    if constexpr (kParts) {
      return count[t] > 0 && parts.g != 0 && parts.g == GridOf(sum[t]).g;
    } else {
      return false;
    }
  };
  auto from_words = [&](Thread t) {
    const AnyOrderLane lane = count[t] > 0
                                  ? GridRunAnyOrder(words, static_cast<std::uint32_t>(t.lane()), count[t],
                                                    GridOf(sum[t]).g)
                                  : AnyOrderLane{kAnyOrderNoPart, 0u};
    part[t] = lane.part;
    tie[t] = lane.tie;
  };
  auto max = [](std::uint32_t a, std::uint32_t b) { return a > b ? a : b; };
  block.ForEachThread([&](Thread t) {
    if constexpr (kParts) {
      if (from_parts(t)) {
        part[t] = parts.Load(t.lane());
        tie[t] = 0;
        return;
      }
    }
    from_words(t);
  });
  WarpAllReduce(block, part, CombineAnyOrderParts);
  WarpAllReduce(block, tie, max);
  if constexpr (kParts) {
    // A part with a tie: the words as without parts. Elsewhere lane 0 alone keeps the warp's
    // part (the others the identity), which the reductions give back.
    block.ForEachThread([&](Thread t) {
      if (from_parts(t) && (static_cast<std::uint32_t>(part[t]) & kAnyOrderTieFlag) != 0) {
        from_words(t);
      } else if (t.lane() != 0) {
        part[t] = kAnyOrderNoPart;
        tie[t] = 0;
      }
    });
    WarpAllReduce(block, part, CombineAnyOrderParts);
    WarpAllReduce(block, tie, max);
  }
  // The tie passes: t_i in `tie`, t_(i - 1) in `upper`; `extra` the units the ties add past
  // their q (which `part` holds); `parity` n's before the next segment (E's at first).
  auto upper = Registers<std::uint32_t>(block);
  auto extra = Registers<std::uint32_t>(block);
  auto pass = Registers<std::uint64_t>(block);
  block.ForEachThread([&](Thread t) {
    upper[t] = 0x7f800000u;
    extra[t] = 0;
  });
  for (int i = 0; i < kAnyOrderTiePasses; ++i) {
    block.ForEachThread([&](Thread t) {
      const bool fits = static_cast<std::uint32_t>(part[t]) < kGridCap;  // else nothing is added: no pass
      pass[t] = count[t] > 0 && fits && tie[t] != 0 ? GridRunTiePass(words, static_cast<std::uint32_t>(t.lane()),
                                                                     count[t], GridOf(sum[t]).g, upper[t], tie[t])
                                                    : 0u;
    });
    WarpAllReduce(block, pass, [](std::uint64_t a, std::uint64_t b) {
      const std::uint64_t next = (a >> 32) > (b >> 32) ? a >> 32 : b >> 32;
      const std::uint32_t lo = (static_cast<std::uint32_t>(a) >> 1) + (static_cast<std::uint32_t>(b) >> 1);
      return next << 32 | lo << 1 | ((a ^ b) & 1u);
    });
    block.ForEachThread([&](Thread t) {
      if (tie[t] == 0 || static_cast<std::uint32_t>(part[t]) >= kGridCap) return;
      const std::uint32_t g = GridOf(sum[t]).g;
      const std::uint32_t q = GridPlainStepOf(tie[t], g).d;  // a tie's d is its q
      const std::uint32_t number = static_cast<std::uint32_t>(pass[t]) >> 1;
      const std::uint32_t before = (i == 0 ? GridOf(sum[t]).n : 0u) + (static_cast<std::uint32_t>(pass[t]) & 1u);
      extra[t] += ((before + q) & 1u) + (number - 1) * (q & 1u);
      upper[t] = tie[t];
      tie[t] = static_cast<std::uint32_t>(pass[t] >> 32);
    });
  }
  block.ForEachThread([&](Thread t) {
    added[t] = 0;
    const Grid grid = GridOf(sum[t]);
    const std::uint32_t d = static_cast<std::uint32_t>(part[t]);  // saturated: at most 2^30
    if (count[t] == 0 || grid.g == 0 || d >= kGridCap || tie[t] != 0) return;
    const std::uint32_t n = grid.n + d + extra[t];
    if (n >= kGridEdge || n >= GridCeil(bound, grid.g)) return;
    sum[t] = GridFloat(grid.g, n);
    smallest[t] = WordFloat(part[t] >> 32);
    added[t] = count[t];
  });
}

template <class B, class R, class C, class Words>
SAMPCHECK_KERNEL_BODY void WarpRunningSum(B& block, R& sum, C& count, C& done, Words words, int rounds, float bound,
                                          bool windowed = false) {
  using namespace running_sum_detail;
  block.ForEachThread([&](Thread t) { done[t] = 0; });
  for (int round = 0; round < rounds; ++round) {
    auto own = Registers<std::uint64_t>(block);      // the lane's run's map
    auto total = Registers<std::uint64_t>(block);    // then the warp's (the butterfly)
    auto before = Registers<std::uint64_t>(block);   // the maps of the lanes below
    // The round's positions: those left, or with `windowed` at most max(kWindow, done) of
    // them; split in 32 runs of an even length, in lane order.
    auto end_of = [&](Thread t) {
      const std::uint32_t left = count[t] - done[t];
      const std::uint32_t window = done[t] > kWindow ? done[t] : kWindow;
      return windowed && left > window ? done[t] + window : count[t];
    };
    auto run_of = [&](Thread t, std::uint32_t& lo, std::uint32_t& hi) {
      const std::uint32_t end = end_of(t);
      const std::uint32_t left = end - done[t];
      const std::uint32_t per = ((left + kWarpSize - 1) / kWarpSize + 1) & ~1u;
      const std::uint32_t from = done[t] + static_cast<std::uint32_t>(t.lane()) * per;
      lo = from < end ? from : end;
      hi = end - lo > per ? lo + per : end;
    };
    block.ForEachThread([&](Thread t) {
      std::uint32_t lo = 0, hi = 0;
      run_of(t, lo, hi);
      const std::uint64_t map = lo < hi ? GridRunMap(words, lo, hi, GridOf(sum[t]).g) : 0u;
      own[t] = map;
      total[t] = map;
      before[t] = 0;
    });
    for (int m = 1; m < kWarpSize; m *= 2) {  // in lane order: the lower group's map first
      auto other = ShuffleXor(block, total, m);
      block.ForEachThread([&](Thread t) {
        if ((t.lane() & m) != 0) {
          before[t] = Compose(other[t], before[t]);
          total[t] = Compose(other[t], total[t]);
        } else {
          total[t] = Compose(total[t], other[t]);
        }
      });
    }
    // Each lane's first event (GridEvent), or kOnGrid. A lane after the warp's first event may
    // hold a saturated n: it reports a later position (or none), so the warp's minimum is the
    // first.
    auto event = Registers<std::uint64_t>(block);
    block.ForEachThread([&](Thread t) {
      event[t] = kOnGrid;
      std::uint32_t lo = 0, hi = 0;
      run_of(t, lo, hi);
      if (lo == hi) return;
      const Grid grid = GridOf(sum[t]);
      if (grid.g == 0) {  // E off every grid: the round's first position, by the f32 comparison
        event[t] = GridEvent(lo, lo == done[t] && !(sum[t] < bound), 0);
        return;
      }
      const std::uint32_t n = Apply(before[t], grid.n), ceil = GridCeil(bound, grid.g);
      // Each position's d is at least its q and none is negative, so n + q at a position, and
      // its E, are at most the run's last n: below the edge and the bound's ceiling, the run has
      // no event and is not read again.
      const std::uint32_t last = n < kGridEdge ? Apply(own[t], n) : kGridEdge;
      if (last < kGridEdge && last < ceil) return;
      event[t] = GridRunFirstEvent(words, lo, hi, grid.g, n, ceil);
    });
    WarpMin(block, event);
    block.ForEachThread([&](Thread t) {
      if (done[t] == count[t]) return;
      const Grid grid = GridOf(sum[t]);
      if (event[t] == kOnGrid) {
        sum[t] = GridFloat(grid.g, Apply(total[t], grid.n));
        done[t] = end_of(t);
        return;
      }
      // E at the event's position; a stop ends the sum there, a position off the grid is added
      // by the f32 addition.
      const auto j = static_cast<std::uint32_t>(event[t] >> 32);
      const float e = grid.g == 0 ? sum[t] : GridFloat(grid.g, static_cast<std::uint32_t>(event[t]) & ~0x80000000u);
      if ((event[t] & kStopEvent) != 0) {
        sum[t] = e;
        done[t] = count[t] = j;
        return;
      }
      std::uint64_t word = 0;
      sum[t] = e + WeightAt(words, j, true, word);
      done[t] = j + 1;
    });
  }
}

}  // namespace sampcheck::gpu
