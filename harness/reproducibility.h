// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reproducibility of a backend's stochastic stages (docs/spec/harness.md
// "Reproducibility"): run twice; change the batch size, the row order and the neighbouring
// rows; a row's draw, given its noise or its seed, must not change. Extends the
// batch-invariance check (harness/batch_invariance.h) to the statistical cases.
//
// Contract:
// - For each statistical case whose stage the backend supports: the case with
//   kReplicas replicas of each row and harness noise (statistical::DrawNoiseCase, seed
//   CaseSeed(id, epoch)) goes through CheckBatchInvarianceTogether, with the other cases of the same
//   stage, profile, input names, dtypes and trailing shapes as neighbours (greedy and random
//   rows, filters on and off, different seeds). For pipeline canonical and sglang the noise is
//   a seed per row, so this is the "a seeded row must not change" check.
// - When the backend draws on its own (StageCapabilities::count_draws), CountDraws with the same seed twice
//   must return identical counts.
// - Alpha 0: any difference fails, with the first difference as the reason. Results are named
//   "<case id>/reproducibility", comparison "exact", statistics null.
// Example: the reference passes every case; wrong:batch_dependent_seed fails the pipeline
//   canonical and sglang cases.
#include <cstdint>
#include <vector>

#include "core/backend.h"
#include "core/case_result.h"
#include "harness/stat_cases/stat_cases.h"

namespace sampcheck::harness {

inline constexpr std::int64_t kReproducibilityReplicas = 4;
inline constexpr std::int64_t kReproducibilityDraws = 256;  // per row, for the CountDraws check

std::vector<CaseResult> RunReproducibilityHarness(Backend& backend,
                                                          const std::vector<statistical::StatCase>& cases,
                                                          std::uint64_t seed_epoch);

}  // namespace sampcheck::harness
