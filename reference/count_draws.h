// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reference backend's own randomness (Backend::CountDraws, distributional tier): many
// draws per row by an exponential race on counter-based noise, fast enough for the
// statistical harness (docs/spec/harness.md "Reference draws", docs/spec/count_draws.md;
// bench/draws_bench.cc).
//
// Contract:
// - Noise: draw d of row r uses, for the j-th token of the row's support in the draw order
//   (probability descending, then lower index), the word
//     w = StreamWord(kCountDraws, seed, j / 4, d, r, j % 4)   (reference/rng/streams.h)
//       = Philox4x32_10({j / 4, d, r, 0x5eed}, {seed lo, seed hi})[j % 4],
//   u = UniformClosedOpen24F32(w) in [0, 1 - 2^-24] and q = ExponentialNegLog1pNegF32(u) in
//   [+0, 24 ln2] (reference/rng/). Noise is keyed by position in the support, which is a
//   deterministic function of the probabilities, so the draws are i.i.d. Exp(1) races up to the
//   law's floor: P(q = +0) = 2^-24 per token (ratio +inf; ties at +inf go to the lower index)
//   and no q above 24 ln2 (mass e^-16.6 = 2^-24 truncated).
// - Winner: argmax over the support of the f32 ratio probs_i / q_i, ties to the lower token
//   index — exactly ExponentialRaceRow (canonical) applied to that q.
// - Skip rule: q >= u + u^2/2 (-log1p(-u) = u + u^2/2 + u^3/3 + ...; u + u^2/2 is exact in
//   double for a 24-bit u) and the f32 q is correctly rounded, so RN(p / q) <=
//   p (1 + 2^-24) / ((u + u^2/2)(1 - 2^-24)) and a token with (u + u^2/2) * lo >= p (1 + 2^-22)
//   (one rounding in double) cannot beat any ratio >= lo; lo is a lower bound of the best
//   ratio so far. A skipped token cannot beat any later best either (the best only grows).
// - Lazy ratios: the best's ratio is kept as a bracket lo <= ratio <= hi (both in double) and
//   its logarithm taken only when needed. For 0 < u <= 1/2, a = the series' terms k <= 6 and
//   a_hi = a + 2 u^7 / 7 (the rest is <= u^7 / (7 (1 - u))) bracket q; with the f32 roundings
//   of q and p / q (2^-24 each) and double's (about 2^-49 on a) inside a 2^-22 margin,
//   p (1 - 2^-22) / a_hi <= ratio <= p (1 + 2^-22) / a. A token certainly below the best
//   (p (1 + 2^-22) < lo a) is dropped and one certainly above (p (1 - 2^-22) > hi a_hi) taken,
//   by products alone; otherwise (or for u = 0, u > 1/2) both logarithms are taken and the
//   exact f32 ratios compared. The winner (largest f32 ratio, ties to the lower index) does not
//   depend on the order in which tokens are offered, so the result equals the naive loop's bit
//   for bit (tests/count_draws_test.cc); the skipped tokens' words are still drawn.
// - Paths (chosen at run time, or named for tests; each compared with the naive race): scalar
//   (one Philox block per 4 tokens); AVX2 + BMI2 (8 Philox blocks, 32 tokens, per call of
//   reference/rng/philox_lanes.h); AVX-512F (two sets of 16 blocks, 2 x 64 tokens, moved to
//   token order in registers). The vector paths test the skip rule in double lanes against the
//   best at the start of each group and offer the passing tokens in order to the scalar rule,
//   which re-tests them against the current best.
// - Many draws at once (DrawMany, the harness's path; docs/spec/count_draws.md gives the error
//   budget): lanes = draws. 16 (AVX-512F) or 8 (AVX2) consecutive draws share each Philox call
//   (counter {block, first + lane, row, 0x5eed}: word w of the call is token 4 block + w of
//   every lane's draw, no transposition). Per token, in f32 lanes and without a branch per
//   draw, a key A = RN(Qa(u) * RN(1 / p)) where Qa is NegLog1pNegApprox below (|Qa / Q - 1| <=
//   2^-15 for Q = -log1p(-u), every u checked); each lane keeps the least key a1 (its token)
//   and the second least a2. A lane with a2 > RN(a1 (1 + 2^-13)) has a certain winner: every
//   other f32 ratio is strictly below the winner's (the budget: Qa's 2^-15 twice and a few f32
//   roundings of 2^-24, count_draws.cc kBand); any other lane (ties, u = 0 twice, a near tie) is drawn again by the
//   per-draw path above, exactly. A token is skipped in all lanes at once when the lower bound
//   RN(u 2^24 * RN((1 / p) 2^-24 (1 - 2^-14))) <= its key is >= a2 in every lane: it could not
//   change a1 or a2.
// - Rows with a support probability outside [2^-100, 2^100], where f32 ratios can be
//   subnormal, round to 0 or overflow to +inf and tie, take every q and compare the f32 ratios
//   exactly (every path, one draw at a time): the relative bounds above need normal ratios.
// - Cost: the Philox blocks (one per 4 support tokens per draw). DrawMany adds per token and
//   16 draws one compare (the skip test) and, for the tokens not skipped, the key (about 25
//   vector operations); Draw adds the lane test and a few offers per draw (about ln(support)
//   tokens can still win); see bench/README.md.
// Example: probs {0.5, 0.5}: about half the draws go to each token.
#include <cstdint>
#include <span>
#include <vector>

#include "core/case.h"
#include "core/profile.h"
#include "reference/rng/philox_lanes.h"

namespace sampcheck::reference {

// A row prepared for many draws: its support in draw order.
class RaceRow {
 public:
  // Draws through the widest path the host runs (AVX-512F, AVX2, scalar).
  explicit RaceRow(std::span<const float> probs);
  // Draws through `isa`, which Runs(isa) must allow (tests compare every path).
  RaceRow(std::span<const float> probs, rng::PhiloxIsa isa);
  // Whether this host can draw through `isa` (the vector paths also need BMI2).
  static bool Runs(rng::PhiloxIsa isa);
  std::int64_t support() const { return static_cast<std::int64_t>(ids_.size()); }
  // The winner of draw `draw` of row `row` (fast path).
  std::int64_t Draw(std::uint64_t seed, std::uint32_t row, std::uint32_t draw) const;
  // The winners of draws first_draw, first_draw + 1, ... (out.size() of them, first_draw +
  // out.size() <= 2^32): Draw's tokens bit for bit, 16 or 8 draws per pass in lanes. Returns
  // how many lanes were uncertain and drawn again one at a time.
  std::int64_t DrawMany(std::uint64_t seed, std::uint32_t row, std::uint32_t first_draw, std::span<std::int64_t> out) const;
  // The same winner, computing every q and calling ExponentialRaceRow (naive baseline).
  std::int64_t DrawNaive(std::uint64_t seed, std::uint32_t row, std::uint32_t draw) const;

 private:
  std::vector<std::int32_t> ids_;  // support, probability descending then lower index
  std::vector<float> p_;           // probs of ids_
  std::vector<double> p_margin_;   // p (1 + 2^-22), exact in double
  // p_margin_ as the vector paths read it, -inf past the support: AVX-512F in token order,
  // padded to a multiple of 64; AVX2 in lane order, group g of 32 tokens, word w, lane l at
  // [32 g + 8 w + l] being token 32 g + 4 l + w.
  std::vector<double> p_margin_lanes_;
  // Draws in lanes (DrawMany): RN(1 / p) and RN((1 / p) 2^-24 (1 - 2^-14)) per support token.
  std::vector<float> inv_p_, inv_p_low_;
  // Every p in [2^-100, 2^100], so every f32 ratio p / q is normal or +inf (q = +0): the
  // brackets and the lanes' keys hold; otherwise every draw takes every q (DrawExact).
  bool normal_ratios_ = false;
  rng::PhiloxIsa isa_ = rng::PhiloxIsa::kScalar;
  std::int64_t vocab_ = 0;
};

// counts [rows, V] i64 of draws [first_draw, first_draw + draws) per row from the given f32
// probabilities [rows, V] (draw d is keyed by d, so disjoint ranges add up to the whole: the
// sharded statistics of docs/spec/sharded_statistics.md); greedy[r] >= 0 pins row r to that
// token. first_draw + draws <= 2^32.
Tensor CountRaceDraws(std::span<const float> probs, std::int64_t rows, std::int64_t vocab,
                      const std::vector<std::int64_t>& greedy, std::int64_t draws, std::uint64_t seed,
                      std::int64_t first_draw = 0);

namespace detail {
// Qa(w), the approximation of Q = -log1p(-u), u = UniformClosedOpen24F32(w), that DrawMany's
// keys use: f32 operations only (no FMA), the same in every path. x = 1 - u = n 2^-24 (n =
// 2^24 - (w >> 8), exact) is split as 2^(k - 24) z with z in [11/16, 22/16) by integer
// arithmetic on x's bits; z's 16 buckets of a table give c with z / c - 1 = r, |r| < 1/16 (c = 1
// on [31/32, 1) and [1, 17/16), so r = z - 1 exactly next to 1), and Qa = ((24 - k) ln2 +
// log(1 / c)) - (r - r^2/2 + r^3/3). Qa(0) = +0 and |Qa / Q - 1| <= kNegLog1pNegApproxError for
// every w (docs/spec/count_draws.md; tests/count_draws_test.cc checks all 2^24 u).
float NegLog1pNegApprox(std::uint32_t word);
inline constexpr double kNegLog1pNegApproxError = 0x1p-15;
// Qa over many words through `isa`'s lanes (which the host must run): the scalar's bits.
void NegLog1pNegApproxLanes(std::span<const std::uint32_t> words, std::span<float> out, rng::PhiloxIsa isa);
}  // namespace detail

bool SupportsCountDrawsStage(const std::string& stage);
// The reference backend's CountDraws: exponential_race, inverse_cdf, qsample and
// multinomial_with_seed(_token_ids) race on probs (their target is probs / sum),
// gumbel_max on SoftmaxRow(logprobs), pipeline on the probabilities of ComposePipeline
// (reference/pipeline.h; greedy rows always give their greedy token).
Tensor ReferenceCountDraws(const Case& c, std::int64_t draws, std::uint64_t seed, std::int64_t first_draw = 0);

}  // namespace sampcheck::reference
