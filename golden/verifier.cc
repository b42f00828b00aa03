// SPDX-License-Identifier: Apache-2.0
// Golden set verification (golden/verifier.h).
#include "golden/verifier.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <utility>

#include "core/atomic_file.h"
#include "core/case_bytes.h"
#include "core/error.h"
#include "core/exception_text.h"
#include "core/half.h"
#include "core/input_limits.h"
#include "core/manifest.h"
#include "core/safetensors.h"
#include "core/selection.h"
#include "core/sha256.h"
#include "core/stage_catalogue.h"
#include "golden/unknown_names.h"

namespace sampcheck::golden {

namespace {

// Cases of one (stage, profile) run through Backend::RunBatch in groups of at most this many,
// so an out-of-process backend starts one child or one command per group, and memory stays
// bounded by a group's case files.
constexpr std::size_t kMaxGroupCases = 32;

// A case that passed the integrity checks and is to be run.
struct PendingCase {
  std::size_t result_index;
  GoldenCase golden;
};

// Reads and checks one case file; fills r and returns nullopt when the case is decided
// without running it (integrity failure, unsupported stage or profile).
std::optional<GoldenCase> PrepareCase(const std::filesystem::path& dir, const ManifestEntry& e, const Backend& backend,
                                      const std::vector<std::string>& supported, const VerifyOptions& options,
                                      CaseResult& r) {
  const std::filesystem::path path = dir / e.file;
  const std::string bytes = ReadBoundedFile(path, MaxCaseBytes(), kMaxCaseBytesVariable);
  const std::string digest = Sha256Hex(bytes);
  if (digest != e.sha256) {
    r.verdict = Verdict::kFail;
    r.reason = path.string() + ": SHA-256 " + digest + " does not match the manifest's " + e.sha256;
    return std::nullopt;
  }
  GoldenCase g = ParseCase(std::as_bytes(std::span(bytes.data(), bytes.size())), path.string());
  if (g.input.id != e.id || g.input.stage != e.stage || g.input.profile != e.profile ||
      g.comparison.ToString() != e.comparison) {
    r.verdict = Verdict::kFail;
    r.reason = path.string() + ": case metadata (" + g.input.id + ", " + g.input.stage + ", " +
               std::string(ProfileName(g.input.profile)) + ", " + g.comparison.ToString() +
               ") does not match the manifest entry";
    return std::nullopt;
  }
  if (g.comparison.kind == ComparisonRule::Kind::kDistribution) {
    r.verdict = Verdict::kFail;
    r.reason = path.string() + ": comparison 'distribution' is judged by the statistical harness, never "
               "element-wise; a golden case needs exact or ulp(N)";
    return std::nullopt;
  }
  if (std::string fault = UnknownNames(g.input); !fault.empty()) {
    r.verdict = Verdict::kFail;
    r.reason = path.string() + ": " + fault;
    return std::nullopt;
  }
  // Integrity is checked for every case, supported or not, before deciding to skip.
  if (std::find(supported.begin(), supported.end(), e.stage) == supported.end()) {
    r.verdict = Verdict::kSkip;
    r.reason = "backend '" + backend.Name() + "' does not support stage '" + e.stage + "'";
    return std::nullopt;
  }
  if (!backend.Capabilities(e.stage).profiles.Contains(e.profile)) {
    r.verdict = Verdict::kSkip;
    r.reason = "backend '" + backend.Name() + "' does not declare profile '" + std::string(ProfileName(e.profile)) +
               "' for stage '" + e.stage + "'";
    return std::nullopt;
  }
  if (!backend.Capabilities(e.stage).claims_bitwise) {
    r.verdict = Verdict::kSkip;
    r.reason = "backend '" + backend.Name() + "' claims only the distributional tier for stage '" + e.stage +
               "': judged by the statistical harness, not by goldens";
    return std::nullopt;
  }
  const StageInfo* info = FindStage(e.stage);
  if (options.canonical_rule && info && info->tier == Tier::kCanonical) {
    g.comparison = *options.canonical_rule;
    r.comparison = g.comparison.ToString();
  }
  return g;
}

bool IsNaNAt(const TensorView& t, std::int64_t i) {
  const auto k = static_cast<std::size_t>(i);
  switch (t.dtype()) {
    case DType::kF32: return std::isnan(t.data<float>()[k]);
    case DType::kF64: return std::isnan(t.data<double>()[k]);
    case DType::kF16: return std::isnan(F16BitsToF32(t.data<std::uint16_t>()[k]));
    case DType::kBF16: return std::isnan(BF16BitsToF32(t.data<std::uint16_t>()[k]));
    default: return false;
  }
}

// "[1, 3]": the multi-index of flat index i.
std::string IndexText(const Shape& shape, std::int64_t i) {
  Shape index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] == 0 ? 0 : i % shape[d];
    i = shape[d] == 0 ? 0 : i / shape[d];
  }
  return ShapeString(index);
}

// The first element where `actual` is NaN and the stage's output (`expected`) is not: NaN
// where the stage allows none. Same dtype and shape assumed.
std::optional<std::int64_t> FirstForbiddenNaN(const TensorView& expected, const TensorView& actual) {
  if (!IsFloating(actual.dtype())) return std::nullopt;
  for (std::int64_t i = 0; i < actual.numel(); ++i) {
    if (IsNaNAt(actual, i) && !IsNaNAt(expected, i)) return i;
  }
  return std::nullopt;
}

// Runs one group's cases that passed PrepareCase; `decide(i)` is called as each is judged.
void RunGroup(Backend& backend, const std::string& stage, std::vector<PendingCase>& pending,
              std::vector<CaseResult>& results, const std::function<void(std::size_t)>& decided) {
  if (pending.empty()) return;
  std::vector<const Case*> cases;
  for (const auto& p : pending) cases.push_back(&p.golden.input);
  std::vector<bool> judged(pending.size(), false);
  auto judge = [&](std::size_t i, const Backend::CaseOutcome& outcome) {
    if (i >= pending.size() || judged[i]) return;
    judged[i] = true;
    CaseResult& r = results[pending[i].result_index];
    // A case passes only when judging it ran to the end and found no fault: the verdict is
    // fail until then, so an exception anywhere below (a rule Compare refuses, bad_alloc)
    // can never leave a PASS behind.
    r.verdict = Verdict::kFail;
    r.reason = "the case was not judged";
    std::string reason;
    try {
      reason = outcome.error.empty() ? JudgeOutputs(pending[i].golden, outcome.outputs) : outcome.error;
      if (reason.empty()) {
        r.verdict = Verdict::kPass;
        r.reason.clear();
      } else {
        r.reason = std::move(reason);
      }
    } catch (const std::exception& e) {
      r.reason = "judging the outputs failed: " + ExceptionText(e);
    }
    decided(pending[i].result_index);
  };
  try {
    const auto outcomes = backend.RunBatch(stage, cases, judge);
    if (outcomes.size() != cases.size()) {
      throw InputError("backend returned " + std::to_string(outcomes.size()) + " outcomes for " +
                       std::to_string(cases.size()) + " cases");
    }
    for (std::size_t i = 0; i < outcomes.size(); ++i) judge(i, outcomes[i]);  // backends that did not call back
  } catch (const std::exception& e) {
    for (std::size_t i = 0; i < pending.size(); ++i) judge(i, Backend::CaseOutcome{{}, ExceptionText(e)});
  }
  pending.clear();
}

}  // namespace

std::string JudgeOutputs(const GoldenCase& g, const TensorMap& actual) {
  std::string reasons;
  for (const auto& [name, expected] : g.expected) {
    auto it = actual.find(name);
    if (it == actual.end()) {
      reasons += "output '" + name + "' is missing; ";
      continue;
    }
    const TensorView got = it->second.view();
    if (got.dtype() != expected.dtype()) {
      reasons += "output '" + name + "' has the wrong dtype: " + std::string(DTypeName(got.dtype())) +
                 ", the stage gives " + std::string(DTypeName(expected.dtype())) + "; ";
      continue;
    }
    if (got.shape() != expected.shape()) {
      reasons += "output '" + name + "' has the wrong shape: " + ShapeString(got.shape()) + ", the case needs " +
                 ShapeString(expected.shape()) + "; ";
      continue;
    }
    if (auto nan = FirstForbiddenNaN(expected.view(), got)) {
      reasons += "output '" + name + "' is NaN at " + IndexText(got.shape(), *nan) +
                 " where the stage allows no NaN; ";
      continue;
    }
    ComparisonResult cmp = Compare(expected.view(), got, g.comparison);
    if (!cmp.match) reasons += "output '" + name + "': " + cmp.detail + "; ";
  }
  for (const auto& [name, t] : actual) {
    if (!g.expected.contains(name)) reasons += "unexpected output '" + name + "'; ";
  }
  return reasons.empty() ? reasons : reasons.substr(0, reasons.size() - 2);
}

std::vector<CaseResult> VerifyGoldenSet(const std::filesystem::path& golden_dir, Backend& backend,
                                        const VerifyOptions& options) {
  if (options.canonical_rule && options.canonical_rule->kind == ComparisonRule::Kind::kDistribution) {
    throw InputError("canonical rule 'distribution' cannot compare outputs element-wise; use exact or ulp(N)");
  }
  // A cap variable that is set wrong is a usage error for the whole run, not a fault of each case.
  (void)MaxCaseBytes();
  (void)MaxResponseBytes();
  const Manifest manifest = ReadManifest(golden_dir);
  const std::vector<std::string> supported = backend.SupportedStages();
  std::vector<const ManifestEntry*> selected;
  for (const auto& e : manifest.cases) {
    if (Selected(options.stages, e.stage) && Selected(options.profiles, e.profile)) selected.push_back(&e);
  }
  // Groups: cases of one (stage, profile), up to kMaxGroupCases each, in the order of their
  // first case (the manifest interleaves profiles, so groups are not runs of the manifest).
  std::vector<std::vector<std::size_t>> groups;
  std::map<std::pair<std::string, Profile>, std::size_t> open_group;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const auto key = std::make_pair(selected[i]->stage, selected[i]->profile);
    auto it = open_group.find(key);
    if (it == open_group.end() || groups[it->second].size() >= kMaxGroupCases) {
      it = open_group.insert_or_assign(key, groups.size()).first;
      groups.emplace_back();
    }
    groups[it->second].push_back(i);
  }
  std::vector<CaseResult> results;
  results.reserve(selected.size());
  for (const ManifestEntry* e : selected) {
    results.push_back(
        {e->id, e->stage, std::string(ProfileName(e->profile)), e->comparison, Verdict::kPass, "", std::nullopt});
  }
  std::size_t done = 0;
  auto decided = [&](std::size_t i) {
    ++done;
    if (options.on_case) options.on_case(results[i], done, selected.size());
  };
  std::vector<PendingCase> pending;
  for (const auto& group : groups) {
    for (std::size_t i : group) {
      CaseResult& r = results[i];
      try {
        if (auto g = PrepareCase(golden_dir, *selected[i], backend, supported, options, r)) {
          pending.push_back({i, std::move(*g)});
          continue;
        }
      } catch (const std::exception& ex) {
        r.verdict = Verdict::kFail;
        r.reason = ex.what();
      }
      decided(i);
    }
    RunGroup(backend, selected[group.front()]->stage, pending, results, decided);
  }
  return results;
}

}  // namespace sampcheck::golden
