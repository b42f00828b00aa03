// SPDX-License-Identifier: Apache-2.0
#pragma once
// Stage glue of the flashinfer_sampling_from_probs kernel (gpu/kernels/flashinfer_sampling_from_probs.cuh)
// for the gpu backends (gpu/backend/gpu_backend.h): the case's inputs come from the reference's
// parse (ParseFlashinferSamplingFromProbs), each row's parameters are resolved by the reference's
// own FlashinferParamsOfRow, and one launch draws every row
// (docs/gpu.md "Stages with kernels").

#include <cstdint>
#include <exception>
#include <vector>

#include "core/case.h"
#include "core/profile.h"
#include "gpu/kernels/flashinfer_sampling_from_probs.cuh"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

// Each row's parameters as the kernels read them, resolved by the reference's
// FlashinferParamsOfRow row by row as the reference meets them: the rows before the first bad
// one are drawn (`drawn` of them; they may fail first for want of uniforms), then the parameter
// error is raised. The gpu-fast glue (gpu/fast/fast_backend.cc) shares it.
struct FlashinferRows {
  std::vector<std::uint32_t> top_k;
  std::vector<float> top_p, min_p;
  FlashinferKind kind = FlashinferKind::kTopKTopP;  // the first row's (the case's `kernel`)
  bool top_k_first = false;
  std::exception_ptr param_error;
  std::int64_t drawn() const { return static_cast<std::int64_t>(top_k.size()); }
};
FlashinferRows FlashinferRowsOf(const Case& c, std::int64_t rows);

// After the launch: a row that ran out of uniforms (rounds < 0), then the parameter error, as
// the reference reports them; else the stage's outputs.
TensorMap FinishFlashinferSampling(const Case& c, const FlashinferRows& r, std::int64_t width, Tensor token,
                                   Tensor valid, Tensor rounds);

TensorMap GpuFlashinferSamplingFromProbs(const Case& c, Profile profile, KernelRunner& runner);

}  // namespace sampcheck::gpu
