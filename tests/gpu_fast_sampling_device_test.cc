// SPDX-License-Identifier: Apache-2.0
// gpu-fast on a CUDA device (docs/gpu.md "gpu-fast"): the same fused kernel at the device's
// block size (1024 threads) through the whole statistical suite on the canonical pipeline cases,
// and the same token for a row run to run. Without a device the tests skip with "no CUDA
// device", and the backend's error says so.
//
// Error budget (docs/method.md "gpu-fast"): family-wise alpha 1e-4 with Holm over the run's L2
// and L3 tests, L1 and reproducibility at alpha 0, power 0.99 at each case's declared effect;
// seed epoch 0 fixed, so a correct sampler fails a run with probability <= 1e-4.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/fast/fast_backend.h"
#include "gpu/runners/kernel_runner.h"
#include "harness/statistical_run.h"

namespace sampcheck {
namespace {

TEST(GpuFastSamplingDevice, PassesTheSuite) {
  if (!gpu::CudaDevicePresent()) GTEST_SKIP() << "no CUDA device";
  auto backend = gpu::MakeGpuFastCudaBackend();
  harness::StatisticalRunOptions options;
  options.stages = {"pipeline"};
  options.profiles = {"canonical"};
  int ran = 0;
  for (const auto& r : harness::RunStatisticalCases(*backend, options)) {
    SCOPED_TRACE(r.id);
    EXPECT_NE(r.verdict, Verdict::kFail) << r.reason;
    ran += r.verdict != Verdict::kSkip;
  }
  EXPECT_GE(ran, 20);
}

TEST(GpuFastSamplingDevice, NoDeviceIsAClearError) {
  if (gpu::CudaDevicePresent()) GTEST_SKIP() << "a CUDA device is present";
  Case c;
  c.id = "no_device";
  c.stage = "pipeline";
  c.profile = Profile::kCanonical;
  c.inputs.emplace("logits", Tensor::FromValues(DType::kF32, {1, 2}, std::vector<float>{0.0f, -1.0f}));
  c.inputs.emplace("temperature", Tensor::FromValues(DType::kF32, {1}, std::vector<float>{1.0f}));
  c.inputs.emplace("seed", Tensor::FromValues(DType::kI64, {1}, std::vector<std::int64_t>{1}));
  c.inputs.emplace("positions", Tensor::FromValues(DType::kI64, {1}, std::vector<std::int64_t>{0}));
  try {
    gpu::MakeGpuFastCudaBackend()->Run("pipeline", c);
    FAIL() << "no error without a device";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no CUDA device", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace sampcheck
