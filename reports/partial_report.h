// SPDX-License-Identifier: Apache-2.0
#pragma once
// Report-as-you-go (docs/spec/report.md "Partial reports"): a run that is killed at any point
// leaves a valid report.json with "complete": false, and a journal holding every case it
// decided; Finish writes the complete report and removes the journal.
//
// Contract:
// - The constructor writes the empty report ("complete": false, no cases) and starts
//   <dir>/report.journal.jsonl empty.
// - Add appends the case's compact JSON and a newline to the journal (one write(2), no fsync)
//   at once, and rewrites report.json (atomically: temporary file, then rename) only when it
//   is due: when the cases added since the last rewrite are at least as many as it held (so
//   rewrites happen after 1, 2, 4, 8, ... cases), or when at least
//   max(1 s, 10 x the last rewrite's duration) has passed since it. A run of n cases thus
//   costs O(n) JSON building and file writing in all (each rewrite costs O(cases), and the
//   rewrites' sizes grow geometrically or are spaced by 10x their own cost), instead of the
//   O(n^2) of a rewrite per case, while report.json lags the run by at most about a second.
// - report.json, whenever written, is byte-identical to Text(): WriteJsonReport(dir, run,
//   cases so far, /*complete=*/false) — same schema, sorted keys, 2-space indent. Each case's
//   JSON text is built once and kept.
// - Bytes that are not valid UTF-8 in ids and reasons become U+FFFD in both files.
// Example: PartialReport p(dir, {"reference", "golden/v1"}); p.Add(r1); p.Add(r2);
//   p.Finish(all_results);  // report.json with "complete": true, no journal left

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "reports/conform_report.h"

namespace sampcheck::reports {

inline constexpr char kReportJournalName[] = "report.journal.jsonl";

class PartialReport {
 public:
  // Creates dir and writes an empty report ("complete": false, no cases).
  PartialReport(std::filesystem::path dir, RunInfo run);
  ~PartialReport();
  PartialReport(const PartialReport&) = delete;
  PartialReport& operator=(const PartialReport&) = delete;
  void Add(const CaseResult& result);
  // Rewrites report.json now, whether due or not.
  void Flush();
  // The report's text for the cases added so far.
  std::string Text() const;
  // How many times report.json has been written (the constructor's write included).
  std::size_t writes() const { return writes_; }
  // Writes the complete report of `results` (normally the run's results in manifest order)
  // and removes the journal.
  std::filesystem::path Finish(const std::vector<CaseResult>& results) const;

 private:
  void Write();
  bool Due() const;
  std::filesystem::path dir_;
  RunInfo run_;
  std::vector<CaseResult> results_;
  std::vector<std::string> case_texts_;  // each case's dump(2), indented to its depth
  int journal_fd_ = -1;
  std::size_t writes_ = 0;
  std::size_t cases_at_last_write_ = 0;
  std::chrono::steady_clock::time_point last_write_end_;
  std::chrono::steady_clock::duration last_write_cost_{};
};

}  // namespace sampcheck::reports
