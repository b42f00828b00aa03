// SPDX-License-Identifier: Apache-2.0
// The result of one exact-rule check (harness/check_result.h).
#include "harness/check_result.h"

#include <utility>

namespace sampcheck::harness {

CaseResult ExactCheckResult(std::string id, std::string stage, std::string profile, std::string failure) {
  CaseResult r;
  r.id = std::move(id);
  r.stage = std::move(stage);
  r.profile = std::move(profile);
  r.comparison = "exact";
  r.verdict = failure.empty() ? Verdict::kPass : Verdict::kFail;
  r.reason = std::move(failure);
  return r;
}

CaseResult SkippedCheckResult(std::string id, std::string stage, std::string profile, std::string reason) {
  CaseResult r = ExactCheckResult(std::move(id), std::move(stage), std::move(profile), "");
  r.verdict = Verdict::kSkip;
  r.reason = std::move(reason);
  return r;
}

}  // namespace sampcheck::harness
