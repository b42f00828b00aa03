// SPDX-License-Identifier: Apache-2.0
// Conformance report (reports/conform_report.h).
#include "reports/conform_report.h"

#include <cstdio>
#include <map>

#include "core/atomic_file.h"
#include "core/error.h"
#include "reports/statistics_json.h"

namespace sampcheck::reports {

std::string ReportJsonText(const nlohmann::json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<StageSummary> SummariseByStage(const std::vector<CaseResult>& results) {
  std::map<std::string, StageSummary> by_stage;
  for (const auto& r : results) {
    StageSummary& s = by_stage[r.stage];
    s.stage = r.stage;
    switch (r.verdict) {
      case Verdict::kPass: ++s.passed; break;
      case Verdict::kFail: ++s.failed; break;
      case Verdict::kSkip: ++s.skipped; break;
    }
  }
  std::vector<StageSummary> out;
  for (auto& [name, s] : by_stage) out.push_back(s);
  return out;
}

nlohmann::json ReportToJson(const RunInfo& run, const std::vector<CaseResult>& results) {
  return ReportToJson(run, results, /*complete=*/true);
}

nlohmann::json ReportToJson(const RunInfo& run, const std::vector<CaseResult>& results, bool complete) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json c = {{"id", r.id},
                        {"stage", r.stage},
                        {"profile", r.profile},
                        {"comparison", r.comparison},
                        {"verdict", VerdictName(r.verdict)},
                        {"reason", r.reason}};
    if (r.statistics) c["statistics"] = StatisticsToJson(*r.statistics);
    cases.push_back(std::move(c));
  }
  nlohmann::json stages = nlohmann::json::array();
  int passed = 0, failed = 0, skipped = 0;
  for (const auto& s : SummariseByStage(results)) {
    stages.push_back({{"stage", s.stage}, {"passed", s.passed}, {"failed", s.failed}, {"skipped", s.skipped}});
    passed += s.passed;
    failed += s.failed;
    skipped += s.skipped;
  }
  return {{"format", kReportFormatName},
          {"format_version", kReportFormatVersion},
          {"tool", {{"name", "sampcheck"}, {"version", SAMPCHECK_VERSION}}},
          {"backend", run.backend},
          {"golden", run.golden_dir},
          {"complete", complete},
          {"summary", {{"cases", results.size()}, {"passed", passed}, {"failed", failed}, {"skipped", skipped}}},
          {"stages", stages},
          {"cases", cases}};
}

std::filesystem::path WriteJsonReport(const std::filesystem::path& dir, const RunInfo& run,
                                      const std::vector<CaseResult>& results) {
  return WriteJsonReport(dir, run, results, /*complete=*/true);
}

std::filesystem::path WriteJsonReport(const std::filesystem::path& dir, const RunInfo& run,
                                      const std::vector<CaseResult>& results, bool complete) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir.string() + ": cannot create report directory: " + ec.message());
  const auto path = dir / "report.json";
  // A partial report is rewritten after every case: atomic, but not fsync'ed (an fsync per
  // case would dominate a run); the complete report is.
  WriteFileAtomically(path, ReportJsonText(ReportToJson(run, results, complete), 2) + "\n", /*sync_to_disk=*/complete);
  return path;
}

std::string SummaryTable(const std::vector<StageSummary>& stages) {
  std::string out;
  char line[160];
  std::snprintf(line, sizeof line, "%-30s %6s %6s %6s\n", "stage", "pass", "fail", "skip");
  out += line;
  int p = 0, f = 0, s = 0;
  for (const auto& st : stages) {
    std::snprintf(line, sizeof line, "%-30s %6d %6d %6d\n", st.stage.c_str(), st.passed, st.failed, st.skipped);
    out += line;
    p += st.passed, f += st.failed, s += st.skipped;
  }
  std::snprintf(line, sizeof line, "%-30s %6d %6d %6d\n", "total", p, f, s);
  return out + line;
}

}  // namespace sampcheck::reports
