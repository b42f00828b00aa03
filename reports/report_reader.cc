// SPDX-License-Identifier: Apache-2.0
// Reading and validating report.json (reports/report_reader.h, docs/spec/report.md).
#include "reports/report_reader.h"

#include <map>

#include "core/atomic_file.h"
#include "core/error.h"
#include "reports/conform_report.h"

namespace sampcheck::reports {
namespace {

[[noreturn]] void Invalid(const std::string& source, const std::string& what) {
  throw InputError(source + ": not a valid sampcheck report: " + what);
}

void RequireString(const nlohmann::json& object, const char* key, const std::string& where, const std::string& source,
                   bool optional) {
  const auto it = object.find(key);
  if (it == object.end()) {
    if (optional) return;
    Invalid(source, where + " lacks the string field '" + key + "'");
  }
  if (!it->is_string()) Invalid(source, (where.empty() ? std::string(key) : where + "." + key) + " must be a string");
}

}  // namespace

std::filesystem::path ResolveReportPath(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return path / "report.json";
  return path;
}

void ValidateReport(const nlohmann::json& report, const std::string& source) {
  if (!report.is_object()) Invalid(source, "expected a JSON object at the top level");
  const auto format = report.find("format");
  if (format == report.end() || !format->is_string() || *format != kReportFormatName) {
    Invalid(source, std::string("expected \"format\": \"") + kReportFormatName + "\"");
  }
  const auto version = report.find("format_version");
  if (version == report.end() || !version->is_number_integer() || *version != kReportFormatVersion) {
    Invalid(source, "expected \"format_version\": " + std::to_string(kReportFormatVersion) +
                        (version == report.end() ? std::string(", found none") : ", found " + version->dump()));
  }
  if (!report.contains("summary") || !report["summary"].is_object()) Invalid(source, "expected an object 'summary'");
  if (!report.contains("cases") || !report["cases"].is_array()) Invalid(source, "expected an array 'cases'");
  if (report.contains("complete") && !report["complete"].is_boolean()) Invalid(source, "'complete' must be true or false");
  RequireString(report, "backend", "", source, true);
  RequireString(report, "golden", "", source, true);
  std::size_t index = 0;
  for (const auto& c : report["cases"]) {
    const std::string where = "cases[" + std::to_string(index++) + "]";
    if (!c.is_object()) Invalid(source, where + " must be an object");
    RequireString(c, "id", where, source, false);
    RequireString(c, "stage", where, source, false);
    RequireString(c, "verdict", where, source, false);
    RequireString(c, "reason", where, source, true);
    RequireString(c, "profile", where, source, true);
    RequireString(c, "comparison", where, source, true);
    const std::string verdict = c["verdict"];
    if (verdict != "pass" && verdict != "fail" && verdict != "skip") {
      Invalid(source, where + ".verdict must be pass, fail or skip, found '" + verdict + "'");
    }
    if (c.contains("statistics") && !c["statistics"].is_object() && !c["statistics"].is_null()) {
      Invalid(source, where + ".statistics must be an object");
    }
  }
}

nlohmann::json LoadReport(const std::filesystem::path& path) {
  const auto file = ResolveReportPath(path);
  const std::string bytes = ReadWholeFile(file);  // InputError naming the file if unreadable
  nlohmann::json report = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded()) Invalid(file.string(), "expected JSON (the file does not parse)");
  ValidateReport(report, file.string());
  return report;
}

bool ReportIsComplete(const nlohmann::json& report) {
  const auto it = report.find("complete");
  return it == report.end() || it->get<bool>();
}

std::vector<StageSummary> SummariseReportByStage(const nlohmann::json& report) {
  std::map<std::string, StageSummary> by_stage;
  for (const auto& c : report["cases"]) {
    const std::string stage = c["stage"];
    StageSummary& s = by_stage[stage];
    s.stage = stage;
    const std::string verdict = c["verdict"];
    if (verdict == "pass") ++s.passed;
    if (verdict == "fail") ++s.failed;
    if (verdict == "skip") ++s.skipped;
  }
  std::vector<StageSummary> out;
  for (auto& [name, s] : by_stage) out.push_back(s);
  return out;
}

}  // namespace sampcheck::reports
