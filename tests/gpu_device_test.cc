// SPDX-License-Identifier: Apache-2.0
// The gpu backend on a CUDA device (ctest label gpu, docs/gpu.md "Testing"): on every golden
// of the stages it claims, gpu, gpu-emulated and the golden (the reference's output) agree
// bitwise, and the device-resident entry draws the copying runner's tokens. Without a device
// every test skips with "no CUDA device", and the backend reports that as a per-case error
// rather than crashing.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "golden/verifier.h"
#include "gpu/backend/gpu_backend.h"
#include "gpu/fast/fast_sampling_launch.h"
#include "gpu/runners/kernel_runner.h"
#include "gpu/runners/resident_sampling.h"
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

// A device copy of a host vector, freed at scope exit.
template <class T>
std::shared_ptr<T> OnDevice(const std::vector<T>& host) {
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, sizeof(T) * host.size()), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(p, host.data(), sizeof(T) * host.size(), cudaMemcpyHostToDevice), cudaSuccess);
  return std::shared_ptr<T>(static_cast<T*>(p), [](T* q) { cudaFree(q); });
}

template <class T>
std::vector<T> ToHost(const std::shared_ptr<T>& device, std::size_t n) {
  std::vector<T> host(n);
  EXPECT_EQ(cudaMemcpy(host.data(), device.get(), sizeof(T) * n, cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

// The resident entry (gpu/runners/resident_sampling.h) runs the same descriptions on device
// arrays: its tokens are those of the copying runner on the same inputs, bit-exact mode and
// gpu-fast, at a batch split into slices (4 rows) and one of one block per row (160 rows >=
// the SMs the plan assumes), each shape launched twice on one workspace (the second launch
// reuses the scratch and the tickets the first left zero). The deterministic tokens are also
// the emulator's (at 4 rows), which every golden holds to the reference.
TEST(GpuDevice, ResidentEntryDrawsTheRunnersTokens) {
  if (!CudaDevicePresent()) GTEST_SKIP() << "no CUDA device";
  const std::int64_t vocab = 32000;
  const int top_k = 50;
  for (const std::int64_t rows : {std::int64_t{4}, std::int64_t{160}}) {
    SCOPED_TRACE(testing::Message() << rows << " rows");
    const auto n = static_cast<std::size_t>(rows);
    std::vector<float> logits(static_cast<std::size_t>(rows * vocab));
    for (std::size_t i = 0; i < logits.size(); ++i) logits[i] = static_cast<float>((i * 2654435761u) % 100003) * 1e-4f;
    const std::vector<std::int32_t> k(n, top_k);
    const std::vector<float> p(n, 0.9f), m(n, 0.05f), t(n, 1.0f);
    std::vector<std::int64_t> seed(n), position(n);
    std::vector<std::uint64_t> seed_u64(n), position_u64(n);
    for (std::size_t r = 0; r < n; ++r) {
      seed[r] = static_cast<std::int64_t>(1000 + r);
      position[r] = static_cast<std::int64_t>(r % 7);
      seed_u64[r] = static_cast<std::uint64_t>(seed[r]);
      position_u64[r] = static_cast<std::uint64_t>(position[r]);
    }
    std::vector<std::int64_t> copied(n, -1), emulated(n, -1), fast_copied(n, -1);
    SamplingFiltersLaunch filters(logits.data(), k.data(), p.data(), m.data(), rows, vocab, vocab, FilterRules{});
    filters.seed = seed.data();
    filters.positions = position.data();
    filters.token = copied.data();
    MakeCudaRunner()->Run(filters);
    if (rows == 4) {  // the emulator's minutes at 160 rows would buy nothing the goldens do not
      filters.token = emulated.data();
      MakeEmulatedRunner()->Run(filters);
      EXPECT_EQ(copied, emulated);
    }
    FastSamplingLaunch fast;
    fast.logits = logits.data();
    fast.temperature = t.data();
    fast.top_k = k.data();
    fast.top_p = p.data();
    fast.min_p = m.data();
    fast.seed = seed_u64.data();
    fast.position = position_u64.data();
    fast.rows = rows;
    fast.vocab = vocab;
    fast.pitch = vocab;
    fast.token = fast_copied.data();
    RunFastSamplingCuda(fast);

    const auto d_logits = OnDevice(logits);
    const auto d_k = OnDevice(k);
    const auto d_p = OnDevice(p), d_m = OnDevice(m), d_t = OnDevice(t);
    const auto d_seed = OnDevice(seed), d_position = OnDevice(position);
    const auto d_seed_u64 = OnDevice(seed_u64), d_position_u64 = OnDevice(position_u64);
    const auto d_token = OnDevice(std::vector<std::int64_t>(n, -1));
    ResidentWorkspace workspace;
    for (const ResidentMode mode : {ResidentMode::kDeterministic, ResidentMode::kFast}) {
      for (int launch = 0; launch < 2; ++launch) {
        SCOPED_TRACE(testing::Message() << (mode == ResidentMode::kFast ? "fast" : "deterministic") << ", launch "
                                        << launch);
        const ResidentSampling s{.mode = mode, .rows = rows, .vocab = vocab, .top_k = top_k, .has_min_p = true,
                                 .logits = d_logits.get(), .top_k_rows = d_k.get(), .top_p = d_p.get(),
                                 .min_p = d_m.get(), .temperature = d_t.get(), .seed = d_seed.get(),
                                 .positions = d_position.get(), .seed_u64 = d_seed_u64.get(),
                                 .position_u64 = d_position_u64.get(), .token = d_token.get()};
        ASSERT_EQ(cudaMemset(d_token.get(), 0xff, sizeof(std::int64_t) * n), cudaSuccess);
        ASSERT_EQ(LaunchResidentSampling(s, workspace), 0);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_EQ(ToHost(d_token, n), mode == ResidentMode::kFast ? fast_copied : copied);
      }
    }
  }
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
