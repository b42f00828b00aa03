// SPDX-License-Identifier: Apache-2.0
#pragma once
// The conformance report (docs/spec/report.md): per-case verdicts of a run and a per-stage
// summary, as versioned JSON, and the same summary as a plain-text table for the terminal.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/case_result.h"

namespace sampcheck::reports {

inline constexpr char kReportFormatName[] = "sampcheck-report";
inline constexpr int kReportFormatVersion = 1;

struct StageSummary {
  std::string stage;
  int passed = 0, failed = 0, skipped = 0;
};

struct RunInfo {
  std::string backend;
  std::string golden_dir;
};

std::vector<StageSummary> SummariseByStage(const std::vector<CaseResult>& results);
nlohmann::json ReportToJson(const RunInfo& run, const std::vector<CaseResult>& results);
// Writes <dir>/report.json atomically (creating dir).
std::filesystem::path WriteJsonReport(const std::filesystem::path& dir, const RunInfo& run,
                                      const std::vector<CaseResult>& results);
// Report-as-you-go (docs/spec/report.md "Partial reports"): the same document with
// "complete": false while the run goes on; the 3-argument forms write "complete": true.
nlohmann::json ReportToJson(const RunInfo& run, const std::vector<CaseResult>& results, bool complete);
std::filesystem::path WriteJsonReport(const std::filesystem::path& dir, const RunInfo& run,
                                      const std::vector<CaseResult>& results, bool complete);
// "stage  pass  fail  skip" rows plus a total line.
std::string SummaryTable(const std::vector<StageSummary>& stages);
// report.json text (or one journal line, indent -1): ids and reasons come from backends and may
// hold any bytes, so every byte that is not valid UTF-8 is spelled U+FFFD (docs/spec/report.md
// "Escaping") instead of failing the dump.
std::string ReportJsonText(const nlohmann::json& doc, int indent);

}  // namespace sampcheck::reports
