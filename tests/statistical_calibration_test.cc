// SPDX-License-Identifier: Apache-2.0
// Proving the harness works, part 2: calibration (issue 6 section 4; STATS.md L6). The correct
// reference against itself over many seed epochs must give uniform raw p-values (KS on the
// p-values) and a false-alarm rate at a fixed level that matches the level within its exact
// binomial interval; and no case may fail at the harness's own family-wise alpha.
//
// Error budget: the KS check runs at alpha 1e-3 and the false-alarm check at 1e-3 (Clopper–
// Pearson 99.9% interval), two tests per suite: a false failure of a correct harness has
// probability <= 2e-3 per seed set, and the seeds are fixed (epochs 0..E-1). Power: the CI
// variant sees ~360 p-values, so KS at 1e-3 detects a shift of the p-value CDF by about 0.10
// (1.95 / sqrt(360)); the slow variant (~2,900 p-values) by about 0.04.
// The CI variant runs the cases of vocabulary <= 1023 (E = 12); the `slow` variant runs every
// case for E = 60 epochs (a few minutes).
#include <algorithm>
#include <cstdio>

#include <gtest/gtest.h>

#include "reference/reference_backend.h"
#include "statistical/continuous_laws.h"
#include "statistical/draw_harness.h"
#include "statistical/exact_tests.h"
#include "statistical/stat_cases.h"

namespace sampcheck::statistical {
namespace {

constexpr double kCheckAlpha = 1e-3;
constexpr double kFalseAlarmLevel = 0.05;

void Calibrate(const std::vector<StatCase>& cases, std::uint64_t epochs) {
  reference::ReferenceBackend backend;
  std::vector<double> p;
  int failed = 0;
  for (std::uint64_t e = 0; e < epochs; ++e) {
    DrawHarnessOptions options;
    options.seed_epoch = e;
    for (const auto& r : RunDrawHarness(backend, cases, options)) {
      failed += r.verdict == golden::Verdict::kFail;
      if (r.verdict == golden::Verdict::kFail) ADD_FAILURE() << "epoch " << e << ": " << r.id << ": " << r.reason;
      if (r.statistics.is_object() && r.statistics["layer"] != "L1") p.push_back(r.statistics["p_value"].get<double>());
    }
  }
  ASSERT_GE(p.size(), 300u);
  const auto ks = KolmogorovSmirnovTest(p, ContinuousLaw::kUniform01);
  const auto alarms = static_cast<std::int64_t>(std::count_if(p.begin(), p.end(), [](double x) { return x < kFalseAlarmLevel; }));
  const auto rate = BinomialTest(alarms, static_cast<std::int64_t>(p.size()), kFalseAlarmLevel, Alternative::kTwoSided, 1.0 - kCheckAlpha);
  std::printf("%zu p-values over %llu epochs: KS D = %.4f, p = %.4g; %lld below %.2f (rate %.4f [%.4f, %.4f], p = %.4g)\n",
              p.size(), static_cast<unsigned long long>(epochs), ks.statistic, ks.p_value, static_cast<long long>(alarms),
              kFalseAlarmLevel, rate.estimate, rate.interval.lower, rate.interval.upper, rate.p_value);
  EXPECT_GT(ks.p_value, kCheckAlpha) << "raw p-values of the reference are not uniform";
  EXPECT_LE(rate.interval.lower, kFalseAlarmLevel);
  EXPECT_GE(rate.interval.upper, kFalseAlarmLevel);
  EXPECT_EQ(failed, 0);
}

[[maybe_unused]] std::vector<StatCase> SmallCases() {
  std::vector<StatCase> out;
  for (auto& c : DrawStatCases()) {
    if (c.id.find("v8193") == std::string::npos) out.push_back(std::move(c));
  }
  return out;
}

#if defined(SAMPCHECK_CALIBRATION_SLOW)
TEST(CalibrationSlow, ReferenceAgainstItselfEveryCase) { Calibrate(DrawStatCases(), 60); }
#else
TEST(Calibration, ReferenceAgainstItselfCiSized) { Calibrate(SmallCases(), 12); }
#endif

}  // namespace
}  // namespace sampcheck::statistical
