// SPDX-License-Identifier: Apache-2.0
#pragma once
// The human- and CI-facing renderings of one run, written next to its report.json
// (docs/spec/report.md "Formats"): report.xml (JUnit), report.md (Markdown summary) and
// report.html (self-contained page). They are rendered from the report.json file itself,
// after validating it, so they show exactly what the machine-readable report says, whoever
// wrote it.

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

namespace sampcheck::reports {

// Writes report.xml, report.md and report.html of a validated `report` into `dir` (created
// if needed), each atomically (core/atomic_file.h). Returns the paths written, in that order.
std::vector<std::filesystem::path> WriteRenderings(const nlohmann::json& report, const std::filesystem::path& dir);

// Reads and validates `report_json` (a report.json file, or a directory holding one) and
// writes its renderings into the same directory. Throws InputError if the report is invalid
// or a file cannot be written.
std::vector<std::filesystem::path> WriteRenderedReports(const std::filesystem::path& report_json);

}  // namespace sampcheck::reports
