// SPDX-License-Identifier: Apache-2.0
#pragma once
// The CI gate (docs/spec/cli.md "sampcheck gate", docs/spec/report.md): compares a run's
// report.json with a baseline report.json of the same suite and lists what regressed.
//
// Rules, per case id (reports are validated first, reports/report_reader.h):
//  1. statistical rejection: a case whose statistics say p_adjusted < alpha (rejected after
//     the family-wise Holm correction), whatever its verdict, or a case with statistics whose
//     verdict is fail (a structural check, layer L1 with alpha 0, found a draw outside the
//     support), is a regression whether or not the baseline failed too: a distributional
//     fault is never grandfathered;
//  2. new failure: any other case with verdict fail whose baseline case passed, was skipped
//     or is absent. A case failing in both is reported as "still failing", not a regression
//     (the baseline records a known failure);
//  3. effect growth: both cases carry statistics.effect with the same name and a numeric
//     value; effects are compared by magnitude (a targeted delta is signed and may move
//     either way): g = |value| - |baseline value|, in units of the case's declared minimum
//     detectable effect `mde` (absolute units when the case declares none). It is a
//     regression when g > tolerance * mde AND, where both effects have an interval, the
//     smallest |effect| in the report's interval exceeds the largest in the baseline's (the
//     growth is not sampling noise). Default tolerance 0.25 (kDefaultEffectTolerance: why,
//     below);
//  4. dropped: a case that passed in the baseline and is absent from the report, or is now
//     skipped (lost coverage), unless allow_missing.
// Notes (not regressions): fixed cases (fail in the baseline, pass now), cases still failing,
// new cases, effects not compared (different effect names).
//
// Why 0.25 mde: a case's n is chosen so that an effect of mde is rejected with power 0.99 at
// alpha 1e-6; the case itself fails at about that size. The gate should flag drift before
// then, so it flags a quarter of the way. Noise between two runs of a correct sampler does
// not trip it: two independent 99% intervals are disjoint only when the estimates differ by
// more than 2 x 2.576 standard errors, i.e. 3.64 standard errors of the difference,
// probability 1.4e-4 one-sided per case when nothing changed.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sampcheck::reports {

inline constexpr double kDefaultEffectTolerance = 0.25;

struct GateOptions {
  double effect_tolerance = kDefaultEffectTolerance;  // in units of the case's mde; >= 0
  bool allow_missing = false;                         // baseline cases may be absent or skipped
};

enum class RegressionKind { kStatisticalRejection, kNewFailure, kEffectGrowth, kDropped };
std::string_view RegressionKindName(RegressionKind kind);  // "statistical-rejection", ...

struct Regression {
  std::string case_id;
  RegressionKind kind;
  std::string reason;
};

struct GateResult {
  std::vector<Regression> regressions;
  std::vector<std::string> notes;
  bool Passed() const { return regressions.empty(); }
};

// Both documents must have passed ValidateReport. Throws InputError naming `report_source` or
// `baseline_source` when a case id appears twice in one report.
GateResult EvaluateGate(const nlohmann::json& report, const nlohmann::json& baseline, const GateOptions& options,
                        const std::string& report_source = "report", const std::string& baseline_source = "baseline");

// What the CLI prints: one "REGRESSION <kind> <id>: <reason>" line per regression, one
// "note: ..." line per note, then "gate: PASS" or "gate: FAIL: <counts>".
std::string FormatGateResult(const GateResult& result);

}  // namespace sampcheck::reports
