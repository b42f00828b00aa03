// SPDX-License-Identifier: Apache-2.0
// The statistical cases as one library call (harness/statistical_run.h).
#include "harness/statistical_run.h"

#include <algorithm>
#include <iterator>

#include "core/profile.h"
#include "core/selection.h"
#include "core/stage_catalogue.h"
#include "harness/reproducibility.h"
#include "harness/draw_harness.h"
#include "harness/noise_harness.h"
#include "harness/stat_cases/stat_cases.h"

namespace sampcheck::harness {

std::vector<CaseResult> RunStatisticalCases(Backend& backend, const StatisticalRunOptions& options) {
  for (const auto& s : options.stages) RequireStage(s);  // the noise stage selects the noise harness
  for (const auto& p : options.profiles) ParseProfile(p);
  std::vector<statistical::StatCase> cases;
  for (auto& c : statistical::DrawStatCases()) {
    if (Selected(options.stages, c.input.stage) && Selected(options.profiles, c.input.profile)) cases.push_back(std::move(c));
  }
  statistical::DrawHarnessOptions draw;
  draw.thorough = options.thorough;
  draw.seed_epoch = options.seed_epoch;
  draw.budget_seconds = options.budget_seconds;
  // The noise harness runs on every backend that declares the noise stage (its own noise,
  // through Run: docs/spec/noise.md "The noise harness").
  const bool run_noise = statistical::DeclaresNoiseStage(backend) && Selected(options.stages, statistical::NoiseStage().name);
  draw.extra_family_tests = run_noise ? statistical::BackendNoiseFamilySize() : 0;
  draw.apply_holm = false;  // once, below, over draws and noise together
  draw.on_case = options.on_case;
  auto results = statistical::RunDrawHarness(backend, cases, draw);
  auto repro = RunReproducibilityHarness(backend, cases, options.seed_epoch);
  results.insert(results.end(), std::make_move_iterator(repro.begin()), std::make_move_iterator(repro.end()));
  if (run_noise) {
    auto noise = statistical::RunBackendNoiseHarness(backend, options.seed_epoch, options.thorough, /*apply_holm=*/false);
    results.insert(results.end(), std::make_move_iterator(noise.begin()), std::make_move_iterator(noise.end()));
  }
  statistical::ApplyHolm(results, statistical::kFamilyWiseAlpha);
  return results;
}

}  // namespace sampcheck::harness
