// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reference backend's own randomness (Backend::CountDraws, distributional tier): many
// draws per row by an exponential race on counter-based noise, fast enough for the
// statistical harness (docs/spec/harness.md "Reference draws"; bench/draws_bench.cc).
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
//   index — exactly ExponentialRaceRow (canonical) applied to that q. The fast path skips the
//   logarithm of any token that cannot win: q >= u(1 - 2^-24) (log1p(-u) <= -u, correctly
//   rounded), so RN(p / q) < (p / u)(1 + 2^-22) and a token with u * best >= p (1 + 2^-22)
//   (exact in double: 24 x 24-bit products) cannot beat the best ratio so far. The skipped
//   tokens' words are still drawn, so the result equals the naive loop's bit for bit
//   (tests/count_draws_test.cc).
// - Cost: one Philox block per 4 support tokens per draw plus a logarithm for the few
//   tokens that pass the bound (about ln(support) per draw in expectation).
// Example: probs {0.5, 0.5}: about half the draws go to each token.
#include <cstdint>
#include <span>
#include <vector>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// A row prepared for many draws: its support in draw order.
class RaceRow {
 public:
  explicit RaceRow(std::span<const float> probs);
  std::int64_t support() const { return static_cast<std::int64_t>(ids_.size()); }
  // The winner of draw `draw` of row `row` (fast path).
  std::int64_t Draw(std::uint64_t seed, std::uint32_t row, std::uint32_t draw) const;
  // The same winner, computing every q and calling ExponentialRaceRow (naive baseline).
  std::int64_t DrawNaive(std::uint64_t seed, std::uint32_t row, std::uint32_t draw) const;

 private:
  std::vector<std::int32_t> ids_;  // support, probability descending then lower index
  std::vector<float> p_;           // probs of ids_
  std::vector<double> p_margin_;   // p (1 + 2^-22), exact in double
  std::int64_t vocab_ = 0;
};

// counts [rows, V] i64 of draws [first_draw, first_draw + draws) per row from the given f32
// probabilities [rows, V] (draw d is keyed by d, so disjoint ranges add up to the whole: the
// sharded statistics of docs/spec/sharded_statistics.md); greedy[r] >= 0 pins row r to that
// token. first_draw + draws <= 2^32.
Tensor CountRaceDraws(std::span<const float> probs, std::int64_t rows, std::int64_t vocab,
                      const std::vector<std::int64_t>& greedy, std::int64_t draws, std::uint64_t seed,
                      std::int64_t first_draw = 0);

bool SupportsCountDrawsStage(const std::string& stage);
// The reference backend's CountDraws: exponential_race, inverse_cdf, qsample and
// multinomial_with_seed(_token_ids) race on probs (their target is probs / sum),
// gumbel_max on SoftmaxRow(logprobs), pipeline on the probs its filters produce after
// PipelineLogitsBeforeTemperature and temperature (greedy rows always give their greedy token).
Tensor ReferenceCountDraws(const Case& c, std::int64_t draws, std::uint64_t seed, std::int64_t first_draw = 0);

}  // namespace sampcheck::reference
