// SPDX-License-Identifier: Apache-2.0
#pragma once
// The gpu-emulated and gpu backends (docs/gpu.md "Backends"): the stages that have a kernel in
// gpu/, run by a KernelRunner (the checking emulator, or a CUDA device). Inputs are read and
// checked by the reference's own parse function of the stage (Parse<Stem> in reference/<stem>.h)
// or, for the stages without one, its boundary code (reference/stage_io.h), so bad input gets the
// same message as from the reference; the kernels then compute every output.
// SupportedStages lists only the stages with kernels, so conform skips the others.

#include <memory>
#include <string>

#include "core/backend.h"
#include "core/profile.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

class GpuBackend final : public Backend {
 public:
  explicit GpuBackend(std::unique_ptr<KernelRunner> runner) : runner_(std::move(runner)) {}
  std::string Name() const override { return runner_->Name(); }
  std::vector<std::string> SupportedStages() const override;
  TensorMap Run(const std::string& stage, const Case& c) override;
  // The pipeline draws on its own: each row's distribution once, then the draw kernel on the
  // harness's noise (gpu/backend/pipeline_glue.h, docs/gpu.md "The pipeline's statistical cases").
  StageCapabilities Capabilities(const std::string& stage) const override;
  Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override;
  Tensor CountDrawsRange(const std::string& stage, const Case& c, std::int64_t first_draw, std::int64_t draws,
                         std::uint64_t seed) override;

 private:
  std::unique_ptr<KernelRunner> runner_;
};

std::unique_ptr<Backend> MakeGpuEmulatedBackend();

// One single stage of the backend's stage table on `runner`, for the glue that
// composes stages (gpu/backend/pipeline_glue.cc); throws InputError for a stage without a kernel.
TensorMap RunGpuStage(const std::string& stage, const Case& c, Profile profile, KernelRunner& runner);
// Defined only when the CUDA parts are built (SAMPCHECK_HAVE_CUDA): gpu/runners/cuda_runner.cu.
std::unique_ptr<Backend> MakeCudaBackend();

}  // namespace sampcheck::gpu
