// SPDX-License-Identifier: Apache-2.0
#pragma once
// The judgement of one case, whoever judged it (docs/spec/report.md "Schema"): the golden
// verifier (exact and ulp rules), the statistical harnesses (a hypothesis test), the
// invariance and reproducibility checks. reports/ turns a list of them into report.json;
// nothing but reports/ builds JSON from it.

#include <optional>
#include <string>
#include <string_view>

#include "core/test_statistics.h"

namespace sampcheck {

enum class Verdict { kPass, kFail, kSkip };
// "pass", "fail", "skip": the names report.json uses.
std::string_view VerdictName(Verdict v);

struct CaseResult {
  std::string id;
  std::string stage;
  std::string profile;
  std::string comparison;
  Verdict verdict = Verdict::kPass;
  std::string reason;  // why it failed or was skipped; empty on pass
  // Statistical cases only: the test behind the verdict (docs/spec/report.md "Statistical
  // cases"); empty for cases judged by an exact or ulp rule.
  std::optional<TestStatistics> statistics;
};

}  // namespace sampcheck
