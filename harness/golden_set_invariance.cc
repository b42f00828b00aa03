// SPDX-License-Identifier: Apache-2.0
// conform's batch-invariance check over a golden set (harness/golden_set_invariance.h).
#include "harness/golden_set_invariance.h"

#include <algorithm>
#include <exception>
#include <memory>

#include "core/manifest.h"
#include "core/selection.h"
#include "harness/check_result.h"

namespace sampcheck::harness {

std::vector<CaseResult> CheckGoldenSetInvariance(const std::filesystem::path& golden_dir, Backend& backend,
                                                         const golden::VerifyOptions& selection,
                                                         const InvarianceOptions& options) {
  const Manifest manifest = ReadManifest(golden_dir);
  const std::vector<std::string> supported = backend.SupportedStages();
  std::vector<std::unique_ptr<Case>> cases;
  for (const ManifestEntry& e : manifest.cases) {
    if (!Selected(selection.stages, e.stage) || !Selected(selection.profiles, e.profile)) continue;
    if (std::find(supported.begin(), supported.end(), e.stage) == supported.end()) continue;
    if (!backend.Capabilities(e.stage).profiles.Contains(e.profile))
      continue;  // verification reports the skip
    try {
      cases.push_back(std::make_unique<Case>(ReadCaseFile(golden_dir / e.file).input));
    } catch (const std::exception&) {
      continue;  // verification reports the unreadable file
    }
  }
  std::vector<const Case*> all;
  for (const auto& c : cases) all.push_back(c.get());
  const std::vector<InvarianceResult> checks =
      CheckBatchInvarianceTogether(backend, all, all, std::vector<InvarianceOptions>(all.size(), options));
  std::vector<CaseResult> results;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case& c = *cases[k];
    const std::string id = std::string(kBatchInvarianceStage) + "/" + c.id;
    const std::string profile(ProfileName(c.profile));
    const InvarianceResult& check = checks[k];
    const std::string reason = check.passed ? "" : check.reason;
    results.push_back(check.checked ? ExactCheckResult(id, std::string(kBatchInvarianceStage), profile, reason)
                                    : SkippedCheckResult(id, std::string(kBatchInvarianceStage), profile, reason));
    if (selection.on_case) selection.on_case(results.back(), results.size(), cases.size());
  }
  return results;
}

}  // namespace sampcheck::harness
