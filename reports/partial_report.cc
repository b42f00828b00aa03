// SPDX-License-Identifier: Apache-2.0
// Report-as-you-go (reports/partial_report.h).
#include "reports/partial_report.h"

#include "core/atomic_file.h"
#include "core/error.h"

namespace sampcheck::reports {

namespace {

constexpr char kEmptyCases[] = "\"cases\": []";
constexpr char kCaseIndent[] = "    ";  // cases[] entries sit at depth 2 of the document

// One case as ReportToJson lays it out inside the document.
std::string CaseText(const RunInfo& run, const golden::CaseResult& r) {
  const nlohmann::json one = ReportToJson(run, {r}, false);
  std::string text = kCaseIndent + one["cases"][0].dump(2);
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1)) {
    text.insert(at + 1, kCaseIndent);
  }
  return text;
}

}  // namespace

PartialReport::PartialReport(std::filesystem::path dir, RunInfo run) : dir_(std::move(dir)), run_(std::move(run)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw InputError(dir_.string() + ": cannot create report directory: " + ec.message());
  Write();
}

void PartialReport::Add(const golden::CaseResult& result) {
  results_.push_back(result);
  case_texts_.push_back(CaseText(run_, result));
  Write();
}

std::string PartialReport::Text() const {
  // The document without cases (summary and stages over all cases so far), then the kept
  // case texts spliced in where the empty array is.
  nlohmann::json doc = ReportToJson(run_, {}, false);
  nlohmann::json stages = nlohmann::json::array();
  int passed = 0, failed = 0, skipped = 0;
  for (const auto& st : SummariseByStage(results_)) {
    stages.push_back({{"stage", st.stage}, {"passed", st.passed}, {"failed", st.failed}, {"skipped", st.skipped}});
    passed += st.passed;
    failed += st.failed;
    skipped += st.skipped;
  }
  doc["stages"] = stages;
  doc["summary"] = {{"cases", results_.size()}, {"passed", passed}, {"failed", failed}, {"skipped", skipped}};
  std::string text = doc.dump(2) + "\n";
  if (case_texts_.empty()) return text;
  std::string cases = "\"cases\": [\n";
  for (std::size_t i = 0; i < case_texts_.size(); ++i) cases += case_texts_[i] + (i + 1 < case_texts_.size() ? ",\n" : "\n");
  cases += "  ]";
  const std::size_t at = text.find(kEmptyCases);
  text.replace(at, sizeof kEmptyCases - 1, cases);
  return text;
}

void PartialReport::Write() const {
  WriteFileAtomically(dir_ / "report.json", Text(), /*sync_to_disk=*/false);
}

std::filesystem::path PartialReport::Finish(const std::vector<golden::CaseResult>& results) const {
  return WriteJsonReport(dir_, run_, results, /*complete=*/true);
}

}  // namespace sampcheck::reports
