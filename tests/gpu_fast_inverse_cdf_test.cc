// SPDX-License-Identifier: Apache-2.0
// gpu-fast's inverse_cdf (gpu/fast/fast_inverse_cdf.cuh, docs/spec/draws.md "inverse_cdf"):
// known answers from the spec's example on dyadic probabilities (every running sum exact in any
// order, so the free-order scan must give the spec's token), the reference's input checks, the
// distributional tier, and the planted fault rejected by the statistical case built for the stage.
//
// Error budget of the rejection test: the draw harness on one case, family-wise alpha 1e-4
// (Holm over its L2/L3 tests), L1 at alpha 0, power 0.99 at the declared TV (below).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/tensor.h"
#include "gpu/emulator/emulator_counters.h"
#include "gpu/fast/fast_backend.h"
#include "gpu/fast/fast_sampling_launch.h"
#include "harness/draw_harness.h"
#include "harness/stat_cases/stat_cases.h"

namespace sampcheck {
namespace {

Case InverseCdfCase(std::int64_t rows, std::int64_t vocab, const std::vector<float>& probs, const std::vector<float>& u) {
  Case c;
  c.id = "gpu_fast_inverse_cdf_test";
  c.stage = "inverse_cdf";
  c.profile = Profile::kCanonical;
  c.inputs.emplace("probs", Tensor::FromValues(DType::kF32, {rows, vocab}, probs));
  c.inputs.emplace("u", Tensor::FromValues(DType::kF32, {rows}, u));
  return c;
}

std::vector<std::int64_t> Tokens(const TensorMap& out) {
  const auto t = out.at("token").data<std::int64_t>();
  return {t.begin(), t.end()};
}

// docs/spec/draws.md's example: probs {0.25, 0, 0.75}: u = 0 -> 0; u = 0.25 -> 2 (x = 0.25 is
// not below C_0 = 0.25 and token 1 has probability 0); unnormalised {3, 0, 1}, u = 0.75 -> 2
// (x = 3, C = {3, 3, 4}). One row per block; V = 300 > the 128-thread block spreads a row of
// dyadic weights over several chunks: {2^-2 at 0, 2^-1 at 150, 2^-2 at 299}, u = 0.5 -> 150,
// u = 0.75 -> 299 (x = C_150 = 0.75 is not below it).
TEST(GpuFastInverseCdf, SpecExamplesOnDyadicSums) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  EXPECT_EQ(Tokens(backend->Run("inverse_cdf", InverseCdfCase(3, 3, {0.25f, 0, 0.75f, 0.25f, 0, 0.75f, 3, 0, 1},
                                                               {0.0f, 0.25f, 0.75f}))),
            (std::vector<std::int64_t>{0, 2, 2}));
  std::vector<float> wide(600, 0.0f);
  for (const std::size_t row : {0u, 300u}) {
    wide[row] = wide[row + 299] = 0.25f;
    wide[row + 150] = 0.5f;
  }
  EXPECT_EQ(Tokens(backend->Run("inverse_cdf", InverseCdfCase(2, 300, wide, {0.5f, 0.75f}))),
            (std::vector<std::int64_t>{150, 299}));
}

// The row four entries a load: V = 4096 in blocks of 128 threads is 1024 quads, chunks of c =
// 4 x ceil(1024 / 128) = 32 entries; the scan's read makes V / 4 = 1024 loads and the owners'
// walk (fast_detail::FastBlockInverseCdf: a warp's lowest owner walks its chunk in 32 runs, each
// lane its run at most twice) at most 2 c loads a warp, 4 warps: at most 1024 + 256 loads, where
// one entry a load made V = 4096. Dyadic weights (1 at every fourth entry): the token is the
// spec's whatever the sums' order, u = 0.5 -> x = 512, C_i = i / 4 + 1 at i = 0 mod 4: the first
// entry past 512 is i = 2048.
TEST(GpuFastInverseCdf, ReadsTheRowFourEntriesALoad) {
  constexpr std::int64_t kV = 4096, kChunk = 32, kWarps = gpu::kFastSamplingEmulatedThreads / 32;
  static_assert(kV / 4 / gpu::kFastSamplingEmulatedThreads * 4 == kChunk);
  std::vector<float> row(kV, 0.0f);
  for (std::int64_t i = 0; i < kV; i += 4) row[static_cast<std::size_t>(i)] = 1.0f;
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  gpu::LaunchRecorder recorder;
  EXPECT_EQ(Tokens(backend->Run("inverse_cdf", InverseCdfCase(1, kV, row, {0.5f}))), (std::vector<std::int64_t>{2048}));
  ASSERT_EQ(recorder.launches().size(), 1u);
  const std::int64_t loads = recorder.launches()[0].Global("probs").loads;
  EXPECT_GE(loads, kV / 4);
  EXPECT_LE(loads, kV / 4 + 2 * kChunk * kWarps);
}

// The reference's checks (reference/inverse_cdf.h ParseInverseCdf) name the tensor.
TEST(GpuFastInverseCdf, BadInputNamesTheTensor) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  try {
    backend->Run("inverse_cdf", InverseCdfCase(1, 2, {0.5f, 0.5f}, {1.0f}));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("u[0] = 1 (0x1p+0) must be in [0, 1)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(backend->Run("inverse_cdf", InverseCdfCase(1, 2, {NAN, 0.5f}, {0.5f})), std::invalid_argument);
}

// Distributional tier: declared, not bitwise.
TEST(GpuFastInverseCdf, ClaimsTheDistributionalTierOnly) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  EXPECT_TRUE(backend->Capabilities("inverse_cdf").profiles.Contains(Profile::kCanonical));
  EXPECT_FALSE(backend->Capabilities("inverse_cdf").claims_bitwise);
}

// The planted fault (x = u, no renormalisation by the row's total) is rejected by the stage's
// statistical case (a decaying row of total ~80 with zeros), sized for the fault: the case's
// CI plan (TV 0.05 and an exponent test) costs about 100 s of emulated draws, so the test
// declares TV 0.5 and no exponent test. The fault puts all its mass on the tokens whose
// cumulative sum reaches 1 first (tokens 1 and 2, 2.5% of the reference's mass):
// TV ~0.975, far above the declared 0.5, so the power stated for 0.5 holds.
std::vector<statistical::StatCase> SizedForTheFault() {
  std::vector<statistical::StatCase> cases;
  for (auto& c : statistical::DrawStatCases()) {
    if (c.id == "stats/inverse_cdf/zeros_v1023/canonical") cases.push_back(std::move(c));
  }
  if (cases.size() == 1) {
    cases[0].mde_tv_ci = 0.5;
    cases[0].mde_exponent_ci = 0.0;
    cases[0].mde_rank_ci = 0.0;
  }
  return cases;
}

// The same case passes on the correct kernel (a false alarm at most 1e-4 at the fixed epoch 0)
// and fails on the faulty one.
TEST(GpuFastInverseCdfStatistical, RejectsSkippedRenormalisation) {
  const std::vector<statistical::StatCase> cases = SizedForTheFault();
  ASSERT_EQ(cases.size(), 1u);
  auto good = gpu::MakeGpuFastEmulatedBackend();
  for (const auto& r : statistical::RunDrawHarness(*good, cases)) EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
  auto backend = gpu::MakeGpuFastWrongBackend("gpu_fast_inverse_cdf_skips_renormalisation");
  ASSERT_NE(backend, nullptr);
  int failed = 0;
  std::string reasons;
  for (const auto& r : statistical::RunDrawHarness(*backend, cases)) {
    failed += r.verdict == Verdict::kFail;
    reasons += r.id + ": " + r.reason + "\n";
  }
  EXPECT_GE(failed, 1) << reasons;
}

}  // namespace
}  // namespace sampcheck
