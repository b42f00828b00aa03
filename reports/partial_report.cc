// SPDX-License-Identifier: Apache-2.0
// Report-as-you-go (reports/partial_report.h).
#include "reports/partial_report.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/atomic_file.h"
#include "core/error.h"

namespace sampcheck::reports {

namespace {

using Clock = std::chrono::steady_clock;

constexpr char kEmptyCases[] = "\"cases\": []";
constexpr char kCaseIndent[] = "    ";  // cases[] entries sit at depth 2 of the document
// A rewrite is due at least this long after the previous one, and never sooner than
// kRewriteCostFactor times that rewrite's own duration (so rewrites take at most ~10% of the
// run however large the report grows).
constexpr auto kMinRewriteInterval = std::chrono::seconds(1);
constexpr int kRewriteCostFactor = 10;

// One case as ReportToJson lays it out inside the document.
std::string CaseText(const nlohmann::json& one_case) {
  std::string text = kCaseIndent + ReportJsonText(one_case, 2);
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1)) {
    text.insert(at + 1, kCaseIndent);
  }
  return text;
}

bool WriteAll(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

PartialReport::PartialReport(std::filesystem::path dir, RunInfo run) : dir_(std::move(dir)), run_(std::move(run)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw InputError(dir_.string() + ": cannot create report directory: " + ec.message());
  const auto journal = dir_ / kReportJournalName;
  journal_fd_ = ::open(journal.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (journal_fd_ < 0) throw InputError(journal.string() + ": cannot create the journal: " + std::strerror(errno));
  Write();
}

PartialReport::~PartialReport() {
  if (journal_fd_ >= 0) ::close(journal_fd_);
}

void PartialReport::Add(const CaseResult& result) {
  results_.push_back(result);
  const nlohmann::json one = ReportToJson(run_, {result}, false)["cases"][0];
  case_texts_.push_back(CaseText(one));
  // One write(2) of a whole line: a killed run leaves whole lines, and at worst a last one cut.
  if (!WriteAll(journal_fd_, ReportJsonText(one, -1) + "\n")) {
    throw InputError((dir_ / kReportJournalName).string() + ": cannot append: " + std::strerror(errno));
  }
  if (Due()) Write();
}

void PartialReport::Flush() { Write(); }

bool PartialReport::Due() const {
  const std::size_t since = results_.size() - cases_at_last_write_;
  if (since >= std::max<std::size_t>(1, cases_at_last_write_)) return true;
  const auto wait = std::max<Clock::duration>(kMinRewriteInterval, kRewriteCostFactor * last_write_cost_);
  return since > 0 && Clock::now() - last_write_end_ >= wait;
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
  std::string text = ReportJsonText(doc, 2) + "\n";
  if (case_texts_.empty()) return text;
  std::size_t size = 0;
  for (const auto& c : case_texts_) size += c.size() + 2;
  std::string cases;
  cases.reserve(size + 32);
  cases += "\"cases\": [\n";
  for (std::size_t i = 0; i < case_texts_.size(); ++i) {
    cases += case_texts_[i];
    cases += i + 1 < case_texts_.size() ? ",\n" : "\n";
  }
  cases += "  ]";
  const std::size_t at = text.find(kEmptyCases);
  text.replace(at, sizeof kEmptyCases - 1, cases);
  return text;
}

void PartialReport::Write() {
  const auto start = Clock::now();
  WriteFileAtomically(dir_ / "report.json", Text(), /*sync_to_disk=*/false);
  last_write_end_ = Clock::now();
  last_write_cost_ = last_write_end_ - start;
  cases_at_last_write_ = results_.size();
  ++writes_;
}

std::filesystem::path PartialReport::Finish(const std::vector<CaseResult>& results) const {
  const auto path = WriteJsonReport(dir_, run_, results, /*complete=*/true);
  std::error_code ec;
  std::filesystem::remove(dir_ / kReportJournalName, ec);
  return path;
}

}  // namespace sampcheck::reports
