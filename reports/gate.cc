// SPDX-License-Identifier: Apache-2.0
// The CI gate (reports/gate.h).
#include "reports/gate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "core/error.h"
#include "reports/statistics_summary.h"

namespace sampcheck::reports {
namespace {

using CaseIndex = std::map<std::string, const nlohmann::json*>;

CaseIndex IndexCases(const nlohmann::json& report, const std::string& source) {
  CaseIndex index;
  for (const auto& c : report["cases"]) {
    const std::string id = c["id"];
    if (!index.emplace(id, &c).second) {
      throw InputError(source + ": case id '" + id + "' appears more than once; the gate matches cases by id");
    }
  }
  return index;
}

const nlohmann::json* Statistics(const nlohmann::json& c) {
  const auto it = c.find("statistics");
  return it != c.end() && it->is_object() ? &*it : nullptr;
}

std::string Reason(const nlohmann::json& c) {
  const std::string reason = c.value("reason", std::string());
  return reason.empty() ? "(no reason given)" : reason;
}

struct Effect {
  std::string name;
  double value = 0;
  std::optional<std::pair<double, double>> interval;
};

std::optional<Effect> EffectOf(const nlohmann::json* statistics) {
  if (!statistics) return std::nullopt;
  const auto it = statistics->find("effect");
  if (it == statistics->end() || !it->is_object()) return std::nullopt;
  const auto value = NumberField(*it, "value");
  if (!value) return std::nullopt;
  Effect e{StringField(*it, "name", "effect"), *value, std::nullopt};
  const auto interval = it->find("interval");
  if (interval != it->end() && interval->is_array() && interval->size() == 2 && (*interval)[0].is_number() &&
      (*interval)[1].is_number()) {
    e.interval = std::make_pair((*interval)[0].get<double>(), (*interval)[1].get<double>());
  }
  return e;
}

std::string Describe(const Effect& e) {
  std::string out = FormatNumber(e.value);
  if (e.interval) out += " [" + FormatNumber(e.interval->first) + ", " + FormatNumber(e.interval->second) + "]";
  return out;
}

// The interval of |effect| given the interval [lo, hi] of a signed effect (a targeted delta can
// move either way; TV and D are never negative, so for them this is [lo, hi] itself).
double MagnitudeLow(const std::pair<double, double>& i) {
  return i.first > 0 ? i.first : i.second < 0 ? -i.second : 0.0;
}
double MagnitudeHigh(const std::pair<double, double>& i) { return std::max(std::fabs(i.first), std::fabs(i.second)); }

// Rule 3 of gate.h; appends a regression or a note.
void CompareEffects(const std::string& id, const nlohmann::json* now_stats, const nlohmann::json* base_stats,
                    const GateOptions& options, GateResult& result) {
  const auto now = EffectOf(now_stats), base = EffectOf(base_stats);
  if (!now || !base) return;
  if (now->name != base->name) {
    result.notes.push_back(id + ": effect not compared: the baseline measures " + base->name + ", the report " +
                           now->name);
    return;
  }
  std::optional<double> mde = NumberField(*now_stats, "mde");
  if (!mde || !(*mde > 0)) mde = NumberField(*base_stats, "mde");
  const bool relative = mde && *mde > 0;
  const double unit = relative ? *mde : 1.0;
  const double growth = std::fabs(now->value) - std::fabs(base->value);
  const double threshold = options.effect_tolerance * unit;
  if (!(growth > threshold)) return;
  const bool disjoint =
      !now->interval || !base->interval || MagnitudeLow(*now->interval) > MagnitudeHigh(*base->interval);
  if (!disjoint) return;  // inside sampling noise: the intervals overlap
  std::string reason = now->name + " grew from " + Describe(*base) + " to " + Describe(*now) + ": |effect| +" +
                       FormatNumber(growth);
  if (relative) {
    reason += " = " + FormatNumber(growth / unit) + " mde (mde " + FormatNumber(unit) + ") > tolerance " +
              FormatNumber(options.effect_tolerance) + " mde";
  } else {
    reason += " > tolerance " + FormatNumber(options.effect_tolerance) + " (the case declares no mde)";
  }
  if (now->interval && base->interval) reason += "; the intervals do not overlap";
  result.regressions.push_back({id, RegressionKind::kEffectGrowth, reason});
}

}  // namespace

std::string_view RegressionKindName(RegressionKind kind) {
  switch (kind) {
    case RegressionKind::kStatisticalRejection: return "statistical-rejection";
    case RegressionKind::kNewFailure: return "new-failure";
    case RegressionKind::kEffectGrowth: return "effect-growth";
    case RegressionKind::kDropped: return "dropped";
  }
  return "?";
}

GateResult EvaluateGate(const nlohmann::json& report, const nlohmann::json& baseline, const GateOptions& options,
                        const std::string& report_source, const std::string& baseline_source) {
  const CaseIndex now_cases = IndexCases(report, report_source);
  const CaseIndex base_cases = IndexCases(baseline, baseline_source);
  GateResult result;
  std::size_t new_cases = 0;
  for (const auto& c : report["cases"]) {
    const std::string id = c["id"];
    const std::string verdict = c["verdict"];
    const auto found = base_cases.find(id);
    const nlohmann::json* base = found == base_cases.end() ? nullptr : found->second;
    const std::string base_verdict = base ? (*base)["verdict"].get<std::string>() : "";
    const nlohmann::json* stats = Statistics(c);
    new_cases += base == nullptr;

    const auto p_adjusted = stats ? NumberField(*stats, "p_adjusted") : std::nullopt;
    const auto alpha = stats ? NumberField(*stats, "alpha") : std::nullopt;
    if (p_adjusted && alpha && *p_adjusted < *alpha) {
      result.regressions.push_back({id, RegressionKind::kStatisticalRejection,
                                    "rejected after the Holm correction: " + StatisticsSummary(*stats)});
    } else if (stats && verdict == "fail") {  // a structural check (L1, alpha 0) found a draw off the support
      result.regressions.push_back({id, RegressionKind::kStatisticalRejection,
                                    "statistical case failed: " + Reason(c) + "\n" + StatisticsSummary(*stats)});
    } else if (verdict == "fail") {
      if (base_verdict == "fail") {
        result.notes.push_back(id + ": still failing (also failing in the baseline)");
      } else {
        result.regressions.push_back(
            {id, RegressionKind::kNewFailure,
             (base ? "fails (baseline: " + base_verdict + "): " : std::string("fails (not in the baseline): ")) +
                 Reason(c)});
      }
    }
    if (base && verdict == "pass" && base_verdict == "fail") result.notes.push_back(id + ": fixed (failing in the baseline)");
    if (base && verdict == "skip" && base_verdict == "pass") {
      const std::string what = "passed in the baseline, now skipped: " + Reason(c);
      if (options.allow_missing) {
        result.notes.push_back(id + ": " + what);
      } else {
        result.regressions.push_back({id, RegressionKind::kDropped, what});
      }
    }
    if (base) CompareEffects(id, stats, Statistics(*base), options, result);
  }
  for (const auto& b : baseline["cases"]) {
    const std::string id = b["id"];
    if (now_cases.count(id) || b["verdict"] != "pass") continue;
    const std::string what = "passed in the baseline, absent from the report";
    if (options.allow_missing) {
      result.notes.push_back(id + ": " + what);
    } else {
      result.regressions.push_back({id, RegressionKind::kDropped, what});
    }
  }
  if (new_cases) result.notes.push_back(std::to_string(new_cases) + " case(s) not in the baseline");
  return result;
}

std::string FormatGateResult(const GateResult& result) {
  std::map<RegressionKind, int> counts;
  std::string out;
  for (const auto& r : result.regressions) {
    ++counts[r.kind];
    std::string reason;
    for (char ch : r.reason) reason += ch == '\n' ? std::string("\n    ") : std::string(1, ch);
    out += "REGRESSION " + std::string(RegressionKindName(r.kind)) + " " + r.case_id + ": " + reason + "\n";
  }
  for (const auto& note : result.notes) out += "note: " + note + "\n";
  if (result.Passed()) return out + "gate: PASS\n";
  out += "gate: FAIL: " + std::to_string(result.regressions.size()) + " regression(s):";
  for (RegressionKind kind : {RegressionKind::kStatisticalRejection, RegressionKind::kNewFailure,
                              RegressionKind::kEffectGrowth, RegressionKind::kDropped}) {
    out += ' ';
    out += std::to_string(counts[kind]);
    out += ' ';
    out += RegressionKindName(kind);
  }
  return out + "\n";
}

}  // namespace sampcheck::reports
