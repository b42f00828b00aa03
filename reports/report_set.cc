// SPDX-License-Identifier: Apache-2.0
// Writing the renderings of a report (reports/report_set.h).
#include "reports/report_set.h"

#include <utility>

#include "core/atomic_file.h"
#include "core/error.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_reader.h"

namespace sampcheck::reports {

std::vector<std::filesystem::path> WriteRenderings(const nlohmann::json& report, const std::filesystem::path& out) {
  const std::filesystem::path dir = out.empty() ? std::filesystem::path(".") : out;  // "report.json" has no parent
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir.string() + ": cannot create report directory: " + ec.message());
  const std::vector<std::pair<std::filesystem::path, std::string>> renderings = {
      {dir / "report.xml", JunitXml(report)},
      {dir / "report.md", MarkdownSummary(report)},
      {dir / "report.html", HtmlReport(report)},
  };
  std::vector<std::filesystem::path> written;
  for (const auto& [path, bytes] : renderings) {
    WriteFileAtomically(path, bytes);
    written.push_back(path);
  }
  return written;
}

std::vector<std::filesystem::path> WriteRenderedReports(const std::filesystem::path& report_json) {
  const auto file = ResolveReportPath(report_json);
  return WriteRenderings(LoadReport(file), file.parent_path());
}

}  // namespace sampcheck::reports
