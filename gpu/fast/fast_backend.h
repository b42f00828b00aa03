// SPDX-License-Identifier: Apache-2.0
#pragma once
// The gpu-fast backends (docs/gpu.md "gpu-fast"): the canonical pipeline's temperature,
// filters and seeded draw in one fused kernel written like a production sampler
// (gpu/fast/fast_sampling.cuh), judged by the statistical harness only.
//
// Contract:
// - Names: "gpu-fast-emulated" (the kernel on the checking host emulator, always built) and
//   "gpu-fast" (a CUDA device; built with the CUDA parts), as gpu-emulated and gpu.
// - Stage `pipeline`, profile `canonical` only (Capabilities); other profiles' cases are
//   skipped. Claims the distributional tier only: claims_bitwise is false for `pipeline`, so golden
//   verify skips its golden cases with that reason, and the draw harness judges its tokens
//   (structural, targeted and omnibus layers) against the exact target.
// - Inputs: every pipeline input of the canonical profile. The steps before temperature
//   (penalties, min_new_tokens, token_bitmask, logit_bias) are exact-tier stages that have
//   bit-exact kernels of their own; here they run through the reference
//   (reference::PipelineLogitsBeforeTemperature), which also checks them. Then: temperature
//   f32 [B] finite and >= 0; top_k i32, top_p and min_p f32 [B] (absent: disabled; NaN is an
//   error); seed and positions i64 [B] (positions in [0, 2^32)) when a row is random; logits
//   after those steps free of NaN and +inf, and a random row needs a finite entry. Param
//   `order` may only be `top_k_first`. Bad input throws std::invalid_argument naming case, tensor and
//   expectation.
// - Reproducibility claimed: a row's token depends only on its own inputs, seed and position
//   (the Philox subsequence), so the same case gives the same tokens run to run and in any
//   batch composition (harness/reproducibility.h checks both). Not claimed: equal tokens
//   between gpu-fast-emulated and gpu-fast (different block sizes, different summation
//   order), nor with the reference.
// - Stage `noise` too (not in the `wrong:` variants): the device's own Philox4_32_10 uniforms,
//   exponentials and Gumbels through gpu/kernels/noise.cuh, so the noise harness judges the generator
//   the fused kernel draws from (docs/spec/noise.md); canonical tier, bitwise goldens.
// - `wrong:` variants (MakeGpuFastWrongBackend): the emulated backend with a planted filter
//   bug (gpu/fast/fast_sampling_launch.h FastSamplingBug); the statistical suite must reject them.
// Example: MakeGpuFastEmulatedBackend()->Name() == "gpu-fast-emulated";
//   MakeGpuFastWrongBackend("gpu_fast_top_p_off_by_one")->Name() == "wrong:gpu_fast_top_p_off_by_one".

#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "gpu/fast/fast_sampling_launch.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

using FastSamplingRunner = void (*)(const FastSamplingLaunch&);

class GpuFastBackend final : public Backend {
 public:
  // noise_runner: where the `noise` stage's kernel runs (gpu/kernels/noise.cuh, the same Philox stream
  // the fused kernel draws from); null: the backend does not declare `noise`.
  GpuFastBackend(std::string name, FastSamplingRunner runner, FastSamplingBug bug = FastSamplingBug::kNone,
                 std::unique_ptr<KernelRunner> noise_runner = nullptr)
      : name_(std::move(name)), runner_(runner), bug_(bug), noise_runner_(std::move(noise_runner)) {}
  std::string Name() const override { return name_; }
  std::vector<std::string> SupportedStages() const override;
  StageCapabilities Capabilities(const std::string& stage) const override;
  TensorMap Run(const std::string& stage, const Case& c) override;

 private:
  std::string name_;
  FastSamplingRunner runner_;
  FastSamplingBug bug_;
  std::unique_ptr<KernelRunner> noise_runner_;
};

std::unique_ptr<Backend> MakeGpuFastEmulatedBackend();
// Defined only when the CUDA parts are built (SAMPCHECK_HAVE_CUDA): gpu/runners/cuda_runner.cu.
std::unique_ptr<Backend> MakeGpuFastCudaBackend();

// The names after "wrong:" of the planted-bug variants, and the backend for one of them
// (nullptr for any other name).
std::vector<std::string> GpuFastWrongNames();
std::unique_ptr<Backend> MakeGpuFastWrongBackend(const std::string& name);

}  // namespace sampcheck::gpu
