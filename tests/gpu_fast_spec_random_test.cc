// SPDX-License-Identifier: Apache-2.0
// gpu-fast's spec_random (gpu/fast/fast_spec_random.cuh, docs/spec/speculative.md "spec_random"):
// known answers worked by hand from the spec's rules on dyadic probabilities (every residual sum
// exact in any order, so the free-order draw must give the spec's token), the input checks, the
// claimed profiles, and the planted fault's known answer. Its statistical rejection runs in
// tests/gpu_fast_sampling_suite_test.cc (label slow).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/case.h"
#include "core/error.h"
#include "core/tensor.h"
#include "gpu/emulator/emulator_counters.h"
#include "gpu/fast/fast_backend.h"
#include "gpu/fast/fast_sampling_launch.h"

namespace sampcheck {
namespace {

// One request, K = 1 draft `x`, V = 4: target rows t_0, t_1, draft row d_0.
Case OneDraft(Profile profile, std::int32_t x, const std::vector<float>& target, const std::vector<float>& draft) {
  Case c;
  c.id = "gpu_fast_spec_random_test";
  c.stage = "spec_random";
  c.profile = profile;
  c.inputs.emplace("draft_ids", Tensor::FromValues(DType::kI32, {1, 1}, std::vector<std::int32_t>{x}));
  c.inputs.emplace("target_probs", Tensor::FromValues(DType::kF32, {1, 2, 4}, target));
  c.inputs.emplace("draft_probs", Tensor::FromValues(DType::kF32, {1, 1, 4}, draft));
  return c;
}

Case Flashinfer(const std::vector<float>& u) {
  Case c = OneDraft(Profile::kFlashinfer, 0, {0.25f, 0.25f, 0.5f, 0.0f, 0.0f, 0.5f, 0.25f, 0.25f},
                    {0.5f, 0.5f, 0.0f, 0.0f});
  c.inputs.emplace("u", Tensor::FromValues(DType::kF32, {1, 2}, u));
  return c;
}

std::vector<std::int64_t> Emitted(const TensorMap& out) {
  const auto e = out.at("emitted").data<std::int64_t>();
  std::vector<std::int64_t> v(e.begin(), e.end());
  v.push_back(out.at("num_accepted").data<std::int64_t>()[0]);
  return v;  // emitted, then num_accepted
}

// flashinfer (the kernel's contract example): u_0 * d_0[0] = 0.75 * 0.5 = 0.375 is not below
// t_0[0] = 0.25: rejected; the residual max(t_0 - d_0, 0) = {0, 0, 0.5, 0} with u_1 = 0.25 (x =
// 0.125) gives 2. With u_0 = 0.25 (0.125 < 0.25) the draft is accepted and the bonus is drawn
// from t_1 = {0, 0.5, 0.25, 0.25} with u_1 = 0.75: x = 0.75, running sums 0.5, 0.75, 1: token 3.
TEST(GpuFastSpecRandom, FlashinferRulesOnDyadicRows) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  EXPECT_EQ(Emitted(backend->Run("spec_random", Flashinfer({0.75f, 0.25f}))), (std::vector<std::int64_t>{2, -1, 0}));
  EXPECT_EQ(Emitted(backend->Run("spec_random", Flashinfer({0.25f, 0.75f}))), (std::vector<std::int64_t>{0, 3, 1}));
}

// vllm, the spec's example: V = 2 (here V = 4 with two zero entries), draft 0 with dp = 0.5, tp =
// 0.25, u = 0.75: 0.5 >= 0.75 fails; r = {0, 0.5, 0, 0} raced with q = 1: token 1, emitted
// {1, -1}, num_accepted 0.
TEST(GpuFastSpecRandom, VllmSpecExample) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  Case c = OneDraft(Profile::kVllm, 0, {0.25f, 0.75f, 0.0f, 0.0f, 0.5f, 0.5f, 0.0f, 0.0f}, {0.5f, 0.25f, 0.0f, 0.0f});
  c.inputs.emplace("u", Tensor::FromValues(DType::kF64, {1, 1}, std::vector<double>{0.75}));
  c.inputs.emplace("q", Tensor::FromValues(DType::kF32, {1, 4}, std::vector<float>{1, 1, 1, 1}));
  c.inputs.emplace("bonus_q", Tensor::FromValues(DType::kF32, {1, 4}, std::vector<float>{1, 1, 1, 1}));
  EXPECT_EQ(Emitted(backend->Run("spec_random", c)), (std::vector<std::int64_t>{1, -1, 0}));
}

// The recovered token's rows four entries a load: one request, draft 0 rejected, V = 4096 in
// blocks of 128 threads (1024 quads, chunks of c = 32 entries, 4 warps). flashinfer: t_0 = 1/2
// at 0 and 2^-11 at every other fourth entry, d_0 = 1 at 0: u_0 * 1 = 0.5 is not below 0.5, so
// the draft is rejected; the residual is 2^-11 at i = 4, 8, ... (1023 entries, dyadic sums
// exact in any order), u_1 = 0.5 -> x = 1023 / 4096, C_i = (i / 4) / 2048: the first i with C_i
// > x is 2048. The scan reads t_0 and d_0 once by quads (V / 4 loads each) and the owners' walk
// at most 2 c a warp of each; the acceptance test one entry of each. vllm, the same rows, u_0 =
// 0.75: rejected (0.5 / 1 < 0.75); the race over r_j / q_j with q = 1 but q at 8 = 2^-4: r_8 /
// q_8 = 2^-7 wins, token 8; t_0, d_0 and q read once each by quads (V / 4 loads each).
TEST(GpuFastSpecRandom, ReadsTheRowsFourEntriesALoad) {
  constexpr std::int64_t kV = 4096, kChunk = 32, kWarps = gpu::kFastSamplingEmulatedThreads / 32;
  static_assert(kV / 4 / gpu::kFastSamplingEmulatedThreads * 4 == kChunk);
  std::vector<float> target(2 * kV, 0.0f), draft(kV, 0.0f), q(kV, 1.0f);
  target[0] = 0.5f;
  for (std::int64_t i = 4; i < kV; i += 4) target[static_cast<std::size_t>(i)] = 0x1p-11f;
  target[kV] = 1.0f;  // t_1: the bonus row, not read
  draft[0] = 1.0f;
  q[8] = 0x1p-4f;
  auto loads_of = [](const gpu::LaunchCounters& l, const char* name) { return l.Global(name).loads; };
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  auto one_draft = [&](Profile profile) {
    Case c;
    c.id = "gpu_fast_spec_random_test";
    c.stage = "spec_random";
    c.profile = profile;
    c.inputs.emplace("draft_ids", Tensor::FromValues(DType::kI32, {1, 1}, std::vector<std::int32_t>{0}));
    c.inputs.emplace("target_probs", Tensor::FromValues(DType::kF32, {1, 2, kV}, target));
    c.inputs.emplace("draft_probs", Tensor::FromValues(DType::kF32, {1, 1, kV}, draft));
    return c;
  };
  {
    Case c = one_draft(Profile::kFlashinfer);
    c.inputs.emplace("u", Tensor::FromValues(DType::kF32, {1, 2}, std::vector<float>{0.5f, 0.5f}));
    gpu::LaunchRecorder recorder;
    EXPECT_EQ(Emitted(backend->Run("spec_random", c)), (std::vector<std::int64_t>{2048, -1, 0}));
    ASSERT_EQ(recorder.launches().size(), 1u);
    for (const char* rows : {"target_probs", "draft_probs"}) {
      SCOPED_TRACE(rows);
      EXPECT_GE(loads_of(recorder.launches()[0], rows), kV / 4 + 1);
      EXPECT_LE(loads_of(recorder.launches()[0], rows), kV / 4 + 1 + 2 * kChunk * kWarps);
    }
  }
  Case c = one_draft(Profile::kVllm);
  c.inputs.emplace("u", Tensor::FromValues(DType::kF64, {1, 1}, std::vector<double>{0.75}));
  c.inputs.emplace("q", Tensor::FromValues(DType::kF32, {1, kV}, q));
  c.inputs.emplace("bonus_q", Tensor::FromValues(DType::kF32, {1, kV}, q));
  gpu::LaunchRecorder recorder;
  EXPECT_EQ(Emitted(backend->Run("spec_random", c)), (std::vector<std::int64_t>{8, -1, 0}));
  ASSERT_EQ(recorder.launches().size(), 1u);
  EXPECT_EQ(loads_of(recorder.launches()[0], "target_probs"), kV / 4 + 1);
  EXPECT_EQ(loads_of(recorder.launches()[0], "draft_probs"), kV / 4 + 1);
  EXPECT_EQ(loads_of(recorder.launches()[0], "q"), kV / 4);
  EXPECT_EQ(loads_of(recorder.launches()[0], "bonus_q"), 0);
}

// The checks of the bit-exact glue (the reference's messages), and the profile not claimed.
TEST(GpuFastSpecRandom, BadInputAndUnclaimedProfile) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  try {
    backend->Run("spec_random", Flashinfer({0.75f, 2.0f}));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("flashinfer uniforms must be in [0, 1]"), std::string::npos) << e.what();
  }
  const auto caps = backend->Capabilities("spec_random");
  EXPECT_TRUE(caps.profiles.Contains(Profile::kVllm));
  EXPECT_TRUE(caps.profiles.Contains(Profile::kFlashinfer));
  EXPECT_FALSE(caps.profiles.Contains(Profile::kTypicalAcceptance));
  EXPECT_FALSE(caps.claims_bitwise);
  Case typical = Flashinfer({0.5f, 0.5f});
  typical.profile = Profile::kTypicalAcceptance;
  EXPECT_THROW(backend->Run("spec_random", typical), InputError);
}

// The planted fault on the first example: the recovered token drawn from t_0 = {0.25, 0.25, 0.5,
// 0} with x = 0.25: running sums 0.25 (not above x), 0.5: token 1.
TEST(GpuFastSpecRandom, PlantedRecoveredFromTargetDrawsFromTheTargetRow) {
  auto backend = gpu::MakeGpuFastPlantedBackend("gpu_fast_spec_random_recovered_from_target",
                                                gpu::FastSamplingBug::kSpecRandomRecoveredFromTarget);
  EXPECT_EQ(Emitted(backend->Run("spec_random", Flashinfer({0.75f, 0.25f}))), (std::vector<std::int64_t>{1, -1, 0}));
}

}  // namespace
}  // namespace sampcheck
