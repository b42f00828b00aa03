// SPDX-License-Identifier: Apache-2.0
// Golden set verification (golden/verifier.h).
#include "golden/verifier.h"

#include <algorithm>
#include <exception>

#include "core/atomic_file.h"
#include "core/manifest.h"
#include "core/safetensors.h"
#include "core/sha256.h"
#include "core/stage_catalogue.h"

namespace sampcheck::golden {

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kFail: return "fail";
    case Verdict::kSkip: return "skip";
  }
  return "?";
}

namespace {

bool Selected(const std::vector<std::string>& filter, const std::string& name) {
  return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
}

// Fills r.verdict/r.reason for one case.
void VerifyCase(const std::filesystem::path& dir, const ManifestEntry& e, Backend& backend,
                const std::vector<std::string>& supported, const VerifyOptions& options, CaseResult& r) {
  const std::filesystem::path path = dir / e.file;
  const std::string bytes = ReadWholeFile(path);
  const std::string digest = Sha256Hex(bytes);
  if (digest != e.sha256) {
    r.verdict = Verdict::kFail;
    r.reason = path.string() + ": SHA-256 " + digest + " does not match the manifest's " + e.sha256;
    return;
  }
  GoldenCase g = ReadCaseFile(path);
  if (g.input.id != e.id || g.input.stage != e.stage || g.input.profile != e.profile ||
      g.comparison.ToString() != e.comparison) {
    r.verdict = Verdict::kFail;
    r.reason = path.string() + ": case metadata (" + g.input.id + ", " + g.input.stage + ", " +
               g.input.profile + ", " + g.comparison.ToString() +
               ") does not match the manifest entry";
    return;
  }
  // Integrity is checked for every case, supported or not, before deciding to skip.
  if (std::find(supported.begin(), supported.end(), e.stage) == supported.end()) {
    r.verdict = Verdict::kSkip;
    r.reason = "backend '" + backend.Name() + "' does not support stage '" + e.stage + "'";
    return;
  }
  const StageInfo* info = FindStage(e.stage);
  if (options.canonical_rule && info && info->tier == Tier::kCanonical) {
    g.comparison = *options.canonical_rule;
    r.comparison = g.comparison.ToString();
  }
  TensorMap actual = backend.Run(e.stage, g.input);
  std::string reasons;
  for (const auto& [name, expected] : g.expected) {
    auto it = actual.find(name);
    if (it == actual.end()) {
      reasons += "output '" + name + "' is missing; ";
      continue;
    }
    ComparisonResult cmp = Compare(expected.view(), it->second.view(), g.comparison);
    if (!cmp.match) reasons += "output '" + name + "': " + cmp.detail + "; ";
  }
  for (const auto& [name, t] : actual) {
    if (!g.expected.contains(name)) reasons += "unexpected output '" + name + "'; ";
  }
  if (!reasons.empty()) {
    r.verdict = Verdict::kFail;
    r.reason = reasons.substr(0, reasons.size() - 2);
  }
}

}  // namespace

std::vector<CaseResult> VerifyGoldenSet(const std::filesystem::path& golden_dir, Backend& backend,
                                        const VerifyOptions& options) {
  const Manifest manifest = ReadManifest(golden_dir);
  const std::vector<std::string> supported = backend.SupportedStages();
  std::vector<const ManifestEntry*> selected;
  for (const auto& e : manifest.cases) {
    if (Selected(options.stages, e.stage) && Selected(options.profiles, e.profile)) selected.push_back(&e);
  }
  std::vector<CaseResult> results;
  for (const ManifestEntry* e : selected) {
    CaseResult r{e->id, e->stage, e->profile, e->comparison, Verdict::kPass, "", nullptr};
    try {
      VerifyCase(golden_dir, *e, backend, supported, options, r);
    } catch (const std::exception& ex) {
      r.verdict = Verdict::kFail;
      r.reason = ex.what();
    }
    results.push_back(r);
    if (options.on_case) options.on_case(results.back(), results.size(), selected.size());
  }
  return results;
}

}  // namespace sampcheck::golden
