// SPDX-License-Identifier: Apache-2.0
#pragma once
// Golden set verification (docs/spec/golden.md "Verification"): for every case in a set's
// manifest, check the file's SHA-256 and that its metadata (id, stage, profile, rule) agrees
// with the manifest, run the backend, and compare each expected output with the case's rule.
// A case whose stage the backend does not support, or whose profile it does not declare
// (StageCapabilities::profiles), is skipped, and says so. Cases of one stage and profile run
// through Backend::RunBatch in groups of up to 32 (one child process or command per group for
// out-of-process backends), groups in the order of their first case. The results are in
// manifest order; on_case is called as each case is decided (manifest order within a group).
// Before running, a case also fails (naming its file) when its file is not a regular file
// within SAMPCHECK_MAX_CASE_BYTES (core/input_limits.h), when its rule is "distribution"
// (judged only statistically), or when it holds an in.* tensor or a parameter its stage does
// not list in the catalogue (the message lists the accepted names). A case passes only when
// judging it ran to the end without a fault: any exception while judging fails it.
// Fault reasons, each naming the output: a backend error or crash (its message), an output
// that is missing, unexpected, of the wrong dtype or shape, NaN where the stage's output is a
// number ("NaN where the stage allows no NaN"), then the comparison rule's detail.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/case_result.h"
#include "core/comparison.h"

namespace sampcheck::golden {

struct VerifyOptions {
  std::vector<std::string> stages;    // empty: all
  std::vector<std::string> profiles;  // empty: all
  // For backends that do not follow the canonical order and owned math (docs/spec/golden.md
  // "Comparison rules"): compare the outputs of canonical-tier stages under this rule instead
  // of the case's. Exact-tier stages are never relaxed. "distribution" is refused:
  // VerifyGoldenSet throws InputError (it cannot compare outputs element-wise).
  std::optional<ComparisonRule> canonical_rule;
  // Called as each case is decided (progress output, report-as-you-go).
  std::function<void(const CaseResult&, std::size_t done, std::size_t total)> on_case;
};

// The judgement of one case's outputs (the fault reasons above, in order, every fault listed,
// "; "-separated); empty when they pass. Used by VerifyGoldenSet and by the Python module's
// sampcheck.golden.compare.
std::string JudgeOutputs(const GoldenCase& g, const TensorMap& actual);

// Throws InputError when the manifest itself cannot be read; per-case faults (missing or
// corrupt files included) become failed cases.
std::vector<CaseResult> VerifyGoldenSet(const std::filesystem::path& golden_dir, Backend& backend,
                                        const VerifyOptions& options = {});

}  // namespace sampcheck::golden
