// SPDX-License-Identifier: Apache-2.0
#pragma once
// `sampcheck stats` and the statistical part of `conform` (docs/spec/cli.md, docs/spec/harness.md):
// the draw, reproducibility and noise harnesses against a backend, with a progress line on a
// terminal, per-case FAIL lines, the per-stage table and an optional JSON report.
//
// `--against B`: backend A against backend B instead of against the reference's laws: golden
// cases bit for bit and draw counts by a two-sample homogeneity test (harness/two_sample.h).
//
// Backends: any name of cli/backend_registry.h, "wrong:<name>" included (the deliberately
// wrong samplers, harness/wrong/wrong_samplers.h), so that anyone can watch the harness reject a
// planted bug.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/backend.h"
#include "core/case_result.h"
#include "harness/statistical_run.h"

namespace sampcheck::cli {

// The selection and sizes of a statistical run (harness/statistical_run.h).
using StatsRunOptions = harness::StatisticalRunOptions;

// The statistical cases' progress on stderr (cli/progress_bar.h) for StatsRunOptions::on_case,
// without a failure count: verdicts come after Holm. `stats` and `conform` both show it.
std::function<void(const std::string&, std::size_t, std::size_t)> StatisticalProgress();

// harness::RunStatisticalCases with that progress.
std::vector<CaseResult> RunStatisticalCases(Backend& backend, const StatsRunOptions& options);

// What `stats` prints after a run, shared by `sampcheck stats` and `sampcheck-mpi stats`:
// FAIL lines, the heading, the per-stage table, the report paths. Returns the exit status (1
// when a case failed); throws InputError("no statistical case was run: the selection is empty
// or " + `empty_reason`) when every case was skipped.
struct StatsOutcome {
  std::string heading;         // e.g. "statistical harnesses on backend 'reference' (seed epoch 0)"
  std::string empty_reason;    // e.g. "backend 'x' supports none of the selected stages"
  std::string report_backend;  // the backend name report.json records
  std::string report_dir;      // empty: no report
};
int PrintStatsOutcome(const std::vector<CaseResult>& results, const StatsOutcome& outcome);

// "statistical harnesses on backend 'B' (seed epoch E[, thorough])".
std::string StatsHeading(const std::string& backend, const StatsRunOptions& options);

// Registers `stats` on the app; Run() is called when Parsed().
class StatsCommand {
 public:
  explicit StatsCommand(CLI::App& app);
  bool Parsed() const { return command_->parsed(); }
  int Run() const;

 private:
  CLI::App* command_ = nullptr;
  std::string backend_;
  std::string against_;  // --against: backend B of the two-sample mode (harness/two_sample.h)
  bool no_bitwise_ = false;
  bool no_homogeneity_ = false;
  std::string report_dir_;
  StatsRunOptions options_;
};

}  // namespace sampcheck::cli
