// SPDX-License-Identifier: Apache-2.0
#pragma once
// Report-as-you-go (docs/spec/report.md "Partial reports"): report.json rewritten atomically
// after every judged case with "complete": false, so a run that is killed keeps everything it
// judged; Finish writes the complete report.
//
// Contract: after Add, the file is byte-identical to
// WriteJsonReport(dir, run, cases added so far, /*complete=*/false) — same schema, sorted
// keys, 2-space indent — but each case's JSON text is built once and kept, so a run of n cases
// costs O(n) JSON building rather than O(n^2). Partial writes are not fsync'ed (the rename
// keeps them atomic against a killed writer); Finish's is.
// Example: PartialReport p(dir, {"reference", "golden/v1"}); p.Add(r1); p.Add(r2);
//   p.Finish(all_results);  // report.json with "complete": true

#include <filesystem>
#include <string>
#include <vector>

#include "reports/conform_report.h"

namespace sampcheck::reports {

class PartialReport {
 public:
  // Creates dir and writes an empty report ("complete": false, no cases).
  PartialReport(std::filesystem::path dir, RunInfo run);
  void Add(const golden::CaseResult& result);
  // The report's text as Add last wrote it.
  std::string Text() const;
  // Writes the complete report of `results` (normally the run's results in manifest order).
  std::filesystem::path Finish(const std::vector<golden::CaseResult>& results) const;

 private:
  void Write() const;
  std::filesystem::path dir_;
  RunInfo run_;
  std::vector<golden::CaseResult> results_;
  std::vector<std::string> case_texts_;  // each case's dump(2), indented to its depth
};

}  // namespace sampcheck::reports
