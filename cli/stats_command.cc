// SPDX-License-Identifier: Apache-2.0
// `sampcheck stats` (cli/stats_command.h, docs/spec/cli.md).
#include "cli/stats_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string_view>

#include "cli/backend_registry.h"
#include "cli/option_checks.h"
#include "cli/progress_bar.h"
#include "core/error.h"
#include "harness/statistical_run.h"
#include "harness/two_sample.h"
#include "reports/conform_report.h"
#include "reports/report_set.h"

namespace sampcheck::cli {
std::function<void(const std::string&, std::size_t, std::size_t)> StatisticalProgress() {
  auto bar = std::make_shared<ProgressBar>(
      ProgressBar::Options{.terminal = StderrIsTerminal(), .show_failures = false}, [](std::string_view text) {
        std::fwrite(text.data(), 1, text.size(), stderr);
        std::fflush(stderr);
      });
  return [bar](const std::string& id, std::size_t done, std::size_t total) { bar->Update(done, total, false, id); };
}

std::vector<CaseResult> RunStatisticalCases(Backend& backend, const StatsRunOptions& options) {
  harness::StatisticalRunOptions run = options;
  run.on_case = StatisticalProgress();
  return harness::RunStatisticalCases(backend, run);
}

std::string StatsHeading(const std::string& backend, const StatsRunOptions& options) {
  return "statistical harnesses on backend '" + backend + "' (seed epoch " + std::to_string(options.seed_epoch) +
         (options.thorough ? ", thorough" : "") + ")";
}

int PrintStatsOutcome(const std::vector<CaseResult>& results, const StatsOutcome& outcome) {
  int failed = 0, ran = 0;
  for (const auto& r : results) {
    ran += r.verdict != Verdict::kSkip;
    if (r.verdict == Verdict::kFail) {
      ++failed;
      std::printf("FAIL %s\n     %s\n", r.id.c_str(), r.reason.c_str());
    }
  }
  if (ran == 0) throw InputError("no statistical case was run: the selection is empty or " + outcome.empty_reason);
  std::printf("%s\n", outcome.heading.c_str());
  std::cout << reports::SummaryTable(reports::SummariseByStage(results));
  if (!outcome.report_dir.empty()) {
    const auto path = reports::WriteJsonReport(outcome.report_dir, {outcome.report_backend, ""}, results);
    std::printf("report: %s\n", path.c_str());
    for (const auto& rendered : reports::WriteRenderedReports(path)) std::printf("report: %s\n", rendered.c_str());
  }
  std::fflush(stdout);
  return failed ? 1 : 0;
}

StatsCommand::StatsCommand(CLI::App& app) {
  command_ = app.add_subcommand("stats", "Run the statistical harnesses (draws, reproducibility, noise) against a backend");
  command_->add_option("--backend", backend_,
                       "Backend name (as for conform; wrong:<name> for a deliberately wrong sampler)")
      ->required();
  command_->add_option("--stage", options_.stages, "Only these stages");
  command_->add_option("--profile", options_.profiles, "Only these profiles");
  command_->add_option("--seed-epoch", options_.seed_epoch, "Suite epoch: seeds are hash(case id, epoch)")->capture_default_str()->check(Uint64Text());
  command_->add_option("--budget", options_.budget_seconds, "Seconds; cases not started in time are skipped (0: no limit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command_->add_flag("--thorough", options_.thorough, "Large-n runs at the cases' thorough effect sizes");
  command_->add_option("--report", report_dir_, "Write report.json to this directory");
  command_->add_option("--against", against_,
                       "Second backend: compare the two (golden cases bitwise, draw counts by a two-sample homogeneity test)");
  command_->add_flag("--no-bitwise", no_bitwise_, "With --against: leave out the bitwise comparison (distributional backends)");
  command_->add_flag("--no-homogeneity", no_homogeneity_, "With --against: leave out the two-sample homogeneity tests");
}

int StatsCommand::Run() const {
  auto backend = MakeBackend(backend_, BackendOptions{});
  std::unique_ptr<Backend> other;
  std::vector<CaseResult> results;
  if ((no_bitwise_ || no_homogeneity_) && against_.empty()) {
    throw InputError("--no-bitwise and --no-homogeneity apply only with --against");
  }
  if (!against_.empty()) {
    other = MakeBackend(against_, BackendOptions{});
    results = harness::RunTwoSample(*backend, *other,
                                    {.stages = options_.stages, .profiles = options_.profiles,
                                     .seed_epoch = options_.seed_epoch, .thorough = options_.thorough,
                                     .bitwise = !no_bitwise_, .homogeneity = !no_homogeneity_});
  } else {
    results = cli::RunStatisticalCases(*backend, options_);
  }
  const std::string thorough = options_.thorough ? ", thorough" : "";
  return PrintStatsOutcome(
      results,
      {.heading = against_.empty() ? StatsHeading(backend_, options_)
                                   : "backend '" + backend_ + "' against backend '" + against_ + "' (seed epoch " +
                                         std::to_string(options_.seed_epoch) + thorough + ")",
       .empty_reason = against_.empty() ? "backend '" + backend_ + "' supports none of the selected stages"
                                        : "backends '" + backend_ + "' and '" + against_ + "' share none of the selected stages",
       .report_backend = against_.empty() ? backend_ : backend_ + " vs " + against_,
       .report_dir = report_dir_});
}

}  // namespace sampcheck::cli
