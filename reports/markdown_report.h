// SPDX-License-Identifier: Apache-2.0
#pragma once
// report.md: a report as a GitHub-flavoured Markdown summary (docs/spec/report.md
// "Markdown"), for a pull-request comment or a CI job summary ($GITHUB_STEP_SUMMARY).
//
// Sections: a title naming the backend; one line of totals (and a warning when the run is
// incomplete); the per-stage table `| stage | pass | fail | skip |` with a total row; "Failing
// cases" (`| case | reason |`, omitted when none failed); "Statistical cases" (`| case |
// verdict | test | p | p (Holm) | alpha | effect |`, omitted when there are none). Each of
// those two tables shows at most 200 rows, then "... and N more <kind> cases: see report.html
// or report.json." (a job summary is capped at 1 MiB). Every
// user-supplied text goes through MarkdownCellEscape (reports/text_escape.h).

#include <string>

#include <nlohmann/json.hpp>

namespace sampcheck::reports {

// `report` must have passed ValidateReport (reports/report_reader.h).
std::string MarkdownSummary(const nlohmann::json& report);

}  // namespace sampcheck::reports
