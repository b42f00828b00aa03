// SPDX-License-Identifier: Apache-2.0
// gpu-fast-emulated through the whole statistical suite on every canonical pipeline case
// (docs/gpu.md "gpu-fast"): structural L1, targeted L2, omnibus L3 and reproducibility all pass;
// and gpu-fast's planted faults registered with the harness are rejected by their cases.
// Labelled slow: about 38 minutes of CPU (2,252 s measured 2026-12-05 alone on a core; 991 s on
// 2026-11-29 on a loaded 2-core machine; 40 s before the filter families' CI-size rank tests,
// docs/spec/harness.md), one emulated block per draw; `ci/conform.sh` runs the same cases in its
// gpu-fast-emulated conform run, its batches spread over the machine's cores.
//
// Error budget (docs/method.md "gpu-fast"): family-wise alpha 1e-4 with Holm over the run's L2
// and L3 tests, L1 and reproducibility at alpha 0 (any violation is a bug), power 0.99 at each
// case's declared effect (TV 0.05, the boundary mass dropped). Seed epoch 0 is fixed, so the
// test is deterministic; a correct sampler fails a run with probability <= 1e-4.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "gpu/fast/fast_backend.h"
#include "harness/draw_harness.h"
#include "harness/stat_cases/stat_cases.h"
#include "harness/statistical_run.h"
#include "harness/wrong/wrong_samplers.h"

namespace sampcheck {
namespace {

std::vector<CaseResult> Suite(Backend& backend) {
  harness::StatisticalRunOptions options;
  options.stages = {"pipeline"};
  options.profiles = {"canonical"};
  options.seed_epoch = 0;
  return harness::RunStatisticalCases(backend, options);
}

// The statistical suite (structural L1, targeted L2, omnibus L3, reproducibility) on every
// canonical pipeline case: all pass at epoch 0.
TEST(GpuFastSamplingStatistical, PassesTheSuite) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  const auto results = Suite(*backend);
  std::set<std::string> layers;
  int ran = 0;
  for (const auto& r : results) {
    SCOPED_TRACE(r.id);
    EXPECT_NE(r.verdict, Verdict::kFail) << r.reason;
    if (r.verdict == Verdict::kSkip) continue;
    ++ran;
    if (r.statistics) layers.insert(std::string(TestLayerName(r.statistics->layer)));
    if (r.id.ends_with("/reproducibility")) layers.insert("reproducibility");
  }
  EXPECT_GE(ran, 20);
  EXPECT_EQ(layers, (std::set<std::string>{"L1", "L2", "L3", "reproducibility"}));
}

// gpu-fast's planted faults registered with the harness (harness/wrong/wrong_gpu_fast_speculative.cc,
// proof_in_ci false: seconds of emulated draws each): each is rejected at its declared layer by
// a case of its caught_by family, run at the whole draw family's Holm level (as
// tests/statistical_power_proof_test.cc runs the CI-sized proofs). The correct kernel passes the
// same cases in ci/conform.sh's gpu-fast-emulated run. Power: 0.99 at each case's declared TV
// (0.05), below every fault's effect (wrong_gpu_fast_speculative.cc states each TV).
TEST(GpuFastPlantedFaults, RejectedByTheirCases) {
  const std::vector<statistical::StatCase> all = statistical::DrawStatCases();
  int faults = 0;
  for (const auto& info : statistical::WrongSamplers()) {
    if (!info.name.starts_with("gpu_fast_")) continue;
    SCOPED_TRACE(info.name);
    ++faults;
    std::vector<statistical::StatCase> subset;
    for (const auto& c : all) {
      if (c.id.starts_with(info.caught_by)) subset.push_back(c);
    }
    ASSERT_FALSE(subset.empty()) << info.caught_by;
    statistical::DrawHarnessOptions options;
    options.extra_family_tests =
        statistical::PlannedFamilySize(all, options) - statistical::PlannedFamilySize(subset, options);
    auto backend = statistical::MakeWrongSampler(info.name);
    int rejected = 0;
    for (const auto& r : statistical::RunDrawHarness(*backend, subset, options)) {
      rejected += r.verdict == Verdict::kFail && r.statistics && TestLayerName(r.statistics->layer) == info.layer;
    }
    EXPECT_GE(rejected, 1) << "not rejected at layer " << info.layer << " by " << info.caught_by;
  }
  EXPECT_GE(faults, 1);
}

}  // namespace
}  // namespace sampcheck
