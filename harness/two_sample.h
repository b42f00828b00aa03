// SPDX-License-Identifier: Apache-2.0
#pragma once
// Backend against backend (docs/spec/harness.md "Two backends"; `sampcheck stats --backend A
// --against B`), for checks where a user has no exact target, or wants the "across devices"
// promise checked:
// - Bitwise: every golden case (the v1 set, built in memory) of a stage and profile both
//   backends support runs on A and on B; every output of A must equal B's output of the same
//   name bit for bit (NaN payloads included), whatever the stage's tier. Seeded stages carry
//   their seeds and counters as inputs, so reference, gpu-emulated and gpu must agree here.
//   Result "<case id>/across", comparison "exact", alpha 0.
// - Homogeneity: every statistical case (harness/stat_cases/stat_cases.h) of a drawing stage both
//   backends support: A and B each draw n tokens per row, independently (seeds
//   CaseSeed(id + "/a", epoch) and CaseSeed(id + "/b", epoch)), with their own randomness
//   (CountDraws) or, when a backend cannot, through Run with harness noise
//   (CountDrawsThroughRun); per row the 2 x K Cressie–Read homogeneity test
//   (statistical/homogeneity.h, E_min 5, pooling on column totals). Result
//   "<case id>/two_sample" (or ".../row<r>/two_sample"), layer L3; a row that pools to one
//   bin (an amplifier row at this n) is left out, as in the draw harness.
//   n per side = 2 ChiSquareSampleSize(|S| - 1, 4 mde^2, alpha / m, 0.99), S the row's support
//   under the reference's exact target (V when the stage has none), mde the case's
//   mde_tv_ci (mde_tv_thorough under thorough), m the number of homogeneity tests: equal
//   samples of n each have non-centrality (n / 2) w^2, twice the n of a one-sample test.
//   Holm over the homogeneity tests at family-wise alpha 1e-4.
// Example: RunTwoSample(reference, gpu-emulated, {}) passes every result; reference against
// wrong:recovered_from_target fails stats/exponential_race/peaked_v100/canonical/two_sample.
#include <cstdint>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/case_result.h"

namespace sampcheck::harness {

struct TwoSampleOptions {
  std::vector<std::string> stages = {};    // empty: all
  std::vector<std::string> profiles = {};  // empty: all
  std::uint64_t seed_epoch = 0;
  bool thorough = false;
  bool bitwise = true;      // the golden cases, bit for bit
  bool homogeneity = true;  // the statistical cases' draw counts
  std::int64_t max_draws = 20'000'000;  // per side and row; above it the case fails as misconfigured
};

std::vector<CaseResult> RunTwoSample(Backend& a, Backend& b, const TwoSampleOptions& options);

}  // namespace sampcheck::harness
