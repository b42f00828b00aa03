// SPDX-License-Identifier: Apache-2.0
// The draw harness (harness/draw_harness.h): seeds, report fields, the noise-as-input path,
// configuration errors and malformed counts. Statistical verdicts of the reference and of the
// wrong samplers are in statistical_calibration_test and statistical_power_proof_test.
#include "harness/draw_harness.h"

#include <algorithm>

#include <limits>

#include <gtest/gtest.h>

#include "core/error.h"
#include "reference/reference_backend.h"
#include "reference/row_threads.h"
#include "reports/statistics_json.h"
#include "harness/noise_harness.h"
#include "harness/stat_cases/stat_cases.h"
#include "tests/support/draw_batches_case.h"

namespace sampcheck::statistical {
namespace {

std::vector<StatCase> Select(const std::vector<std::string>& ids) {
  std::vector<StatCase> out;
  for (auto& c : DrawStatCases()) {
    if (std::find(ids.begin(), ids.end(), c.id) != ids.end()) out.push_back(std::move(c));
  }
  EXPECT_EQ(out.size(), ids.size());
  return out;
}

// The reference without its own randomness: the harness must drive Run with its noise.
class RunOnlyBackend final : public Backend {
 public:
  std::string Name() const override { return "run-only"; }
  std::vector<std::string> SupportedStages() const override { return ref_.SupportedStages(); }
  TensorMap Run(const std::string& stage, const Case& c) override { return ref_.Run(stage, c); }

 private:
  reference::ReferenceBackend ref_;
};

// Counts that do not sum to n.
class ShortCountsBackend final : public Backend {
 public:
  std::string Name() const override { return "short"; }
  std::vector<std::string> SupportedStages() const override { return {"exponential_race"}; }
  TensorMap Run(const std::string&, const Case&) override { return {}; }
  StageCapabilities Capabilities(const std::string&) const override { return {.count_draws = true}; }
  Tensor CountDraws(const std::string&, const Case& c, std::int64_t, std::uint64_t) override {
    const auto v = c.inputs.at("probs").dim(1);
    return Tensor(DType::kI64, {1, v});  // all zero
  }
};

TEST(DrawHarness, CaseSeedIsFnv1aThenSplitMix64) {
  // Independent Python computation (FNV-1a 64 of the id, XOR epoch * 0x9E3779B97F4A7C15, one
  // SplitMix64 step); FNV-1a 64 of "a" is the published 0xaf63dc4c8601ec8c.
  EXPECT_EQ(CaseSeed("a", 0), 0x5f29c2aadd9b8527ull);
  EXPECT_EQ(CaseSeed("stats/exponential_race/dyadic_v8/canonical", 0), 0x35ccbc5d7c22e7d2ull);
  EXPECT_EQ(CaseSeed("stats/exponential_race/dyadic_v8/canonical", 1), 0x3ea811af812c0dacull);
}

TEST(DrawHarness, CaseIdsAreUniqueAndDeclareEffects) {
  const auto cases = DrawStatCases();
  std::vector<std::string> ids;
  for (const auto& c : cases) {
    ids.push_back(c.id);
    EXPECT_GT(c.mde_tv_ci, 0.0) << c.id;
    EXPECT_LE(c.mde_tv_thorough, c.mde_tv_ci) << c.id;
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

void ExpectReportFields(const CaseResult& r) {
  SCOPED_TRACE(r.id);
  ASSERT_TRUE(r.statistics.has_value());
  const nlohmann::json s = reports::StatisticsToJson(*r.statistics);
  for (const char* key : {"layer", "test", "n", "bins", "df", "statistic", "p_value", "p_adjusted", "alpha", "mde", "power",
                          "seed", "effect", "top_bins", "expected", "observed", "labels"}) {
    EXPECT_TRUE(s.contains(key)) << key;
  }
  EXPECT_TRUE(s["effect"].contains("name"));
  EXPECT_EQ(s["effect"]["interval"].size(), 2u);
  EXPECT_EQ(s["expected"].size(), s["observed"].size());
  EXPECT_EQ(s["expected"].size(), s["labels"].size());
  EXPECT_LE(s["top_bins"].size(), 5u);
  EXPECT_GE(s["p_adjusted"].get<double>(), s["p_value"].get<double>());
  EXPECT_EQ(r.comparison, "distribution");
}

TEST(DrawHarness, ReferencePassesWithCompleteReports) {
  reference::ReferenceBackend backend;
  auto cases = Select({"stats/exponential_race/dyadic_v8/canonical", "stats/pipeline/top_k_ties_v1023/vllm",
                        "stats/pipeline/mixed_v8193/canonical"});
  // Reports are what is checked: mixed_v8193 without its rank tests (3.9e6 draws on each of
  // its four rows of V = 8193, stat_cases.h kRankFilterCi) keeps the test at its 4e4 draws.
  for (auto& c : cases) c.mde_rank_ci = c.id.starts_with("stats/pipeline/mixed_v8193/") ? 0.0 : c.mde_rank_ci;
  const auto results = RunDrawHarness(backend, cases);
  // dyadic: L1 L2 L3; ties: L1 L2 L3; mixed: row0 L1 (greedy), rows 1-3 L1 L2? L3.
  ASSERT_GE(results.size(), 10u);
  for (const auto& r : results) {
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
    ExpectReportFields(r);
    // Power at the declared effect reaches the target (n was derived for it), except the
    // structural check whose power is 1 - (1 - mde)^n >= 0.99 by construction too.
    EXPECT_GE(r.statistics->power, 0.99 - 1e-9) << r.id;
  }
  EXPECT_TRUE(std::any_of(results.begin(), results.end(), [](const auto& r) { return r.id == "stats/pipeline/mixed_v8193/canonical/row0/L1"; }));
}

TEST(DrawHarness, FloorTargetNeedsTheBackendsOwnDrawsAndItsRowShape) {
  // Driven through Run, the harness's noise (cuRAND-style, no q = +0) would set the floor the
  // exact law is about (race_floor_law.h): skipped, with the reason.
  RunOnlyBackend run_only;
  const auto skipped = RunDrawHarness(run_only, Select({"stats/exponential_race/tail_floor_v1024/canonical"}));
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].verdict, Verdict::kSkip);
  EXPECT_NE(skipped[0].reason.find("own race noise"), std::string::npos) << skipped[0].reason;
  // A backend counting with its own noise (here the reference's draws, undeclared) has its own
  // floor, finer or coarser: the reference's floor law is not its target, so it is skipped too
  // rather than failed for a floor the spec does not prescribe.
  class OwnNoise final : public Backend {
   public:
    std::string Name() const override { return "own-noise"; }
    std::vector<std::string> SupportedStages() const override { return ref_.SupportedStages(); }
    TensorMap Run(const std::string& stage, const Case& c) override { return ref_.Run(stage, c); }
    StageCapabilities Capabilities(const std::string& stage) const override {
      return {.count_draws = ref_.Capabilities(stage).count_draws};
    }
    Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override {
      return ref_.CountDraws(stage, c, draws, seed);
    }

   private:
    reference::ReferenceBackend ref_;
  } own_noise;
  const auto own = RunDrawHarness(own_noise, Select({"stats/exponential_race/tail_floor_v1024/canonical"}));
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].verdict, Verdict::kSkip);
  EXPECT_NE(own[0].reason.find("other noise"), std::string::npos) << own[0].reason;
  // A row that is not one strong token and a group of equal weak ones is a configuration error.
  auto cases = Select({"stats/exponential_race/dyadic_v8/canonical"});
  cases[0].floor_target = FloorTarget::kCanonicalRace;
  reference::ReferenceBackend backend;
  const auto bad = RunDrawHarness(backend, cases);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].verdict, Verdict::kFail);
  EXPECT_NE(bad[0].reason.find("equal weights"), std::string::npos) << bad[0].reason;
}

TEST(DrawHarness, SameEpochSameVerdictsAndStatistics) {
  reference::ReferenceBackend backend;
  auto cases = Select({"stats/pipeline/min_p_v100/vllm"});  // sglang has no seeded min-p
  cases[0].mde_rank_ci = 0.0;  // three runs of the case: without the rank test's 3.9e6 draws each
  const auto a = RunDrawHarness(backend, cases);
  const auto b = RunDrawHarness(backend, cases);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].statistics, b[i].statistics);
  DrawHarnessOptions other;
  other.seed_epoch = 1;
  const auto c = RunDrawHarness(backend, cases, other);
  EXPECT_NE(a.back().statistics->seed, c.back().statistics->seed);
  EXPECT_NE(a.back().statistics->statistic, c.back().statistics->statistic);
}

TEST(DrawHarness, NoiseAsInputPathWhenTheBackendCannotDraw) {
  RunOnlyBackend backend;
  auto cases = Select({"stats/exponential_race/dyadic_v8/canonical", "stats/gumbel_max/scores_v100/canonical",
                       "stats/pipeline/temperature_v50/vllm", "stats/pipeline/top_p_dyadic_v8/canonical",
                       "stats/pipeline/top_p_dyadic_v8/sglang", "stats/exponential_race/decay_v100/vllm",
                       "stats/qsample/decay_v100/ascend_v2", "stats/multinomial_with_seed/decay_v100/sglang",
                       "stats/multinomial_with_seed_token_ids/decay_v100/sglang", "stats/gumbel_max/decay_v100/sglang"});
  // The noise path is what is tested here: without the exponent tests (2e6-3e6 draws each,
  // stat_cases.cc) the cases keep the n of their other layers and Run stays cheap.
  for (auto& c : cases) c.mde_exponent_ci = 0.0;
  const auto results = RunDrawHarness(backend, cases);
  ASSERT_GE(results.size(), 25u);
  for (const auto& r : results) EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
}

TEST(DrawHarness, NoiseCaseReplicatesRowsWithNoise) {
  const auto cases = Select({"stats/pipeline/mixed_v8193/canonical", "stats/pipeline/mixed_v8193/vllm"});  // list order
  const Case vllm = DrawNoiseCase(cases[1].input, 3, 9);
  EXPECT_EQ(vllm.inputs.at("logits").shape(), (Shape{12, 8193}));
  EXPECT_EQ(vllm.inputs.at("q").shape(), (Shape{12, 8193}));
  for (float q : vllm.inputs.at("q").data<float>()) ASSERT_TRUE(q >= 0x1p-24f && q < 23.0f) << q;
  const Case canonical = DrawNoiseCase(cases[0].input, 3, 9);
  EXPECT_EQ(canonical.inputs.at("seed").shape(), (Shape{12}));
  EXPECT_EQ(canonical.inputs.at("positions").shape(), (Shape{12}));
}

// The reference's inverse_cdf through Run, declaring concurrent runs, failing every batch
// whose first uniform is one of `fail_on` with that uniform in the message.
class ConcurrentRunBackend final : public Backend {
 public:
  explicit ConcurrentRunBackend(std::vector<float> fail_on = {}) : fail_on_(std::move(fail_on)) {}
  std::string Name() const override { return "concurrent"; }
  std::vector<std::string> SupportedStages() const override { return {"inverse_cdf"}; }
  StageCapabilities Capabilities(const std::string&) const override { return {.concurrent_runs = true}; }
  TensorMap Run(const std::string& stage, const Case& c) override {
    const float u0 = c.inputs.at("u").data<float>()[0];
    if (std::find(fail_on_.begin(), fail_on_.end(), u0) != fail_on_.end()) {
      throw InputError("the batch whose first uniform is " + std::to_string(u0));
    }
    return ref_.Run(stage, c);
  }

 private:
  std::vector<float> fail_on_;
  reference::ReferenceBackend ref_;
};

// Batches of 512 draws (tests/support/draw_batches_case.h); 3 x 512 + 10 draws are 4 batches,
// which 3 threads split as [0], [1], [2, 3].
Case ConcurrentBatchesCase() { return testing::InverseCdfBatchesCase("concurrent"); }
constexpr std::int64_t kConcurrentDraws = 3 * 512 + 10;

TEST(DrawHarness, ConcurrentBatchesCountTheSameAsInOrder) {
  ConcurrentRunBackend backend;
  const Case c = ConcurrentBatchesCase();
  reference::SetRowThreads(1);
  const Tensor in_order = CountDrawsThroughRun(backend, c, kConcurrentDraws, 77);
  reference::SetRowThreads(3);
  const Tensor concurrent = CountDrawsThroughRun(backend, c, kConcurrentDraws, 77);
  reference::SetRowThreads(1);
  ASSERT_EQ(concurrent.shape(), (Shape{2, 2048}));
  EXPECT_TRUE(std::equal(in_order.data<std::int64_t>().begin(), in_order.data<std::int64_t>().end(),
                         concurrent.data<std::int64_t>().begin()));
  for (std::int64_t r = 0; r < 2; ++r) {
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < 2048; ++i) sum += concurrent.data<std::int64_t>()[static_cast<std::size_t>(r * 2048 + i)];
    EXPECT_EQ(sum, kConcurrentDraws) << "row " << r;
  }
}

// Batches 1 and 3 fail; run in order the first error is batch 1's, and so with 3 threads,
// whichever batch fails first in time.
TEST(DrawHarness, ConcurrentBatchesReportTheFirstFailingBatchInOrder) {
  const Case c = ConcurrentBatchesCase();
  auto first_uniform = [&](std::int64_t batch) { return DrawNoiseCase(c, 1, 77, batch * 512).inputs.at("u").data<float>()[0]; };
  const std::string expected = "the batch whose first uniform is " + std::to_string(first_uniform(1));
  ASSERT_NE(first_uniform(1), first_uniform(3));
  for (int threads : {1, 3}) {
    SCOPED_TRACE(threads);
    ConcurrentRunBackend backend({first_uniform(1), first_uniform(3)});
    reference::SetRowThreads(threads);
    try {
      CountDrawsThroughRun(backend, c, kConcurrentDraws, 77);
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), expected);
    }
    reference::SetRowThreads(1);
  }
}

TEST(DrawHarness, UnreachableEffectIsAConfigurationError) {
  reference::ReferenceBackend backend;
  auto cases = Select({"stats/exponential_race/flat_v1023/canonical"});
  cases[0].mde_tv_ci = 1e-4;  // needs ~1e10 draws
  const auto results = RunDrawHarness(backend, cases);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].verdict, Verdict::kFail);
  EXPECT_NE(results[0].reason.find("configuration error"), std::string::npos) << results[0].reason;
}

TEST(DrawHarness, MalformedCountsFailTheCase) {
  ShortCountsBackend backend;
  const auto results = RunDrawHarness(backend, Select({"stats/exponential_race/dyadic_v8/canonical"}));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].verdict, Verdict::kFail);
  EXPECT_NE(results[0].reason.find("were asked for"), std::string::npos) << results[0].reason;
}

// Counts whose int64 sum wraps to n: 2 (2^63 - 1) + (n + 2) = n mod 2^64. Summing them
// unchecked was undefined behaviour and, wrapped, matched n.
class WrappingCountsBackend final : public Backend {
 public:
  std::string Name() const override { return "wrapping"; }
  std::vector<std::string> SupportedStages() const override { return {"exponential_race"}; }
  TensorMap Run(const std::string&, const Case&) override { return {}; }
  StageCapabilities Capabilities(const std::string&) const override { return {.count_draws = true}; }
  Tensor CountDraws(const std::string&, const Case& c, std::int64_t draws, std::uint64_t) override {
    Tensor t(DType::kI64, {1, c.inputs.at("probs").dim(1)});
    auto v = t.data<std::int64_t>();
    v[0] = v[1] = std::numeric_limits<std::int64_t>::max();
    v[2] = draws + 2;
    return t;
  }
};

TEST(DrawHarness, CountsAboveNFailWithoutOverflow) {
  WrappingCountsBackend backend;
  const auto results = RunDrawHarness(backend, Select({"stats/exponential_race/dyadic_v8/canonical"}));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].verdict, Verdict::kFail);
  EXPECT_NE(results[0].reason.find("more draws than the"), std::string::npos) << results[0].reason;
}

TEST(DrawHarness, UnsupportedStageIsSkippedAndBudgetSkipsTheRest) {
  ShortCountsBackend backend;
  const auto results = RunDrawHarness(backend, Select({"stats/gumbel_max/scores_v100/canonical"}));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].verdict, Verdict::kSkip);
  reference::ReferenceBackend ref;
  DrawHarnessOptions tight;
  tight.budget_seconds = 1e-9;
  const auto budget = RunDrawHarness(ref, Select({"stats/exponential_race/dyadic_v8/canonical", "stats/exponential_race/peaked_v100/canonical"}), tight);
  EXPECT_EQ(budget.back().verdict, Verdict::kSkip);
  EXPECT_NE(budget.back().reason.find("budget"), std::string::npos);
}

std::int64_t DrawsOf(const std::vector<CaseResult>& results, const std::string& l1_id) {
  for (const auto& r : results) {
    if (r.id == l1_id) return r.statistics->n;
  }
  ADD_FAILURE() << "no result " << l1_id;
  return -1;
}

TEST(DrawHarness, NDependsOnTheCaseAloneNotOnTheSelection) {
  // A case's n is sized at alpha / kDeclaredFamilySize whatever else the run holds: alone, with
  // other cases (a larger m) and with extra tests in the family it gets the same n, hence the
  // same draws and verdicts.
  reference::ReferenceBackend backend;
  const std::string id = "stats/exponential_race/dyadic_v8/canonical";
  const auto alone = RunDrawHarness(backend, Select({id}));
  const auto among = RunDrawHarness(backend, Select({id, "stats/exponential_race/peaked_v100/canonical",
                                                     "stats/pipeline/top_k_ties_v1023/vllm"}));
  DrawHarnessOptions extra;
  extra.extra_family_tests = 60;
  const auto with_extra = RunDrawHarness(backend, Select({id}), extra);
  const std::int64_t n = DrawsOf(alone, id + "/L1");
  EXPECT_GT(n, 0);
  EXPECT_EQ(DrawsOf(among, id + "/L1"), n);
  EXPECT_EQ(DrawsOf(with_extra, id + "/L1"), n);
  EXPECT_EQ(alone.back().statistics->statistic, with_extra.back().statistics->statistic);
}

TEST(DrawHarness, AFamilyLargerThanTheDeclaredOneIsAConfigurationError) {
  // n was sized for the declared family; a run with more tests would test below that level
  // and lose power, so it fails instead of passing quietly.
  reference::ReferenceBackend backend;
  DrawHarnessOptions small;
  small.declared_family_size = 1;  // dyadic_v8 alone plans an L2 and an L3 test
  const auto results = RunDrawHarness(backend, Select({"stats/exponential_race/dyadic_v8/canonical"}), small);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].verdict, Verdict::kFail);
  EXPECT_NE(results[0].reason.find("declared family"), std::string::npos) << results[0].reason;
}

TEST(DrawHarness, TheWholeSuiteFitsItsDeclaredFamilyAtBothSizes) {
  // Every statistical case with the noise harness's tests beside it, as `sampcheck stats` runs
  // them, must plan no more tests than its size's declared family (draw_harness.h): otherwise
  // every case of a full run fails as a configuration error (the --thorough suite grew to 273
  // past the old 256 unnoticed). Plans only: a budget spent before the first case skips the
  // draws, while plan errors are reported first.
  reference::ReferenceBackend backend;
  for (const bool thorough : {false, true}) {
    SCOPED_TRACE(thorough ? "thorough" : "CI");
    DrawHarnessOptions options;
    options.thorough = thorough;
    options.extra_family_tests = BackendNoiseFamilySize();
    options.budget_seconds = 1e-9;
    const auto results = RunDrawHarness(backend, DrawStatCases(), options);
    ASSERT_FALSE(results.empty());
    for (const auto& r : results) {
      ASSERT_EQ(r.reason.find("configuration error"), std::string::npos) << r.id << ": " << r.reason;
    }
  }
}

TEST(DrawHarness, AmplifierSizeFollowsItsDeclaredTargetedEffect) {
  // The amplifier's n comes from L2 alone: 16x the weak token for CI, 4x under --thorough.
  // Poisson approximation (hand, Python): at the sizing level 1e-4 / 256 / 2 the critical
  // count and power 0.99 need about 1.35e6 draws for 16x and 1.37e7 for 4x.
  reference::ReferenceBackend backend;
  const std::string id = "stats/exponential_race/amplifier_v2/canonical";
  const auto cases = Select({id});
  ASSERT_TRUE(cases[0].targeted_ratio_thorough.has_value());
  DrawHarnessOptions thorough;
  thorough.thorough = true;
  const auto ci = RunDrawHarness(backend, cases);
  const auto th = RunDrawHarness(backend, cases, thorough);
  const std::int64_t n_ci = DrawsOf(ci, id + "/L1"), n_th = DrawsOf(th, id + "/L1");
  EXPECT_GT(n_ci, 1'200'000);
  EXPECT_LT(n_ci, 1'500'000);
  EXPECT_GT(n_th, 12'000'000);
  EXPECT_LT(n_th, 15'500'000);
  for (const auto& r : th) EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
}

TEST(DrawHarness, TopPOnADyadicSumTestsTheLawNotOnlyLeaks) {
  // top_p = 15/16 leaves tokens 0..2 unambiguous: L2 (token 2's share 1/7) and L3 run.
  reference::ReferenceBackend backend;
  const auto results = RunDrawHarness(backend, Select({"stats/pipeline/top_p_dyadic_v8/canonical"}));
  std::vector<std::string> layers;
  for (const auto& r : results) layers.push_back(std::string(TestLayerName(r.statistics->layer)));
  EXPECT_EQ(layers, (std::vector<std::string>{"L1", "L2", "L3"}));
  for (const auto& r : results) {
    if (r.statistics->layer == TestLayer::kTargeted) {
      EXPECT_NEAR(r.statistics->expected[0] / static_cast<double>(r.statistics->n), 1.0 / 7.0, 1e-6);
    }
  }
}

TEST(DrawHarness, HolmAdjustsAcrossTheRun) {
  // Hand: Holm of {0.01, 0.04, 0.03} is {0.03, 0.06, 0.06} (R p.adjust); with alpha 0.05 the
  // first is rejected, the others not. L1 results are left alone.
  std::vector<CaseResult> r(4);
  const double p[] = {0.01, 0.04, 0.03};
  for (int i = 0; i < 3; ++i) {
    auto& s = r[static_cast<std::size_t>(i)].statistics.emplace();
    s.layer = TestLayer::kOmnibus;
    s.p_value = p[i];
  }
  auto& structural = r[3].statistics.emplace();
  structural.layer = TestLayer::kStructural;
  structural.p_value = 0.0;
  structural.p_adjusted = 0.0;
  structural.alpha = 0.0;
  r[3].verdict = Verdict::kFail;
  ApplyHolm(r, 0.05);
  EXPECT_DOUBLE_EQ(r[0].statistics->p_adjusted, 0.03);
  EXPECT_DOUBLE_EQ(r[1].statistics->p_adjusted, 0.06);
  EXPECT_EQ(r[0].verdict, Verdict::kFail);
  EXPECT_EQ(r[1].verdict, Verdict::kPass);
  EXPECT_EQ(r[2].verdict, Verdict::kPass);
  EXPECT_EQ(r[3].verdict, Verdict::kFail);
  EXPECT_EQ(r[3].statistics->p_adjusted, 0.0);  // untouched
  EXPECT_EQ(r[3].statistics->alpha, 0.0);
}

}  // namespace
}  // namespace sampcheck::statistical
