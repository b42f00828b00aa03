// SPDX-License-Identifier: Apache-2.0
#pragma once
// The result of one check of conform's exact-rule checks (docs/spec/report.md "Schema"): the
// decode-steps and tensor-parallel checks, batch invariance on the golden set and the
// reproducibility of the statistical cases. Each decides pass or fail by a stated reason, so the
// CaseResult they report is built here once.
//
// Contract:
// - ExactCheckResult(id, stage, profile, failure): comparison "exact"; verdict pass when
//   `failure` is empty, else fail with `failure` as the reason.
// - SkippedCheckResult(id, stage, profile, reason): comparison "exact", verdict skip.
// Example: ExactCheckResult("decode_steps_check/vllm/seeds", "decode_steps", "vllm", "").verdict
//   == Verdict::kPass (tests/batch_invariance_test.cc reads such results).
#include <string>

#include "core/case_result.h"

namespace sampcheck::harness {

CaseResult ExactCheckResult(std::string id, std::string stage, std::string profile, std::string failure);
CaseResult SkippedCheckResult(std::string id, std::string stage, std::string profile, std::string reason);

}  // namespace sampcheck::harness
