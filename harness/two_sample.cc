// SPDX-License-Identifier: Apache-2.0
// Backend against backend (harness/two_sample.h).
#include "harness/two_sample.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <sstream>

#include "core/comparison.h"
#include "core/error.h"
#include "core/exception_text.h"
#include "core/profile.h"
#include "core/selection.h"
#include "core/stage_catalogue.h"
#include "golden/generator.h"
#include "harness/draw_harness.h"
#include "statistical/exact_target.h"
#include "statistical/homogeneity.h"
#include "statistical/power.h"
#include "harness/stat_cases/stat_cases.h"

namespace sampcheck::harness {
namespace {

bool Supports(const Backend& backend, const std::vector<std::string>& stages, const Case& c) {
  return std::find(stages.begin(), stages.end(), c.stage) != stages.end() &&
         backend.Capabilities(c.stage).profiles.Contains(c.profile);
}

std::string Fmt(double x) {
  std::ostringstream s;
  s.precision(4);
  s << x;
  return s.str();
}

CaseResult NewResult(const Case& c, const std::string& suffix, const char* comparison) {
  CaseResult r;
  r.id = c.id + "/" + suffix;
  r.stage = c.stage;
  r.profile = ProfileName(c.profile);
  r.comparison = comparison;
  return r;
}

// Every output of A equal to B's output of the same name, bit for bit.
CaseResult Across(Backend& a, Backend& b, const Case& c) {
  CaseResult r = NewResult(c, "across", "exact");
  TensorMap out[2];
  Backend* backends[2] = {&a, &b};
  for (int k = 0; k < 2; ++k) {
    try {
      out[k] = backends[k]->Run(c.stage, c);
    } catch (const std::exception& e) {
      r.verdict = Verdict::kFail;
      r.reason = "backend '" + backends[k]->Name() + "' failed: " + ExceptionText(e);
      return r;
    }
  }
  const ComparisonRule exact = ComparisonRule::Parse("exact");
  for (const auto& [name, t] : out[0]) {
    auto it = out[1].find(name);
    if (it == out[1].end()) {
      r.verdict = Verdict::kFail;
      r.reason = "output '" + name + "' of '" + a.Name() + "' is missing from '" + b.Name() + "'";
      return r;
    }
    const ComparisonResult cmp = Compare(t.view(), it->second.view(), exact);
    if (!cmp.match) {
      r.verdict = Verdict::kFail;
      r.reason = "output '" + name + "': '" + b.Name() + "' differs from '" + a.Name() + "': " + cmp.detail;
      return r;
    }
  }
  for (const auto& [name, t] : out[1]) {
    if (out[0].count(name) == 0) {
      r.verdict = Verdict::kFail;
      r.reason = "output '" + name + "' of '" + b.Name() + "' is missing from '" + a.Name() + "'";
      return r;
    }
  }
  return r;
}

Tensor Draw(Backend& backend, const Case& c, std::int64_t n, std::uint64_t seed) {
  if (backend.Capabilities(c.stage).count_draws) return backend.CountDraws(c.stage, c, n, seed);
  return statistical::CountDrawsThroughRun(backend, c, n, seed);
}

struct Plan {
  const statistical::StatCase* c = nullptr;
  std::vector<std::int64_t> df;  // per row: |S| - 1
  std::string error;
};

// The homogeneity family: one plan per selected statistical case both backends draw, with the
// df of each row's comparison; m counts the tests (rows with df > 0) the family holds.
std::vector<Plan> PlanHomogeneity(Backend& a, Backend& b, const std::vector<statistical::StatCase>& cases,
                                  const TwoSampleOptions& options, std::int64_t& m) {
  const auto stages_a = a.SupportedStages(), stages_b = b.SupportedStages();
  std::vector<Plan> plans;
  for (const auto& sc : cases) {
    const Case& c = sc.input;
    if (!Selected(options.stages, c.stage) || !Selected(options.profiles, c.profile)) continue;
    if (!Supports(a, stages_a, c) || !Supports(b, stages_b, c)) continue;
    // A backend that declines a stage's statistical batches (StageCapabilities::statistical_skip_reason,
    // e.g. the gpu backends' pipeline) is not asked for them here either.
    if (!a.Capabilities(c.stage).statistical_skip_reason.empty() ||
        !b.Capabilities(c.stage).statistical_skip_reason.empty()) {
      continue;
    }
    // A tail family's law is that of one stated noise floor (docs/spec/harness.md "Tail
    // amplifiers"): two backends drawing with different noise (own CountDraws, or Run) may
    // rightly differ there, so it is no homogeneity case.
    if (sc.floor_target != statistical::FloorTarget::kNone) continue;
    Plan plan;
    plan.c = &sc;
    try {
      for (const auto& row : statistical::ComputeExactTarget(c).rows) {
        const auto support = std::count_if(row.p.begin(), row.p.end(), [](double p) { return p > 0.0; });
        plan.df.push_back(std::max<std::int64_t>(0, support - 1));
      }
    } catch (const std::exception& e) {
      plan.error = "configuration error: " + ExceptionText(e);
    }
    for (std::int64_t df : plan.df) m += df > 0;
    plans.push_back(std::move(plan));
  }
  return plans;
}

}  // namespace

std::vector<CaseResult> RunTwoSample(Backend& a, Backend& b, const TwoSampleOptions& options) {
  for (const auto& s : options.stages) RequireStage(s);
  for (const auto& p : options.profiles) ParseProfile(p);
  const auto stages_a = a.SupportedStages(), stages_b = b.SupportedStages();
  std::vector<CaseResult> results;
  if (options.bitwise) {
    for (const Case& c : golden::BuildGoldenCases(golden::kDefaultGoldenSeed)) {
      if (!Selected(options.stages, c.stage) || !Selected(options.profiles, c.profile)) continue;
      if (!Supports(a, stages_a, c) || !Supports(b, stages_b, c)) continue;
      results.push_back(Across(a, b, c));
    }
  }
  if (!options.homogeneity) return results;
  // Homogeneity: plan the family first (m), then size each case at the Holm-worst level.
  const std::vector<statistical::StatCase> cases = statistical::DrawStatCases();
  std::int64_t m = 0;
  const std::vector<Plan> plans = PlanHomogeneity(a, b, cases, options, m);
  const double alpha_test = statistical::kFamilyWiseAlpha / static_cast<double>(std::max<std::int64_t>(1, m));
  std::vector<CaseResult> tests;
  for (const Plan& plan : plans) {
    const Case& c = plan.c->input;
    const double mde = options.thorough ? plan.c->mde_tv_thorough : plan.c->mde_tv_ci;
    const double w2 = 4.0 * mde * mde;
    std::int64_t n = 1;
    for (std::int64_t df : plan.df) {
      if (df > 0) n = std::max(n, 2 * statistical::ChiSquareSampleSize(static_cast<double>(df), w2, alpha_test));
    }
    CaseResult failure = NewResult(c, "two_sample", "distribution");
    failure.verdict = Verdict::kFail;
    if (!plan.error.empty()) {
      failure.reason = plan.error;
      results.push_back(failure);
      continue;
    }
    if (n > options.max_draws) {
      failure.reason = "configuration error: n = " + std::to_string(n) + " draws per side exceeds " +
                       std::to_string(options.max_draws);
      results.push_back(failure);
      continue;
    }
    Tensor counts[2];
    try {
      counts[0] = Draw(a, c, n, statistical::CaseSeed(plan.c->id + "/a", options.seed_epoch));
      counts[1] = Draw(b, c, n, statistical::CaseSeed(plan.c->id + "/b", options.seed_epoch));
    } catch (const std::exception& e) {
      failure.reason = ExceptionText(e);
      results.push_back(failure);
      continue;
    }
    const std::int64_t rows = counts[0].dim(0), vocab = counts[0].dim(1);
    if (counts[1].shape() != counts[0].shape()) {
      failure.reason = "count shapes differ between '" + a.Name() + "' and '" + b.Name() + "'";
      results.push_back(failure);
      continue;
    }
    for (std::int64_t row = 0; row < rows; ++row) {
      if (plan.df[static_cast<std::size_t>(row)] == 0) continue;  // one token: nothing to compare
      const auto at = static_cast<std::size_t>(row * vocab), len = static_cast<std::size_t>(vocab);
      const auto ra = counts[0].data<std::int64_t>().subspan(at, len);
      const auto rb = counts[1].data<std::int64_t>().subspan(at, len);
      const auto h = statistical::HomogeneityTest(ra, rb);
      if (h.df <= 0) continue;  // pooling left one bin: no information (as the draw harness's L3)
      CaseResult r = NewResult(c, rows > 1 ? "row" + std::to_string(row) + "/two_sample" : "two_sample", "distribution");
      TestStatistics s;
      s.layer = TestLayer::kOmnibus;
      s.test = "two-sample-homogeneity";
      s.n = n;
      s.bins = h.bins;
      s.df = h.df;
      s.statistic = h.statistic;
      s.p_value = h.p_value;
      s.p_adjusted = h.p_value;
      s.alpha = statistical::kFamilyWiseAlpha;
      s.mde = mde;
      s.power = statistical::ChiSquarePower(h.df, static_cast<double>(n) / 2.0 * w2, alpha_test);
      s.seed = statistical::CaseSeed(plan.c->id + "/a", options.seed_epoch);
      for (const auto& bin : h.top_bins) {
        s.top_bins.push_back({bin.tokens.size() == 1 ? "token " + std::to_string(bin.tokens[0])
                                                     : std::to_string(bin.tokens.size()) + " tokens",
                              static_cast<std::int64_t>(bin.observed_a), bin.expected_a, bin.residual});
      }
      r.statistics = std::move(s);
      r.reason = "'" + a.Name() + "' vs '" + b.Name() + "': homogeneity statistic " + Fmt(h.statistic) + ", df " + Fmt(h.df) +
                 ", p = " + Fmt(h.p_value) + " (n = " + std::to_string(n) + " per side)";
      tests.push_back(std::move(r));
    }
  }
  statistical::ApplyHolm(tests, statistical::kFamilyWiseAlpha);
  results.insert(results.end(), tests.begin(), tests.end());
  return results;
}

}  // namespace sampcheck::harness
