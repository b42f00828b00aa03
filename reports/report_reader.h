// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading a report.json back (docs/spec/report.md "Schema"): the renderers (JUnit, Markdown,
// HTML) and the CI gate all start from the file a run wrote, so they accept only what the
// schema promises and say exactly which field of which file is wrong otherwise.
//
// Checks: the document is a JSON object; `format` is "sampcheck-report"; `format_version` is
// 1; `summary` is an object; `backend` and `golden`, when present, are strings; `cases` is an
// array of objects, each with string `id`, `stage`, `verdict` (pass | fail | skip) and, when
// present, string `reason`, `profile`, `comparison` and an object `statistics`. Unknown
// fields are allowed (a newer writer of the same version may add some).

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/conform_report.h"

namespace sampcheck::reports {

// `path` is a report.json file or a directory holding one. Throws InputError naming the file
// and what was expected (unreadable, not JSON, wrong format or version, a malformed case).
nlohmann::json LoadReport(const std::filesystem::path& path);

// The same checks on a document already in memory; `source` names it in error messages.
void ValidateReport(const nlohmann::json& report, const std::string& source);

// The report file `path` resolves to (path itself, or path/report.json for a directory).
std::filesystem::path ResolveReportPath(const std::filesystem::path& path);

// `complete` is written by runs that rewrite report.json after each case; a report without it
// predates that and was written once, at the end, so it counts as complete.
bool ReportIsComplete(const nlohmann::json& report);

// Pass/fail/skip counts per stage, sorted by stage name, counted from `cases` (of a validated
// report) rather than read from `stages`, so a renderer can never disagree with the cases it
// lists.
std::vector<StageSummary> SummariseReportByStage(const nlohmann::json& report);

}  // namespace sampcheck::reports
