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
#include "core/profile.h"
#include "core/stage_catalogue.h"
#include "harness/reproducibility.h"
#include "reports/conform_report.h"
#include "reports/report_set.h"
#include "statistical/draw_harness.h"
#include "statistical/noise_harness.h"
#include "statistical/stat_cases.h"
#include "statistical/wrong_samplers.h"

namespace sampcheck::cli {
namespace {

bool Selected(const std::vector<std::string>& filter, const std::string& name) {
  return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
}

}  // namespace

std::unique_ptr<Backend> MakeStatsBackend(const std::string& name) {
  constexpr std::string_view kWrong = "wrong:";
  if (name.rfind(kWrong, 0) == 0) {
    try {
      return statistical::MakeWrongSampler(name.substr(kWrong.size()));
    } catch (const std::invalid_argument& e) {
      throw InputError(e.what());
    }
  }
  return MakeBackend(name, BackendOptions{});  // plugin: and exec: too, isolated by default
}

std::vector<golden::CaseResult> RunStatisticalCases(Backend& backend, const StatsRunOptions& options) {
  for (const auto& s : options.stages) {
    if (s != "noise") RequireStage(s);  // "noise": the noise harness alone
  }
  for (const auto& p : options.profiles) ParseProfile(p);
  std::vector<statistical::StatCase> cases;
  for (auto& c : statistical::DrawStatCases()) {
    if (Selected(options.stages, c.input.stage) && Selected(options.profiles, c.input.profile)) cases.push_back(std::move(c));
  }
  statistical::DrawHarnessOptions draw;
  draw.thorough = options.thorough;
  draw.seed_epoch = options.seed_epoch;
  draw.budget_seconds = options.budget_seconds;
  // The noise laws are properties of the reference's generators (reference/rng/), run with
  // the reference backend only; a backend's own noise is judged through its draws.
  const bool run_noise = backend.Name() == "reference" && Selected(options.stages, "noise");
  draw.extra_family_tests = run_noise ? statistical::NoiseFamilySize() : 0;
  draw.apply_holm = false;  // once, below, over draws and noise together
  // Progress (cli/progress_bar.h) without a failure count: verdicts come after Holm, below.
  auto bar = std::make_shared<ProgressBar>(
      ProgressBar::Options{.terminal = StderrIsTerminal(), .show_failures = false}, [](std::string_view text) {
        std::fwrite(text.data(), 1, text.size(), stderr);
        std::fflush(stderr);
      });
  draw.on_case = [bar](const std::string& id, std::size_t done, std::size_t total) {
    bar->Update(done, total, false, id);
  };
  auto results = statistical::RunDrawHarness(backend, cases, draw);
  auto repro = harness::RunReproducibilityHarness(backend, cases, options.seed_epoch);
  results.insert(results.end(), std::make_move_iterator(repro.begin()), std::make_move_iterator(repro.end()));
  if (run_noise) {
    auto noise = statistical::RunNoiseHarness(options.seed_epoch, options.thorough, /*apply_holm=*/false);
    results.insert(results.end(), std::make_move_iterator(noise.begin()), std::make_move_iterator(noise.end()));
  }
  statistical::ApplyHolm(results, statistical::kFamilyWiseAlpha);
  return results;
}

StatsCommand::StatsCommand(CLI::App& app) {
  command_ = app.add_subcommand("stats", "Run the statistical harnesses (draws, reproducibility, noise) against a backend");
  command_->add_option("--backend", backend_, "Backend name (built in, or wrong:<name> for a deliberately wrong sampler)")
      ->required();
  command_->add_option("--stage", options_.stages, "Only these stages");
  command_->add_option("--profile", options_.profiles, "Only these profiles");
  command_->add_option("--seed-epoch", options_.seed_epoch, "Suite epoch: seeds are hash(case id, epoch)")->capture_default_str()->check(Uint64Text());
  command_->add_option("--budget", options_.budget_seconds, "Seconds; cases not started in time are skipped (0: no limit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command_->add_flag("--thorough", options_.thorough, "Large-n runs at the cases' thorough effect sizes");
  command_->add_option("--report", report_dir_, "Write report.json to this directory");
}

int StatsCommand::Run() const {
  auto backend = MakeStatsBackend(backend_);
  const auto results = RunStatisticalCases(*backend, options_);
  int failed = 0, ran = 0;
  for (const auto& r : results) {
    ran += r.verdict != golden::Verdict::kSkip;
    if (r.verdict == golden::Verdict::kFail) {
      ++failed;
      std::printf("FAIL %s\n     %s\n", r.id.c_str(), r.reason.c_str());
    }
  }
  if (ran == 0) {
    throw InputError("no statistical case was run: the selection is empty or backend '" + backend_ +
                     "' supports none of the selected stages");
  }
  std::printf("statistical harnesses on backend '%s' (seed epoch %llu%s)\n", backend_.c_str(),
              static_cast<unsigned long long>(options_.seed_epoch), options_.thorough ? ", thorough" : "");
  std::cout << reports::SummaryTable(reports::SummariseByStage(results));
  if (!report_dir_.empty()) {
    const auto path = reports::WriteJsonReport(report_dir_, {backend_, ""}, results);
    std::printf("report: %s\n", path.c_str());
    for (const auto& rendered : reports::WriteRenderedReports(path)) std::printf("report: %s\n", rendered.c_str());
  }
  return failed ? 1 : 0;
}

}  // namespace sampcheck::cli
