// SPDX-License-Identifier: Apache-2.0
// Verdict names (core/case_result.h).
#include "core/case_result.h"

namespace sampcheck {

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kFail: return "fail";
    case Verdict::kSkip: return "skip";
  }
  return "?";
}

}  // namespace sampcheck
