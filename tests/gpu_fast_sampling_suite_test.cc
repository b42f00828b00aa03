// SPDX-License-Identifier: Apache-2.0
// gpu-fast-emulated through the whole statistical suite on every canonical pipeline case
// (docs/gpu.md "gpu-fast"): structural L1, targeted L2, omnibus L3 and reproducibility all pass.
// Labelled slow (about 40 s of CPU time, mostly the V = 8193 case's 39304 emulated draws per
// row); `ci/conform.sh` runs the same cases in its gpu-fast-emulated conform run.
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
#include "harness/statistical_run.h"

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

}  // namespace
}  // namespace sampcheck
