// SPDX-License-Identifier: Apache-2.0
#pragma once
// `conform` as one library call (docs/spec/cli.md "sampcheck conform"): golden verify, the batch
// invariance of the golden set, the statistical cases, Holm over the statistical part, and a
// report written as the run goes (a killed run keeps a valid `complete: false` report,
// docs/spec/report.md "Partial reports"). The CLI only parses arguments and prints; a test
// or an embedding program calls RunConform directly.
//
// Example:
//   reference::ReferenceBackend backend;
//   ConformResult r = RunConform(backend, {.golden_dir = "golden/v1", .report_dir = "out",
//                                          .statistics = false});
//   r.failed == 0, and out/report.json is complete.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/comparison.h"
#include "golden/verifier.h"
#include "harness/statistical_run.h"

namespace sampcheck::harness {

struct ConformOptions {
  std::filesystem::path golden_dir;
  std::filesystem::path report_dir;  // report.json (and nothing else) is written there
  std::string backend_label;         // the backend's name in the report; empty: backend.Name()
  std::vector<std::string> stages;   // empty: all
  std::vector<std::string> profiles; // empty: all
  std::optional<ComparisonRule> canonical_rule = std::nullopt;  // relaxes canonical-tier stages
  bool batch_invariance = true;
  bool statistics = true;
  StatisticalRunOptions statistical = {};  // its stages and profiles are the ones above
  // Called after each golden case is judged (result, done, total).
  std::function<void(const CaseResult&, std::size_t, std::size_t)> on_case = {};
};

struct ConformResult {
  std::vector<CaseResult> results;  // golden, invariance, then statistical
  std::filesystem::path report;             // the complete report.json
  int failed = 0;
};

// Throws InputError for a bad selection, an unreadable golden set, or a run in which no case
// was compared (a gate must not pass vacuously).
ConformResult RunConform(Backend& backend, const ConformOptions& options);

// Throws InputError when no result was compared (every verdict a skip).
void RequireSomethingRan(const std::vector<CaseResult>& results, const std::string& backend);
int CountFailures(const std::vector<CaseResult>& results);

}  // namespace sampcheck::harness
