// SPDX-License-Identifier: Apache-2.0
#pragma once
// The draw harness: does a backend draw tokens from the distribution the reference defines?
// Layers L1 (structural), L2 (targeted binomial on the boundary mass) and L3 (omnibus
// Cressie–Read) of docs/method.md on the statistical case families, with n derived from each case's
// minimum detectable effect, Holm over the run, and seeds from (case id, seed epoch)
// (docs/spec/harness.md).
//
// Contract:
// - Draws: Backend::CountDraws(stage, case, n, seed) when the backend supports the stage,
//   else Run on batches of the case's rows replicated with harness noise (DrawNoiseCase).
//   Counts must be [rows, V] i64, non-negative, each row summing to n: anything else fails the
//   case with the reason.
// - Per random row: L1 — any draw of a token whose exact probability is 0 and that is not
//   ambiguous fails (alpha 0); greedy rows: any token but the greedy one. L2 — two-sided
//   exact binomial test of the boundary tokens' share of the non-ambiguous draws against its
//   exact value p0 (stat_cases.h), when the case declares one (targeted_ratio >= 0) and
//   0 < p0 <= 1/2; a case with a floor_target (stat_cases.h) takes p0 from the exact law of
//   its noise with the floor (race_floor_law.h) instead and has no L3, exponent or rank test;
//   kCanonicalRace is skipped when the backend has no CountDraws for the stage (the harness's
//   noise would set the floor), kSglangSeeded is always drawn through Run with harness seeds.
//   L3 — GoodnessOfFitTest (Cressie–Read
//   2/3, E_min 5, a-priori pooling) of the non-ambiguous draws against the exact target
//   restricted to non-ambiguous tokens and renormalised, when pooling at the planned n leaves
//   >= 2 bins.
//   Exponent — when the case declares mde_exponent (stat_cases.h) and the row's support is
//   not flat: ExponentScoreTest (exponent_score.h) of the same non-ambiguous draws against the
//   smooth alternative p^t, |t - 1| = mde_exponent; result "<case id>/L3-exponent", layer L3,
//   test "exponent-score", effect "t - 1" with its Wald interval; sized by ExponentSampleSize
//   at alpha / M.
//   Rank — when the case declares mde_rank (a KS distance) and the row has two distinct
//   weights: RankCumulativeTest (rank_cumulative.h), Kolmogorov–Smirnov on the cumulative
//   share of the weight groups from the most probable down, which sees any monotone tilt;
//   result "<case id>/L3-rank", layer L3, test "rank-ks", effect "Fn - F0" with its DKW band;
//   sized by RankCumulativeSampleSize at alpha / M (distribution-free).
//   Conditioning on non-ambiguous draws is exact for every stage here: a draw's probability is
//   proportional to its token's weight, so including or excluding an ambiguous token only
//   rescales the others.
// - Alpha: options.alpha is the family-wise level; m = the number of L2 and L3 tests planned
//   for the run (plus options.extra_family_tests); Holm runs over those m. n is sized at the
//   level alpha / M of a declared family of M = options.declared_family_size tests
//   (kDeclaredFamilySize, or kDeclaredFamilySizeThorough under options.thorough: the whole
//   suite at that size, draws and noise, with headroom), not at alpha / m,
//   so a case's n depends on the case, alpha and the size alone, never on which other cases
//   are selected or skipped; since m <= M, the Holm-worst level alpha / m is never below the
//   sizing level and the power at the declared effects holds. A run with m > M fails every
//   case as a configuration error. n = max over rows of
//     L1: ceil(ln(1 - power) / ln(1 - mde)),
//     L2: BinomialSampleSize(p0, ratio * p0, alpha / M / 2, power) (two-sided test, so half;
//         ratio = targeted_ratio_thorough under options.thorough when the case sets it),
//     L3: ChiSquareSampleSize(|S| - 1, 4 mde^2, alpha / M, power) (w^2 >= 4 TV^2 by
//         Cauchy–Schwarz, so 4 mde^2 is the least favourable alternative at that TV),
//     exponent: ExponentSampleSize(p, mde_exponent, alpha / M, power),
//     rank: RankCumulativeSampleSize(mde_rank, alpha / M, power),
//   the L2/L3/exponent/rank sizes divided by the non-ambiguous mass. mde = mde_tv_ci, or mde_tv_thorough
//   under options.thorough. n above options.max_draws (options.max_draws_thorough under
//   options.thorough) is a configuration error (the case fails and says so), never a silent pass.
// - Seeds: CaseSeed(id, epoch) = SplitMix64 output of FNV-1a-64(id) XOR (epoch * golden
//   gamma); the same id, epoch and backend give the same verdict.
// - Report: one CaseResult per test ("<case id>/L1", "/L2", "/L3"; "<case id>/row<r>/L..."
//   when the case has several rows), comparison "distribution", statistics filled as in
//   docs/spec/report.md "Statistical cases". L1 results carry alpha 0 and p 0 or 1 and are
//   not Holm-adjusted.
// Example: the reference backend on DrawStatCases() passes every case at epoch 0.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/case_result.h"
#include "harness/stat_cases/stat_cases.h"

namespace sampcheck::statistical {

inline constexpr double kFamilyWiseAlpha = 1e-4;  // docs/method.md "Alpha budget"
inline constexpr double kTargetPower = 0.99;
// The declared families every case's n is sized for (alpha / M per test), one per size: a run
// planning more than its size's M fails as a configuration error, so families past that raise
// the constant, and with it that size's n by a few per cent (n grows as
// (z_{alpha/M} + z_power)^2) and the n values docs/spec/harness.md quotes.
// CI size: 320 since 2026-11-29 (256 before): the CI rank tests of the filter families (20
// random rows, stat_cases.h kRankFilterCi) brought the CI suite from 253 to 273 planned tests
// (draws with their exponent, rank and tail tests, and the noise harness's 60), past 256; every
// CI n grew by 1-3 per cent ((z_{alpha/320} + z_power)^2 / (z_{alpha/256} + z_power)^2).
// --thorough: 320. The thorough rank tests of the filter families and the noise harness's
// structural tests brought the thorough suite to 273 on 2026-11-28, past 256.
inline constexpr std::int64_t kDeclaredFamilySize = 320;
inline constexpr std::int64_t kDeclaredFamilySizeThorough = 320;

struct DrawHarnessOptions {
  bool thorough = false;
  std::uint64_t seed_epoch = 0;
  double alpha = kFamilyWiseAlpha;
  double power = kTargetPower;
  std::int64_t max_draws = 20'000'000;
  // The limit under thorough: the filter families' rank tests at KS 0.0005 need 6.3e7 draws per
  // row (stat_cases.h kRankFilterThorough). --thorough runs by hand; counts stay [rows, V], so
  // memory does not grow with n (docs/spec/harness.md "Cost of each size on the reference").
  std::int64_t max_draws_thorough = 100'000'000;
  // Cases not started within this many seconds are skipped with a reason; <= 0: no limit.
  double budget_seconds = 0.0;
  // Extra tests in the Holm family beyond this run's own (e.g. the noise harness's), so the
  // planned n matches the family the p-values are adjusted over.
  std::int64_t extra_family_tests = 0;
  // M of the sizing level alpha / M (see the contract); 0: the declared family of the run's
  // size, kDeclaredFamilySize or, under thorough, kDeclaredFamilySizeThorough.
  std::int64_t declared_family_size = 0;
  // false: leave p_adjusted and verdicts to the caller's ApplyHolm over a larger family.
  bool apply_holm = true;
  std::function<void(const std::string& id, std::size_t done, std::size_t total)> on_case;
};

std::uint64_t CaseSeed(const std::string& id, std::uint64_t epoch);

// The number of L2 and L3 tests the cases plan (m of the Holm-worst level).
std::int64_t PlannedFamilySize(const std::vector<StatCase>& cases, const DrawHarnessOptions& options);

// The case with `draws` replicas of each row and noise from (seed): q (exponential_race,
// pipeline vllm), gumbel (gumbel_max), u (inverse_cdf), seed and positions (pipeline
// canonical, sglang); spec_random: drafts drawn from draft_probs, u, q, bonus_q
// (harness/spec_draws.h; CountDrawsThroughRun counts emitted[:, 0]). Replica d of row r is
// row d * rows + r. Used when a backend cannot draw on its own, and by the reproducibility
// harness.
Case DrawNoiseCase(const Case& c, std::int64_t draws, std::uint64_t seed, std::int64_t first_draw = 0);

// Counts [rows, V] of `draws` draws per row through Backend::Run with harness noise, in
// batches of about 2^21 elements. For a stage whose capabilities say concurrent_runs, the
// batches run on reference::RowThreads() threads (the CLI's --threads), each thread a
// contiguous range of batches into counts of its own, summed after: integer sums, so the
// counts are the same for every thread count; the error is the one of the first failing
// batch, as in order (docs/spec/harness.md "Concurrent batches"). Otherwise the batches are
// one Backend::RunSequence, in order, stopped at the first failing batch, whose error is the
// case's: an isolated backend runs them all in one child process (docs/spec/harness.md
// "Draws through Run").
Tensor CountDrawsThroughRun(Backend& backend, const Case& c, std::int64_t draws, std::uint64_t seed);

std::vector<CaseResult> RunDrawHarness(Backend& backend, const std::vector<StatCase>& cases,
                                               const DrawHarnessOptions& options = {});

// Holm over every result whose statistics has a layer other than L1: fills p_adjusted and
// sets the verdict (fail iff p_adjusted < alpha) and reason. Results without statistics, and
// L1 results, are left as they are.
void ApplyHolm(std::vector<CaseResult>& results, double alpha);

}  // namespace sampcheck::statistical
