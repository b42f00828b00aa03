// SPDX-License-Identifier: Apache-2.0
// The CI gate (reports/gate.h) on the hand-made fixtures of tests/data/reports (see its
// README.md) and variations of them built here. Each expected verdict follows from the rules
// in gate.h applied by hand to the fixture numbers, written next to each test.
#include "reports/gate.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "core/error.h"
#include "reports/report_reader.h"

namespace sampcheck::reports {
namespace {

const std::filesystem::path kFixtures = std::filesystem::path(SAMPCHECK_SOURCE_DIR) / "tests/data/reports";

nlohmann::json Fixture(const char* name) { return LoadReport(kFixtures / name); }

nlohmann::json& CaseById(nlohmann::json& report, const std::string& id) {
  for (auto& c : report["cases"]) {
    if (c["id"] == id) return c;
  }
  throw std::logic_error("no case " + id);
}

void SetEffect(nlohmann::json& report, const std::string& id, double value, double lo, double hi) {
  auto& effect = CaseById(report, id)["statistics"]["effect"];
  effect["value"] = value;
  effect["interval"] = {lo, hi};
}

std::string Kinds(const GateResult& result) {
  std::string out;
  for (const auto& r : result.regressions) out += std::string(RegressionKindName(r.kind)) + " " + r.case_id + "; ";
  return out;
}

TEST(Gate, CleanRunPasses) {
  // clean_run: same verdicts as the baseline; gumbel's TV grows 0.003 -> 0.0045 = 0.075 mde.
  const auto result = EvaluateGate(Fixture("clean_run.json"), Fixture("baseline.json"), {});
  EXPECT_TRUE(result.Passed()) << Kinds(result);
  EXPECT_EQ(FormatGateResult(result), "gate: PASS\n");
}

TEST(Gate, FailsOnNewFailureStatisticalRejectionAndEffectGrowth) {
  // mixed_run against baseline: greedy/ties/vllm fails (baseline pass) -> new failure;
  // draws/inverse_cdf/vllm has p_adjusted 4e-7 < alpha 1e-6 -> statistical rejection, and its
  // TV grew 0.005 -> 0.06 = +2.75 mde with disjoint intervals [0.001, 0.009] < [0.05, 0.07]
  // -> effect growth. gumbel: +0.001 = 0.05 mde, below the tolerance.
  const auto result = EvaluateGate(Fixture("mixed_run.json"), Fixture("baseline.json"), {});
  EXPECT_EQ(Kinds(result),
            "new-failure greedy/ties/vllm; statistical-rejection draws/inverse_cdf/vllm; "
            "effect-growth draws/inverse_cdf/vllm; ");
  const std::string text = FormatGateResult(result);
  EXPECT_NE(text.find("REGRESSION new-failure greedy/ties/vllm: fails (baseline: pass): bits differ at row 0 token 3"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("REGRESSION statistical-rejection draws/inverse_cdf/vllm: rejected after the Holm correction: "
                      "cressie-read(2/3): p = 1e-07, Holm-adjusted 4e-07 < alpha 1e-06"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("REGRESSION effect-growth draws/inverse_cdf/vllm: TV grew from 0.005 [0.001, 0.009] to "
                      "0.06 [0.05, 0.07]: |effect| +0.055 = 2.75 mde (mde 0.02) > tolerance 0.25 mde"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gate: FAIL: 3 regression(s): 1 statistical-rejection 1 new-failure 1 effect-growth 0 dropped"),
            std::string::npos)
      << text;
}

TEST(Gate, AFixedFailurePassesWithANote) {
  // Swapped roles: the baseline has the failures, the report passes everything it ran.
  const auto result = EvaluateGate(Fixture("baseline.json"), Fixture("mixed_run.json"), {});
  EXPECT_TRUE(result.Passed()) << Kinds(result);
  const std::string text = FormatGateResult(result);
  EXPECT_NE(text.find("note: greedy/ties/vllm: fixed (failing in the baseline)"), std::string::npos) << text;
  EXPECT_NE(text.find("note: draws/inverse_cdf/vllm: fixed"), std::string::npos) << text;
}

TEST(Gate, AFailureAlsoInTheBaselineIsNotARegression) {
  auto baseline = Fixture("baseline.json");
  CaseById(baseline, "greedy/ties/vllm")["verdict"] = "fail";
  auto report = Fixture("clean_run.json");
  CaseById(report, "greedy/ties/vllm")["verdict"] = "fail";
  const auto result = EvaluateGate(report, baseline, {});
  EXPECT_TRUE(result.Passed()) << Kinds(result);
  EXPECT_NE(FormatGateResult(result).find("note: greedy/ties/vllm: still failing"), std::string::npos);
}

TEST(Gate, AStatisticalRejectionFailsEvenIfTheBaselineRejectedToo) {
  const auto result = EvaluateGate(Fixture("mixed_run.json"), Fixture("mixed_run.json"), {});
  EXPECT_EQ(Kinds(result), "statistical-rejection draws/inverse_cdf/vllm; ");
}

TEST(Gate, EffectGrowthInsideAndOutsideTheTolerance) {
  // Baseline gumbel TV 0.003 [0.0005, 0.007], mde 0.02: tolerance 0.25 mde = 0.005.
  const auto baseline = Fixture("baseline.json");
  auto report = Fixture("clean_run.json");
  const std::string id = "draws/gumbel/canonical";
  SetEffect(report, id, 0.007, 0.0071, 0.0075);  // +0.004 = 0.2 mde, disjoint: inside
  EXPECT_TRUE(EvaluateGate(report, baseline, {}).Passed());
  SetEffect(report, id, 0.009, 0.0080, 0.0100);  // +0.006 = 0.3 mde, disjoint: outside
  EXPECT_EQ(Kinds(EvaluateGate(report, baseline, {})), "effect-growth draws/gumbel/canonical; ");
  EXPECT_TRUE(EvaluateGate(report, baseline, {.effect_tolerance = 0.5}).Passed());  // 0.3 < 0.5 mde
  SetEffect(report, id, 0.009, 0.0060, 0.0120);  // +0.3 mde but the intervals overlap: noise
  EXPECT_TRUE(EvaluateGate(report, baseline, {}).Passed());
  SetEffect(report, id, 0.001, 0.0, 0.002);  // a smaller effect is never a regression
  EXPECT_TRUE(EvaluateGate(report, baseline, {}).Passed());
}

TEST(Gate, AFailedStructuralCheckIsAStatisticalRejectionEvenIfTheBaselineFailed) {
  // A layer-L1 case as docs/spec/report.md describes it: alpha 0, p_adjusted 0, verdict fail.
  // p_adjusted < alpha is false, yet the case is a distributional fault.
  auto report = Fixture("clean_run.json");
  auto& c = CaseById(report, "draws/race/canonical");
  c["verdict"] = "fail";
  c["reason"] = "3 of 10000 draws on tokens of probability 0";
  c["statistics"]["alpha"] = 0.0;
  c["statistics"]["p_adjusted"] = 0.0;
  auto baseline = Fixture("baseline.json");
  CaseById(baseline, "draws/race/canonical")["verdict"] = "fail";
  const auto result = EvaluateGate(report, baseline, {});
  EXPECT_EQ(Kinds(result), "statistical-rejection draws/race/canonical; ");
  EXPECT_NE(FormatGateResult(result).find("statistical case failed: 3 of 10000 draws on tokens of probability 0\n    "
                                          "cressie-read(2/3)"),
            std::string::npos)
      << FormatGateResult(result);
}

TEST(Gate, SignedEffectsAreComparedByMagnitude) {
  // A targeted delta (mde 0.02, tolerance 0.005): baseline +0.001 [-0.002, 0.004], the
  // largest magnitude in it 0.004.
  auto baseline = Fixture("baseline.json");
  auto report = Fixture("clean_run.json");
  const std::string id = "draws/gumbel/canonical";
  for (auto* r : {&baseline, &report}) CaseById(*r, id)["statistics"]["effect"]["name"] = "delta";
  SetEffect(baseline, id, 0.001, -0.002, 0.004);
  SetEffect(report, id, -0.009, -0.011, -0.007);  // |.| +0.008 = 0.4 mde; magnitudes [0.007, 0.011] > 0.004
  EXPECT_EQ(Kinds(EvaluateGate(report, baseline, {})), "effect-growth draws/gumbel/canonical; ");
  SetEffect(report, id, -0.009, -0.012, -0.003);  // magnitudes [0.003, 0.012] overlap [0, 0.004]
  EXPECT_TRUE(EvaluateGate(report, baseline, {}).Passed());
  SetEffect(report, id, -0.005, -0.007, -0.0045);  // +0.004 = 0.2 mde: inside the tolerance
  EXPECT_TRUE(EvaluateGate(report, baseline, {}).Passed());
}

TEST(Gate, EffectsWithoutMdeUseAbsoluteUnitsAndDifferentNamesAreNotCompared) {
  auto baseline = Fixture("baseline.json");
  auto report = Fixture("clean_run.json");
  const std::string id = "draws/gumbel/canonical";
  CaseById(baseline, id)["statistics"].erase("mde");
  CaseById(report, id)["statistics"].erase("mde");
  SetEffect(report, id, 0.2, 0.1, 0.3);  // +0.197 absolute < 0.25
  EXPECT_TRUE(EvaluateGate(report, baseline, {}).Passed());
  SetEffect(report, id, 0.3, 0.2, 0.4);  // +0.297 > 0.25
  EXPECT_EQ(Kinds(EvaluateGate(report, baseline, {})), "effect-growth draws/gumbel/canonical; ");
  CaseById(report, id)["statistics"]["effect"]["name"] = "D";
  const auto result = EvaluateGate(report, baseline, {});
  EXPECT_TRUE(result.Passed());
  EXPECT_NE(FormatGateResult(result).find("effect not compared: the baseline measures TV, the report D"),
            std::string::npos);
}

TEST(Gate, MissingAndNewCases) {
  const auto baseline = Fixture("baseline.json");
  auto report = Fixture("clean_run.json");
  // Drop a case that passed in the baseline, skip another; add a passing and a failing new one.
  auto& cases = report["cases"];
  cases.erase(cases.begin());  // greedy/edges/canonical
  CaseById(report, "top_p/random/canonical")["verdict"] = "skip";
  CaseById(report, "top_p/random/canonical")["reason"] = "backend 'x' does not support stage top_p";
  cases.push_back({{"id", "greedy/new/canonical"}, {"stage", "greedy"}, {"verdict", "pass"}, {"reason", ""}});
  cases.push_back({{"id", "greedy/newer/canonical"}, {"stage", "greedy"}, {"verdict", "fail"}, {"reason", "r"}});
  const auto result = EvaluateGate(report, baseline, {});
  EXPECT_EQ(Kinds(result),
            "dropped top_p/random/canonical; new-failure greedy/newer/canonical; dropped greedy/edges/canonical; ");
  const std::string text = FormatGateResult(result);
  EXPECT_NE(text.find("REGRESSION dropped greedy/edges/canonical: passed in the baseline, absent from the report"),
            std::string::npos);
  EXPECT_NE(text.find("REGRESSION new-failure greedy/newer/canonical: fails (not in the baseline): r"),
            std::string::npos);
  EXPECT_NE(text.find("note: 2 case(s) not in the baseline"), std::string::npos);
  // --allow-missing turns the dropped cases into notes; the new failure stays.
  EXPECT_EQ(Kinds(EvaluateGate(report, baseline, {.allow_missing = true})), "new-failure greedy/newer/canonical; ");
}

TEST(Gate, RefusesDuplicateCaseIds) {
  auto report = Fixture("clean_run.json");
  report["cases"].push_back(report["cases"][0]);
  try {
    EvaluateGate(report, Fixture("baseline.json"), {}, "r.json", "b.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json: case id 'greedy/edges/canonical' appears more than once"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace sampcheck::reports
