// SPDX-License-Identifier: Apache-2.0
// The gpu backend on a CUDA device (ctest label gpu, docs/gpu.md "Testing"): on every golden
// of the stages it claims, gpu, gpu-emulated and the golden (the reference's output) agree
// bitwise. Without a device every test skips with "no CUDA device", and the backend reports
// that as a per-case error rather than crashing.
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "golden/verifier.h"
#include "gpu/backend/gpu_backend.h"
#include "gpu/runners/kernel_runner.h"
#include "harness/two_sample.h"
#include "reference/reference_backend.h"
#include "harness/noise_harness.h"

namespace sampcheck::gpu {
namespace {

TEST(GpuDevice, PassesEveryGoldenOfItsStages) {
  if (!CudaDevicePresent()) GTEST_SKIP() << "no CUDA device";
  auto backend = MakeCudaBackend();
  const auto results = golden::VerifyGoldenSet(SAMPCHECK_SOURCE_DIR "/golden/v1", *backend);
  int passed = 0;
  for (const auto& r : results) {
    if (r.verdict == Verdict::kSkip) continue;
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
    ++passed;
  }
  EXPECT_GT(passed, 0);
}

TEST(GpuDevice, MatchesTheEmulatorOnPaddedRows) {
  if (!CudaDevicePresent()) GTEST_SKIP() << "no CUDA device";
  // V = 151936 in rows of pitch 152064 with NaN pads: the emulator's answer is the reference's
  // (tests/gpu_kernels_test.cc); the device must give the same bits.
  const std::int64_t rows = 2, vocab = 151936, pitch = 152064;
  std::vector<float> x(static_cast<std::size_t>(rows * pitch), std::numeric_limits<float>::quiet_NaN());
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t i = 0; i < vocab; ++i) {
      x[static_cast<std::size_t>(b * pitch + i)] = static_cast<float>((i * 7919 + b * 31) % 1000) * 0.01f;
    }
  }
  auto device = MakeCudaRunner();
  auto emulated = MakeEmulatedRunner();
  std::vector<std::int64_t> t_dev(rows), t_emu(rows);
  device->Run(GreedyLaunch(x.data(), rows, vocab, pitch, t_dev.data()));
  emulated->Run(GreedyLaunch(x.data(), rows, vocab, pitch, t_emu.data()));
  EXPECT_EQ(t_dev, t_emu);
  std::vector<float> p_dev(static_cast<std::size_t>(rows * vocab)), p_emu(p_dev.size());
  for (const bool log : {false, true}) {
    device->Run(SoftmaxLaunch(x.data(), nullptr, rows, vocab, pitch, log, p_dev.data()));
    emulated->Run(SoftmaxLaunch(x.data(), nullptr, rows, vocab, pitch, log, p_emu.data()));
    EXPECT_EQ(0, std::memcmp(p_dev.data(), p_emu.data(), p_dev.size() * sizeof(float))) << "log " << log;
  }
}

// The noise stage: the device's noise follows its laws (the noise harness through Run, Holm at
// 1e-4, power >= 0.99 per docs/spec/noise.md), and every golden case of a stage the reference
// and gpu share is bitwise equal across the two (harness/two_sample.h, alpha 0).
TEST(GpuDevice, NoiseFollowsItsLawsAndSharedGoldensAgreeWithTheReference) {
  if (!CudaDevicePresent()) GTEST_SKIP() << "no CUDA device";
  auto backend = MakeCudaBackend();
  for (const auto& r : statistical::RunBackendNoiseHarness(*backend, 0, false)) {
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
  }
  reference::ReferenceBackend ref;
  const auto across = harness::RunTwoSample(ref, *backend, {.homogeneity = false});
  EXPECT_FALSE(across.empty());
  for (const auto& r : across) EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
}

// Runs on every machine, never skips: with a device a one-entry row gives token 0; without
// one the call fails with an error that starts with "no CUDA device" (not a crash).
TEST(GpuDevice, RunsOrReportsNoDevice) {
  auto runner = MakeCudaRunner();
  std::int64_t token = -1;
  const float x = 1.0f;
  if (CudaDevicePresent()) {
    runner->Run(GreedyLaunch(&x, 1, 1, 1, &token));
    EXPECT_EQ(token, 0);
    return;
  }
  try {
    runner->Run(GreedyLaunch(&x, 1, 1, 1, &token));
    FAIL() << "expected a no-device error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no CUDA device", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace sampcheck::gpu
