// SPDX-License-Identifier: Apache-2.0
#pragma once
// The statistical cases as one library call (docs/spec/harness.md): the draw harness, the
// reproducibility harness and, for a backend that declares the noise stage, the noise
// harness on its own noise, Holm-adjusted together at the suite's family-wise alpha. `sampcheck stats` and
// `sampcheck conform` (harness/conform.h) both call it.
//
// Example: RunStatisticalCases(backend, {.stages = {"pipeline"}, .seed_epoch = 1}) returns one
// result per statistical case and test layer, with its verdict after Holm.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/case_result.h"

namespace sampcheck::harness {

struct StatisticalRunOptions {
  std::vector<std::string> stages;    // empty: all; "noise" selects the noise harness
  std::vector<std::string> profiles;  // empty: all
  std::uint64_t seed_epoch = 0;
  double budget_seconds = 0.0;        // <= 0: none
  bool thorough = false;
  // Called after each statistical case of the draw harness (id, done, total).
  std::function<void(const std::string&, std::size_t, std::size_t)> on_case = {};
};

// Throws InputError for an unknown stage or profile in the selection.
std::vector<CaseResult> RunStatisticalCases(Backend& backend, const StatisticalRunOptions& options);

}  // namespace sampcheck::harness
