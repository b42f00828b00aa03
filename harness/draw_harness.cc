// SPDX-License-Identifier: Apache-2.0
// The draw harness (harness/draw_harness.h).
#include "harness/draw_harness.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <exception>
#include <span>
#include <sstream>

#include "core/error.h"
#include "core/exception_text.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "reference/row_threads.h"
#include "reference/stage_io.h"
#include "reference/math/log.h"
#include "reference/rng/draw_harness_noise.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/rng/streams.h"
#include "reference/rng/uniform.h"
#include "statistical/detail/checks.h"
#include "statistical/exact_target.h"
#include "statistical/exact_tests.h"
#include "statistical/exponent_score.h"
#include "statistical/goodness_of_fit.h"
#include "statistical/multiple_testing.h"
#include "statistical/pooling.h"
#include "statistical/power.h"
#include "statistical/race_floor_law.h"
#include "statistical/rank_cumulative.h"
#include "harness/spec_draws.h"

namespace sampcheck::statistical {
namespace {

constexpr double kEffectLevel = 0.99;
constexpr std::int64_t kRunBatchElements = std::int64_t{1} << 21;

// The plan of one random row.
struct RowPlan {
  bool greedy = false;
  std::vector<double> p_cond;              // exact p restricted to S and renormalised (0 outside S)
  std::vector<std::int64_t> boundary;      // L2 tokens
  double p0 = 0.0, p1 = 0.0;               // L2 null and alternative shares
  double mass_s = 1.0;                     // exact mass of S
  std::int64_t support = 0;                // |S|
  bool l2 = false, l3 = false;
  bool exponent = false;                   // the exponent score test (exponent_score.h)
  bool rank = false;                       // the rank-cumulative test (rank_cumulative.h)
};

struct CasePlan {
  const StatCase* c = nullptr;
  ExactTarget target;
  std::vector<RowPlan> rows;
  double mde = 0.0;
  double mde_exponent = 0.0;  // |t - 1| of the exponent test; 0: none
  double mde_rank = 0.0;      // KS distance of the rank-cumulative test; 0: none
  std::int64_t n = 0;
  std::uint64_t seed = 0;
  std::string error;  // configuration error
};

using detail::Fmt;

bool Ambiguous(const RowTarget& t, std::int64_t i) {
  return std::binary_search(t.ambiguous.begin(), t.ambiguous.end(), i);
}

// Tail amplifiers (stat_cases.h floor_target): the L2 null share of the weak group is the exact
// law of the stated noise with its floor (race_floor_law.h). The case must be one row of one
// strong token at id 0 and a group of equal weak tokens (the boundary).
void ApplyFloorTarget(const StatCase& c, RowPlan& r) {
  const StageInfo& info = RequireStage(c.input.stage);
  const TensorSpec* spec = info.DistributionInput();
  const HarnessNoise noise = c.floor_target == FloorTarget::kCanonicalRace ? HarnessNoise::kExponential : HarnessNoise::kSeedPosition;
  if (spec == nullptr || c.input.inputs.count(spec->name) == 0 || info.draw.target != ExactTargetKind::kNormalisedProbs ||
      info.draw.NoiseFor(c.input.profile) != noise) {
    throw std::invalid_argument("case '" + c.id + "': its floor target needs a " +
                                std::string(noise == HarnessNoise::kExponential ? "race with Exp(1) noise" : "seeded draw") +
                                " over a probability row");
  }
  const Tensor w = reference::UpcastToF32(c.input.inputs.at(spec->name), spec->name);
  if (w.rank() != 2 || w.dim(0) != 1 || w.dim(1) < 2) {
    throw std::invalid_argument("case '" + c.id + "': a floor target needs one row of at least two tokens");
  }
  const auto row = w.data<float>();
  const float strong = row[0], weak = row[1];
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] != weak) throw std::invalid_argument("case '" + c.id + "': a floor target needs equal weights at ids 1..V-1");
  }
  if (!(weak > 0.0f) || !(weak < strong) || r.boundary.size() + 1 != row.size()) {
    throw std::invalid_argument("case '" + c.id + "': a floor target needs 0 < weak < strong");
  }
  const auto group = static_cast<std::int64_t>(row.size()) - 1;
  r.p0 = static_cast<double>(c.floor_target == FloorTarget::kCanonicalRace ? CanonicalRaceGroupShare(strong, weak, group)
                                                                            : SglangSeededGroupShare(strong, weak, group));
}

RowPlan PlanRow(const RowTarget& t, const StatCase& c, bool thorough) {
  RowPlan r;
  if (t.greedy_token >= 0) {
    r.greedy = true;
    return r;
  }
  const std::size_t v = t.p.size();
  r.p_cond.assign(v, 0.0);
  long double mass = 0.0L;
  for (std::size_t i = 0; i < v; ++i) {
    if (t.p[i] > 0.0 && !Ambiguous(t, static_cast<std::int64_t>(i))) {
      r.p_cond[i] = t.p[i];
      mass += t.p[i];
      ++r.support;
    }
  }
  r.mass_s = static_cast<double>(mass);
  if (r.support == 0) return r;
  for (double& x : r.p_cond) x = static_cast<double>(x / mass);
  double smallest = 2.0;
  for (double x : r.p_cond) {
    if (x > 0.0) smallest = std::min(smallest, x);
  }
  double p0 = 0.0;
  for (std::size_t i = 0; i < v; ++i) {
    if (r.p_cond[i] > 0.0 && r.p_cond[i] <= smallest * (1.0 + 1e-9)) {
      r.boundary.push_back(static_cast<std::int64_t>(i));
      p0 += r.p_cond[i];
    }
  }
  r.p0 = p0;
  r.l3 = r.support >= 2;
  if (c.floor_target != FloorTarget::kNone) ApplyFloorTarget(c, r);
  const double ratio = thorough && c.targeted_ratio_thorough ? *c.targeted_ratio_thorough : c.targeted_ratio;
  r.p1 = std::min(ratio * r.p0, 1.0 - 1e-12);
  r.l2 = ratio >= 0.0 && r.p0 > 0.0 && r.p0 <= 0.5 && r.support >= 2;
  const double mde_exponent = thorough ? c.mde_exponent_thorough : c.mde_exponent_ci;
  // A flat support is unchanged by any exponent: no test (and no fault of this kind to see).
  r.exponent = mde_exponent > 0.0 && r.support >= 2 && ExponentVariance(r.p_cond) > 0.0;
  const double mde_rank = thorough ? c.mde_rank_thorough : c.mde_rank_ci;
  r.rank = mde_rank > 0.0 && r.support >= 2 && RankCumulativeDefined(r.p_cond);
  if (c.floor_target != FloorTarget::kNone) r.l3 = r.exponent = r.rank = false;  // their target is p, not the floor's law
  return r;
}

std::int64_t StructuralN(double mde, double power) {
  return static_cast<std::int64_t>(std::ceil(std::log(1.0 - power) / std::log1p(-mde)));
}

std::vector<CasePlan> Plan(const std::vector<StatCase>& cases, const DrawHarnessOptions& options) {
  std::vector<CasePlan> plans;
  for (const auto& c : cases) {
    CasePlan plan;
    plan.c = &c;
    plan.mde = options.thorough ? c.mde_tv_thorough : c.mde_tv_ci;
    plan.mde_exponent = options.thorough ? c.mde_exponent_thorough : c.mde_exponent_ci;
    plan.mde_rank = options.thorough ? c.mde_rank_thorough : c.mde_rank_ci;
    plan.seed = CaseSeed(c.id, options.seed_epoch);
    try {
      plan.target = ComputeExactTarget(c.input);
      for (const auto& row : plan.target.rows) plan.rows.push_back(PlanRow(row, c, options.thorough));
    } catch (const std::exception& e) {
      plan.error = "configuration error: " + ExceptionText(e);
    }
    plans.push_back(std::move(plan));
  }
  return plans;
}

std::int64_t FamilySize(const std::vector<CasePlan>& plans) {
  std::int64_t m = 0;
  for (const auto& p : plans) {
    for (const auto& r : p.rows) m += r.l2 + r.l3 + r.exponent + r.rank;
  }
  return m;
}

void SizeCase(CasePlan& plan, double alpha_test, const DrawHarnessOptions& options) {
  if (!plan.error.empty()) return;
  std::int64_t n = StructuralN(plan.mde, options.power);
  for (auto& r : plan.rows) {
    if (r.greedy || r.support == 0) continue;
    if (r.l2) {
      const auto n2 = BinomialSampleSize(r.p0, r.p1, alpha_test / 2.0, options.power);
      n = std::max(n, static_cast<std::int64_t>(std::ceil(static_cast<double>(n2) / r.mass_s)));
    }
    if (r.l3) {
      const double w2 = 4.0 * plan.mde * plan.mde;
      const auto n3 = ChiSquareSampleSize(static_cast<double>(r.support - 1), w2, alpha_test, options.power);
      n = std::max(n, static_cast<std::int64_t>(std::ceil(static_cast<double>(n3) / r.mass_s)));
    }
    if (r.exponent) {
      const auto ne = ExponentSampleSize(r.p_cond, plan.mde_exponent, alpha_test, options.power);
      n = std::max(n, static_cast<std::int64_t>(std::ceil(static_cast<double>(ne) / r.mass_s)));
    }
    if (r.rank) {
      const auto nr = RankCumulativeSampleSize(plan.mde_rank, alpha_test, options.power);
      n = std::max(n, static_cast<std::int64_t>(std::ceil(static_cast<double>(nr) / r.mass_s)));
    }
  }
  plan.n = n;
  // An omnibus test that a-priori pooling would reduce to one bin at this n cannot reject:
  // leave it out rather than report a test without power (the amplifier row, for one).
  for (auto& r : plan.rows) {
    if (r.l3 && PoolCategories(r.p_cond, static_cast<double>(n) * r.mass_s, DefaultEMin(kCressieReadLambda)).size() < 2) r.l3 = false;
  }
  const std::int64_t limit = options.thorough ? options.max_draws_thorough : options.max_draws;
  if (n > limit) {
    plan.error = "configuration error: the declared effect (TV " + Fmt(plan.mde) + ") needs n = " + std::to_string(n) +
                 " draws for power " + Fmt(options.power) + ", above the limit of " + std::to_string(limit);
  }
}

EffectSize Effect(const char* name, double value, const Interval& i) {
  return EffectSize{name, value, i.lower, i.upper, kEffectLevel};
}

std::string BinLabel(const std::vector<std::int64_t>& tokens) {
  if (tokens.size() == 1) return std::to_string(tokens.front());
  return "pooled(" + std::to_string(tokens.size()) + ")";
}

CaseResult NewResult(const CasePlan& plan, const std::string& suffix) {
  CaseResult r;
  r.id = plan.c->id + suffix;
  r.stage = plan.c->input.stage;
  r.profile = ProfileName(plan.c->input.profile);
  r.comparison = "distribution";
  return r;
}

std::string RowSuffix(const CasePlan& plan, std::size_t row, const char* layer) {
  if (plan.rows.size() == 1) return std::string("/") + layer;
  return "/row" + std::to_string(row) + "/" + layer;
}

// L1: draws on tokens of probability 0 (the support check).
CaseResult StructuralResult(const CasePlan& plan, const RowPlan& rp, const RowTarget& t, std::span<const std::int64_t> row,
                            const std::string& suffix) {
  CaseResult r = NewResult(plan, suffix);
  std::int64_t violations = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> bad;  // (count, token)
  for (std::int64_t i = 0; i < plan.target.vocab; ++i) {
    const auto c = row[static_cast<std::size_t>(i)];
    if (c > 0 && t.p[static_cast<std::size_t>(i)] == 0.0 && !Ambiguous(t, i)) {
      violations += c;
      bad.emplace_back(c, i);
    }
  }
  std::sort(bad.begin(), bad.end(), [](auto a, auto x) { return a.first != x.first ? a.first > x.first : a.second < x.second; });
  const double power = 1.0 - std::pow(1.0 - plan.mde, static_cast<double>(plan.n));
  auto s = PlannedTest(TestLayer::kStructural, "structural", plan.n, 0.0, plan.mde, power, plan.seed);
  s.statistic = violations;
  s.p_value = violations ? 0.0 : 1.0;
  s.p_adjusted = violations ? 0.0 : 1.0;
  s.effect = Effect("delta", static_cast<double>(violations) / static_cast<double>(plan.n),
                    ClopperPearson(violations, plan.n, kEffectLevel));
  for (std::size_t k = 0; k < bad.size() && k < 5; ++k) {
    s.top_bins.push_back({std::to_string(bad[k].second), bad[k].first, 0.0, static_cast<double>(bad[k].first)});
  }
  if (violations) {
    r.verdict = Verdict::kFail;
    r.reason = std::to_string(violations) + " of " + std::to_string(plan.n) + " draws on tokens of probability 0 (token " +
               std::to_string(bad.front().second) + " drawn " + std::to_string(bad.front().first) + " times)" +
               (rp.greedy ? "; greedy row: only token " + std::to_string(t.greedy_token) + " may be drawn" : "");
  }
  r.statistics = std::move(s);
  return r;
}

// L2: the boundary tokens' share of the draws in S against p0.
CaseResult BoundaryResult(const CasePlan& plan, const RowPlan& rp, std::span<const std::int64_t> row, std::int64_t n_s,
                          double alpha_test, double alpha, const std::string& suffix) {
  CaseResult r = NewResult(plan, suffix);
  std::int64_t k = 0;
  for (std::int64_t i : rp.boundary) k += row[static_cast<std::size_t>(i)];
  const double power = n_s > 0 ? BinomialPower(n_s, rp.p0, rp.p1, alpha_test / 2.0) : 0.0;
  auto s = PlannedTest(TestLayer::kTargeted, "binomial", n_s, alpha, rp.p1 - rp.p0, power, plan.seed);
  if (n_s > 0) {
    const auto test = BinomialTest(k, n_s, rp.p0, Alternative::kTwoSided, kEffectLevel);
    const auto effect = TargetedDelta(k, n_s, rp.p0, kEffectLevel);
    s.statistic = k;
    s.p_value = test.p_value;
    s.effect = Effect("delta", effect.estimate, effect.interval);
    const double expected = rp.p0 * static_cast<double>(n_s);
    std::string label = "boundary(" + std::to_string(rp.boundary.size()) + ")";
    if (rp.boundary.size() == 1) label = "boundary " + std::to_string(rp.boundary.front());
    s.top_bins.push_back({label, k, expected, (static_cast<double>(k) - expected) / std::sqrt(expected)});
    s.expected.push_back(expected);
    s.observed.push_back(k);
    s.labels.push_back(label);
    r.reason = "boundary mass " + std::string(effect.estimate >= 0 ? "+" : "") + Fmt(effect.estimate) + " [" +
               Fmt(effect.interval.lower) + ", " + Fmt(effect.interval.upper) + "] (p0 = " + Fmt(rp.p0) +
               ", n = " + std::to_string(n_s) + ", p = " + Fmt(test.p_value) + ")";
  }
  r.statistics = std::move(s);
  return r;
}

// L3: the omnibus goodness-of-fit test of the draws in S against p restricted to S.
CaseResult OmnibusResult(const CasePlan& plan, const RowPlan& rp, const std::vector<std::int64_t>& counts_s,
                         std::int64_t n_s, double alpha_test, double alpha, const std::string& suffix) {
  CaseResult r = NewResult(plan, suffix);
  GoodnessOfFitOptions gof_options;
  gof_options.top_bins = 5;
  gof_options.level = kEffectLevel;
  const auto gof = GoodnessOfFitTest(counts_s, rp.p_cond, gof_options);
  const auto tv = TotalVariation(counts_s, rp.p_cond, kEffectLevel);
  const double power = gof.df >= 1 ? ChiSquarePower(gof.df, static_cast<double>(n_s) * 4.0 * plan.mde * plan.mde, alpha_test) : 0.0;
  auto s = PlannedTest(TestLayer::kOmnibus, "cressie-read(2/3)", n_s, alpha, plan.mde, power, plan.seed);
  s.bins = gof.bins;
  s.df = gof.df;
  s.statistic = gof.statistic;
  s.p_value = gof.p_value;
  s.effect = Effect("TV", tv.estimate, tv.interval);
  for (const auto& bin : gof.top_bins) {
    s.top_bins.push_back({BinLabel(bin.tokens), static_cast<std::int64_t>(bin.observed), bin.expected, bin.residual});
  }
  if (n_s > 0) {
    for (const auto& bin : PoolCategories(rp.p_cond, static_cast<double>(n_s), gof.e_min)) {
      std::int64_t o = 0;
      for (std::int64_t i : bin.tokens) o += counts_s[static_cast<std::size_t>(i)];
      s.expected.push_back(bin.expected);
      s.observed.push_back(o);
      s.labels.push_back(BinLabel(bin.tokens));
    }
  }
  std::string top;
  if (!gof.top_bins.empty()) {
    const auto& bin = gof.top_bins.front();
    top = "; top bin " + BinLabel(bin.tokens) + ": observed " + Fmt(bin.observed, 10) + ", expected " + Fmt(bin.expected);
  }
  r.reason = "TV " + Fmt(tv.estimate) + " [" + Fmt(tv.interval.lower) + ", " + Fmt(tv.interval.upper) + "], D = " +
             Fmt(gof.effect) + " (n = " + std::to_string(n_s) + ", " + std::to_string(gof.bins) + " bins, p = " +
             Fmt(gof.p_value) + ")" + top;
  r.statistics = std::move(s);
  return r;
}

// The smooth alternative p^t (exponent_score.h): one df where the omnibus test spreads the same
// signal over |S| - 1.
CaseResult ExponentResult(const CasePlan& plan, const RowPlan& rp, const std::vector<std::int64_t>& counts_s,
                          std::int64_t n_s, double alpha_test, double alpha, const std::string& suffix) {
  CaseResult r = NewResult(plan, suffix);
  const double power = ExponentPower(n_s, rp.p_cond, plan.mde_exponent, alpha_test);
  auto s = PlannedTest(TestLayer::kOmnibus, "exponent-score", n_s, alpha, plan.mde_exponent, power, plan.seed);
  s.df = std::int64_t{1};  // bins stays 0: a scalar test (docs/spec/report.md)
  if (n_s > 0) {
    const auto test = ExponentScoreTest(counts_s, rp.p_cond, kEffectLevel);
    s.statistic = test.z;
    s.p_value = test.p_value;
    s.effect = Effect("t - 1", test.estimate, test.interval);
    r.reason = "exponent t - 1 = " + std::string(test.estimate >= 0 ? "+" : "") + Fmt(test.estimate) + " [" +
               Fmt(test.interval.lower) + ", " + Fmt(test.interval.upper) + "] (every logit scaled by t; Z = " +
               Fmt(test.z) + ", n = " + std::to_string(n_s) + ", p = " + Fmt(test.p_value) + ")";
  } else {
    s.effect = Effect("t - 1", 0.0, Interval{0.0, 0.0});
  }
  r.statistics = std::move(s);
  return r;
}

// A monotone tilt (rank_cumulative.h): the cumulative share of the most probable tokens.
CaseResult RankResult(const CasePlan& plan, const RowPlan& rp, const std::vector<std::int64_t>& counts_s,
                      std::int64_t n_s, double alpha_test, double alpha, const std::string& suffix) {
  CaseResult r = NewResult(plan, suffix);
  const double power = RankCumulativeDistancePower(n_s, plan.mde_rank, alpha_test);
  auto s = PlannedTest(TestLayer::kOmnibus, "rank-ks", n_s, alpha, plan.mde_rank, power, plan.seed);
  if (n_s > 0) {
    const auto test = RankCumulativeTest(counts_s, rp.p_cond, kEffectLevel);
    s.bins = test.groups;
    s.statistic = test.statistic;
    s.p_value = test.p_value;
    s.effect = Effect("Fn - F0", test.effect, test.interval);
    r.reason = "cumulative share of the " + std::to_string(test.at) + " most probable weight group(s) " +
               std::string(test.effect >= 0 ? "+" : "") + Fmt(test.effect) + " [" + Fmt(test.interval.lower) + ", " +
               Fmt(test.interval.upper) + "] (sqrt(n) D = " + Fmt(test.statistic) + ", n = " + std::to_string(n_s) +
               ", p = " + Fmt(test.p_value) + ")";
  } else {
    s.effect = Effect("Fn - F0", 0.0, Interval{0.0, 0.0});
  }
  r.statistics = std::move(s);
  return r;
}

void Evaluate(const CasePlan& plan, const Tensor& counts, double alpha_test, const DrawHarnessOptions& options,
              std::vector<CaseResult>& out) {
  const std::int64_t vocab = plan.target.vocab;
  const auto all = counts.data<std::int64_t>();
  for (std::size_t b = 0; b < plan.rows.size(); ++b) {
    const RowPlan& rp = plan.rows[b];
    const RowTarget& t = plan.target.rows[b];
    const std::span<const std::int64_t> row = all.subspan(b * static_cast<std::size_t>(vocab), static_cast<std::size_t>(vocab));
    out.push_back(StructuralResult(plan, rp, t, row, RowSuffix(plan, b, "L1")));
    if (rp.greedy || rp.support == 0) continue;
    std::int64_t n_s = 0;
    std::vector<std::int64_t> counts_s(static_cast<std::size_t>(vocab), 0);
    for (std::int64_t i = 0; i < vocab; ++i) {
      if (rp.p_cond[static_cast<std::size_t>(i)] > 0.0) {
        counts_s[static_cast<std::size_t>(i)] = row[static_cast<std::size_t>(i)];
        n_s += row[static_cast<std::size_t>(i)];
      }
    }
    if (rp.l2) out.push_back(BoundaryResult(plan, rp, row, n_s, alpha_test, options.alpha, RowSuffix(plan, b, "L2")));
    if (rp.l3) out.push_back(OmnibusResult(plan, rp, counts_s, n_s, alpha_test, options.alpha, RowSuffix(plan, b, "L3")));
    if (rp.exponent) {
      out.push_back(ExponentResult(plan, rp, counts_s, n_s, alpha_test, options.alpha, RowSuffix(plan, b, "L3-exponent")));
    }
    if (rp.rank) out.push_back(RankResult(plan, rp, counts_s, n_s, alpha_test, options.alpha, RowSuffix(plan, b, "L3-rank")));
  }
}

void CheckCounts(const Tensor& counts, const CasePlan& plan, const std::string& backend) {
  const auto rows = static_cast<std::int64_t>(plan.rows.size());
  if (counts.dtype() != DType::kI64 || counts.rank() != 2 || counts.dim(0) != rows || counts.dim(1) != plan.target.vocab) {
    throw InputError("backend '" + backend + "' returned counts " + std::string(DTypeName(counts.dtype())) + " " +
                     ShapeString(counts.shape()) + "; expected i64 [" + std::to_string(rows) + ", " +
                     std::to_string(plan.target.vocab) + "]");
  }
  const auto all = counts.data<std::int64_t>();
  for (std::int64_t b = 0; b < rows; ++b) {
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < plan.target.vocab; ++i) {
      const auto c = all[static_cast<std::size_t>(b * plan.target.vocab + i)];
      if (c < 0) throw InputError("backend '" + backend + "' returned a negative count at row " + std::to_string(b));
      // sum <= n here, so n - sum does not overflow; an unchecked sum could (and wrap to n).
      if (c > plan.n - sum) {
        throw InputError("backend '" + backend + "' returned more draws than the " + std::to_string(plan.n) +
                         " asked for in row " + std::to_string(b) + " (count " + std::to_string(c) + " at token " +
                         std::to_string(i) + ")");
      }
      sum += c;
    }
    if (sum != plan.n) {
      throw InputError("backend '" + backend + "' returned " + std::to_string(sum) + " draws for row " + std::to_string(b) +
                       "; " + std::to_string(plan.n) + " were asked for");
    }
  }
}

Tensor ReplicateRows(const Tensor& t, std::int64_t rows, std::int64_t replicas) {
  Shape shape = t.shape();
  shape[0] = rows * replicas;
  Tensor out = Tensor::Uninitialized(t.dtype(), shape);
  const std::size_t block = t.nbytes();
  for (std::int64_t d = 0; d < replicas; ++d) {
    std::memcpy(out.bytes().data() + static_cast<std::size_t>(d) * block, t.bytes().data(), block);
  }
  return out;
}

// Where a case's distribution lives (the catalogue's distribution input): (rows, vocab), or
// (-1, -1). A speculative case counts its first emitted token over V, or the acceptance of
// draft 0 over two categories (spec_draws.h).
std::pair<std::int64_t, std::int64_t> RowsAndVocab(const Case& c) {
  const StageInfo& info = RequireStage(c.stage);
  const TensorSpec* spec = info.DistributionInput();
  if (spec == nullptr) return {-1, -1};
  auto it = c.inputs.find(spec->name);
  if (it == c.inputs.end()) return {-1, -1};
  const Tensor& t = it->second;
  if (info.draw.target == ExactTargetKind::kSpecFirstToken) {
    if (t.rank() == 3) return {t.dim(0), SpecCountsAcceptance(c) ? 2 : t.dim(2)};
    return {-1, -1};
  }
  if (t.rank() == 2) return {t.dim(0), t.dim(1)};
  return {-1, -1};
}

// The output holding the drawn token (the catalogue's kToken output).
const std::string& TokenOutput(const StageInfo& info) {
  const TensorSpec* out = info.OutputWithRole(Role::kToken);
  if (out == nullptr) throw std::logic_error("stage catalogue: drawing stage '" + info.name + "' names no token output");
  return out->name;
}

// The input of the role the harness fills (the first noise tensor for tensor noise).
const std::string& RoleInput(const StageInfo& info, Role role) {
  const TensorSpec* in = info.InputWithRole(role);
  if (in == nullptr) {
    throw std::logic_error("stage catalogue: stage '" + info.name + "' has no " + std::string(RoleName(role)) + " input");
  }
  return in->name;
}
const std::string& NoiseInput(const StageInfo& info) { return RoleInput(info, Role::kNoise); }

// The harness's words and laws (reference/rng/draw_harness_noise.h), shared with the gpu
// backends' own draws of the pipeline.
rng::Philox4x32Block NoiseBlock(std::uint64_t seed, std::uint32_t token_block, std::uint32_t draw, std::uint32_t row) {
  return rng::draw_harness::Block(seed, token_block, draw, row);
}

}  // namespace

std::uint64_t CaseSeed(const std::string& id, std::uint64_t epoch) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
  for (unsigned char ch : id) {
    h ^= ch;
    h *= 0x100000001b3ull;  // FNV-1a 64 prime
  }
  SplitMix64 mix(h ^ (epoch * 0x9E3779B97F4A7C15ull));
  return mix.Next();
}

std::int64_t PlannedFamilySize(const std::vector<StatCase>& cases, const DrawHarnessOptions& options) {
  return FamilySize(Plan(cases, options));
}

Case DrawNoiseCase(const Case& c, std::int64_t draws, std::uint64_t seed, std::int64_t first_draw) {
  const StageInfo& info = RequireStage(c.stage);
  const HarnessNoise noise_law = info.draw.NoiseFor(c.profile);
  if (noise_law == HarnessNoise::kSpecDrafts) return SpecDrawNoiseCase(c, draws, seed, first_draw);  // drafts ~ q: spec_draws.h
  Case out = c;
  out.inputs.clear();
  // Plain variables, not a structured binding: the lambdas below capture them, which clang
  // accepts only from version 16 (Debian 12 ships 14, used by the fuzz preset).
  const auto shape = RowsAndVocab(c);
  const std::int64_t rows = shape.first, vocab = shape.second;
  for (const auto& [name, t] : c.inputs) {
    const TensorSpec* spec = nullptr;
    for (const auto& in : info.inputs) {
      if (in.name == name) spec = &in;
    }
    // The case's own noise is replaced by the harness's (noise, seed, position, drafts).
    if (spec != nullptr && spec->role != Role::kParameter && spec->role != Role::kLogits && spec->role != Role::kProbs &&
        spec->role != Role::kScores) {
      continue;
    }
    if (t.rank() < 1) throw InputError("case '" + c.id + "': input '" + name + "' has no batch dimension");
    out.inputs.emplace(name, ReplicateRows(t, t.dim(0), draws));
  }
  if (rows < 0 || vocab < 0) throw InputError("case '" + c.id + "': no [B, V] input to draw from");
  const std::int64_t total = rows * draws;
  auto for_each_row = [&](auto&& fn) {
    for (std::int64_t d = 0; d < draws; ++d) {
      for (std::int64_t r = 0; r < rows; ++r) fn(d * rows + r, static_cast<std::uint32_t>(first_draw + d), static_cast<std::uint32_t>(r));
    }
  };
  if (noise_law == HarnessNoise::kExponential || noise_law == HarnessNoise::kGumbel) {
    const bool gumbel = noise_law == HarnessNoise::kGumbel;
    Tensor noise = Tensor::Uninitialized(DType::kF32, {total, vocab});
    auto data = noise.data<float>();
    for_each_row([&](std::int64_t at, std::uint32_t d, std::uint32_t r) {
      for (std::int64_t i0 = 0; i0 < vocab; i0 += 4) {
        const auto words = NoiseBlock(seed, static_cast<std::uint32_t>(i0 / 4), d, r);
        for (std::int64_t i = i0; i < std::min(vocab, i0 + 4); ++i) {
          const std::uint32_t w = words.v[i - i0];
          data[static_cast<std::size_t>(at * vocab + i)] = gumbel ? rng::draw_harness::Gumbel(w) : rng::draw_harness::Exponential(w);
        }
      }
    });
    out.inputs.emplace(NoiseInput(info), std::move(noise));
  } else if (noise_law == HarnessNoise::kUniform) {
    Tensor u = Tensor::Uninitialized(DType::kF32, {total});
    auto data = u.data<float>();
    for_each_row([&](std::int64_t at, std::uint32_t d, std::uint32_t r) {
      data[static_cast<std::size_t>(at)] = rng::draw_harness::Uniform(NoiseBlock(seed, 0, d, r).v[0]);
    });
    out.inputs.emplace(NoiseInput(info), std::move(u));
  } else if (noise_law == HarnessNoise::kUniformRounds) {
    // One curand-style U(0, 1] per rejection round; a rejection sampler over V tokens runs at
    // most V + 1 rounds (docs/spec/flashinfer_sampling_from_probs.md), so it never runs out.
    const std::int64_t width = vocab + 1;
    Tensor u = Tensor::Uninitialized(DType::kF32, {total, width});
    auto data = u.data<float>();
    for_each_row([&](std::int64_t at, std::uint32_t d, std::uint32_t r) {
      for (std::int64_t i0 = 0; i0 < width; i0 += 4) {
        const auto words = NoiseBlock(seed, static_cast<std::uint32_t>(i0 / 4), d, r);
        for (std::int64_t i = i0; i < std::min(width, i0 + 4); ++i) {
          data[static_cast<std::size_t>(at * width + i)] = rng::UniformOpenClosedCurandF32(words.v[i - i0]);
        }
      }
    });
    out.inputs.emplace(NoiseInput(info), std::move(u));
  } else if (noise_law == HarnessNoise::kSeedPosition) {
    Tensor s = Tensor::Uninitialized(DType::kI64, {total});
    Tensor pos(DType::kI64, {total});
    auto data = s.data<std::int64_t>();
    for_each_row([&](std::int64_t at, std::uint32_t d, std::uint32_t r) {
      data[static_cast<std::size_t>(at)] = rng::draw_harness::Seed(seed, d, r);
    });
    out.inputs.emplace(RoleInput(info, Role::kSeed), std::move(s));
    out.inputs.emplace(RoleInput(info, Role::kPosition), std::move(pos));
  } else {
    throw InputError("the draw harness cannot generate noise for stage '" + c.stage + "'");
  }
  return out;
}

namespace {

// Adds the tokens of `result`, the outputs of DrawNoiseCase(c, n, seed, first), to `out`
// ([rows, V]).
void CountBatchOutputs(const Backend& backend, const Case& c, const StageInfo& info, std::int64_t n,
                       const TensorMap& result, std::span<std::int64_t> out) {
  const bool spec = info.draw.target == ExactTargetKind::kSpecFirstToken;
  const auto [rows, vocab] = RowsAndVocab(c);
  // The drawn token: the catalogue's token output (a speculative stage's first emitted token
  // is column 0 of its [B, K + 1] output).
  const std::string& output = TokenOutput(info);
  auto it = result.find(output);
  if (it == result.end() || it->second.dtype() != DType::kI64 || it->second.rank() < 1 || it->second.dim(0) != n * rows) {
    throw InputError("backend '" + backend.Name() + "' returned no i64 '" + output + "' [" + std::to_string(n * rows) +
                     (spec ? ", K + 1" : "") + "] for case '" + c.id + "'");
  }
  const auto tokens = it->second.data<std::int64_t>();
  const std::int64_t stride = it->second.numel() / (n * rows);
  if (spec) {  // the first token or the acceptance of draft 0 (SpecCountedOutcome, spec_draws.h)
    auto a = result.find("num_accepted");
    if (a == result.end() || a->second.dtype() != DType::kI64 || a->second.numel() != n * rows) {
      throw InputError("backend '" + backend.Name() + "' returned no i64 'num_accepted' [" + std::to_string(n * rows) +
                       "] for case '" + c.id + "'");
    }
  }
  for (std::int64_t j = 0; j < n * rows; ++j) {
    const std::int64_t tok = spec ? SpecCountedOutcome(c, result, j) : tokens[static_cast<std::size_t>(j * stride)];
    if (tok < 0 || tok >= vocab) {
      throw InputError("backend '" + backend.Name() + "' returned token " + std::to_string(tok) + " outside [0, " + std::to_string(vocab) + ")");
    }
    ++out[static_cast<std::size_t>((j % rows) * vocab + tok)];
  }
}

}  // namespace

Tensor CountDrawsThroughRun(Backend& backend, const Case& c, std::int64_t draws, std::uint64_t seed) {
  const StageInfo& info = RequireStage(c.stage);
  const auto [rows, vocab] = RowsAndVocab(c);
  if (rows < 0) throw InputError("case '" + c.id + "': no [B, V] input to draw from");
  const std::int64_t per_batch = std::max<std::int64_t>(1, kRunBatchElements / (rows * vocab));
  const std::int64_t batches = (draws + per_batch - 1) / per_batch;
  auto batch_draws = [&](std::int64_t k) { return std::min(per_batch, draws - k * per_batch); };
  if (!backend.Capabilities(c.stage).concurrent_runs) {
    // One sequence: an out-of-process backend runs every batch of the case in one child
    // (Backend::RunSequence), each batch made when it runs, so one batch's replicas are in
    // memory at a time, as below. The first failing batch ends the sequence with its error.
    Tensor counts(DType::kI64, Shape{rows, vocab});
    std::exception_ptr error;
    backend.RunSequence(
        c.stage, static_cast<std::size_t>(batches),
        [&](std::size_t k) {
          const auto kk = static_cast<std::int64_t>(k);
          return DrawNoiseCase(c, batch_draws(kk), seed, kk * per_batch);
        },
        [&](std::size_t k, const Backend::CaseOutcome& outcome) {
          try {
            if (!outcome.error.empty()) throw InputError(outcome.error);
            CountBatchOutputs(backend, c, info, batch_draws(static_cast<std::int64_t>(k)), outcome.outputs,
                              counts.data<std::int64_t>());
          } catch (...) {
            error = std::current_exception();
            return false;
          }
          return true;
        });
    if (error) std::rethrow_exception(error);
    return counts;
  }
  // Concurrent runs: a contiguous range of batches per worker, one count tensor per worker
  // (and one batch's replicas in memory per worker).
  const std::int64_t workers = std::max<std::int64_t>(1, std::min<std::int64_t>(reference::RowThreads(), batches));
  std::vector<Tensor> counts;
  for (std::int64_t w = 0; w < workers; ++w) counts.emplace_back(DType::kI64, Shape{rows, vocab});
  reference::ParallelRows(workers, [&](std::int64_t w) {
    auto out = counts[static_cast<std::size_t>(w)].data<std::int64_t>();
    for (std::int64_t k = w * batches / workers; k < (w + 1) * batches / workers; ++k) {
      const Case batch = DrawNoiseCase(c, batch_draws(k), seed, k * per_batch);
      CountBatchOutputs(backend, c, info, batch_draws(k), backend.Run(c.stage, batch), out);
    }
  });
  auto total = counts[0].data<std::int64_t>();
  for (std::size_t w = 1; w < counts.size(); ++w) {
    const auto part = counts[w].data<std::int64_t>();
    for (std::size_t i = 0; i < total.size(); ++i) total[i] += part[i];
  }
  return std::move(counts[0]);
}

void ApplyHolm(std::vector<CaseResult>& results, double alpha) {
  std::vector<std::size_t> at;
  std::vector<double> p;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& s = results[i].statistics;
    // Structural checks (alpha 0) are not part of the family: any violation fails them.
    if (!s || s->layer == TestLayer::kStructural) continue;
    if (results[i].verdict == Verdict::kSkip) continue;
    at.push_back(i);
    p.push_back(s->p_value);
  }
  const std::vector<double> adjusted = HolmAdjust(p);
  for (std::size_t j = 0; j < at.size(); ++j) {
    auto& r = results[at[j]];
    r.statistics->p_adjusted = adjusted[j];
    r.statistics->alpha = alpha;
    if (adjusted[j] < alpha) {
      r.verdict = Verdict::kFail;
      r.reason = "rejected at family-wise alpha " + Fmt(alpha) + " (Holm-adjusted p = " + Fmt(adjusted[j]) + "): " + r.reason;
    } else {
      r.verdict = Verdict::kPass;
      r.reason.clear();
    }
  }
}

std::vector<CaseResult> RunDrawHarness(Backend& backend, const std::vector<StatCase>& cases,
                                               const DrawHarnessOptions& options) {
  std::vector<CasePlan> plans = Plan(cases, options);
  const std::int64_t m = std::max<std::int64_t>(1, FamilySize(plans) + options.extra_family_tests);
  // n is sized at the declared family's Holm-worst level, whatever the selection, so a case's
  // n depends on the case, the run's alpha and the size (CI, --thorough) alone; the reported
  // power is at this run's own Holm-worst level alpha / m (never below the sizing level).
  const std::int64_t declared_size = options.declared_family_size > 0 ? options.declared_family_size
                                      : options.thorough                ? kDeclaredFamilySizeThorough
                                                                        : kDeclaredFamilySize;
  const auto declared = std::max<std::int64_t>(1, declared_size);
  const double alpha_size = options.alpha / static_cast<double>(declared);
  const double alpha_test = options.alpha / static_cast<double>(m);
  for (auto& p : plans) {
    SizeCase(p, alpha_size, options);
    if (p.error.empty() && m > declared_size) {
      p.error = "configuration error: the run holds " + std::to_string(m) +
                " tests, more than the declared family of " + std::to_string(declared_size) +
                " whose Holm-worst level sizes n (draw_harness.h)";
    }
  }

  const auto start = std::chrono::steady_clock::now();
  const auto supported = backend.SupportedStages();
  std::vector<CaseResult> results;
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const CasePlan& plan = plans[k];
    const std::string& stage = plan.c->input.stage;
    const StageCapabilities caps = backend.Capabilities(stage);
    auto fail_or_skip = [&](Verdict v, std::string reason) {
      CaseResult r = NewResult(plan, "");
      r.verdict = v;
      r.reason = std::move(reason);
      results.push_back(std::move(r));
    };
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!plan.error.empty()) {
      fail_or_skip(Verdict::kFail, plan.error);
    } else if (std::find(supported.begin(), supported.end(), stage) == supported.end()) {
      fail_or_skip(Verdict::kSkip, "backend '" + backend.Name() + "' does not support stage '" + stage + "'");
    } else if (!caps.profiles.Contains(plan.c->input.profile)) {
      fail_or_skip(Verdict::kSkip, "backend '" + backend.Name() + "' does not support profile '" +
                                       std::string(ProfileName(plan.c->input.profile)) + "' of stage '" + stage + "'");
    } else if (const std::string& why = caps.statistical_skip_reason; !why.empty()) {
      fail_or_skip(Verdict::kSkip, why);
    } else if (plan.c->floor_target == FloorTarget::kCanonicalRace && !caps.counts_with_reference_noise) {
      fail_or_skip(Verdict::kSkip, "the target is the law of the reference's own race noise with its floor (24-bit "
                                   "uniforms); this backend draws with other noise: its own, or the harness's through Run "
                                   "(docs/spec/harness.md \"Tail amplifiers\")");
    } else if (options.budget_seconds > 0.0 && elapsed > options.budget_seconds) {
      fail_or_skip(Verdict::kSkip, "time budget of " + Fmt(options.budget_seconds) + " s spent before this case");
    } else {
      try {
        // A seeded floor target is about the noise the backend computes from the key: always Run.
        const bool own = caps.count_draws && plan.c->floor_target != FloorTarget::kSglangSeeded;
        Tensor counts = own ? backend.CountDraws(stage, plan.c->input, plan.n, plan.seed)
                            : CountDrawsThroughRun(backend, plan.c->input, plan.n, plan.seed);
        CheckCounts(counts, plan, backend.Name());
        Evaluate(plan, counts, alpha_test, options, results);
      } catch (const std::exception& e) {
        fail_or_skip(Verdict::kFail, ExceptionText(e));
      }
    }
    if (options.on_case) options.on_case(plan.c->id, k + 1, plans.size());
  }
  if (options.apply_holm) ApplyHolm(results, options.alpha);
  return results;
}

}  // namespace sampcheck::statistical
