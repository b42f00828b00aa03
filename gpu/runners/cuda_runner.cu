// SPDX-License-Identifier: Apache-2.0
// The kernels on a CUDA device (gpu/runners/kernel_runner.h, docs/gpu.md "Backends"): every launch description
// runs through the device's launcher (gpu/runners/cuda_launch.cuh), gpu-fast's too (gpu/fast/*_launch.h), host
// buffers copied in and out per call; a failure becomes std::runtime_error at the runner's boundary, "no CUDA
// device" when there is none. Also the device-resident entry (gpu/runners/resident_sampling.h), here so that
// nvcc compiles the sampling kernels once for the runners and for it.
#include <variant>

#include "gpu/runners/cuda_launch.cuh"
#include "gpu/fast/fast_backend.h"
#include "gpu/fast/fast_flashinfer_sampling_from_probs.cuh"
#include "gpu/fast/fast_flashinfer_sampling_from_probs_launch.h"
#include "gpu/fast/fast_inverse_cdf.cuh"
#include "gpu/fast/fast_inverse_cdf_launch.h"
#include "gpu/fast/fast_sampling.cuh"
#include "gpu/fast/fast_sampling_launch.h"
#include "gpu/fast/fast_sampling_slices.cuh"
#include "gpu/fast/fast_spec_random.cuh"
#include "gpu/fast/fast_spec_random_launch.h"
#include "gpu/backend/gpu_backend.h"
#include "gpu/kernels/sampling_filters.cuh"
#include "gpu/kernels/sampling_filters_slices.cuh"
#include "gpu/runners/kernel_runner.h"
#include "gpu/runners/resident_sampling.h"

namespace sampcheck::gpu {

namespace {

class CudaRunner final : public KernelRunner {
 public:
  std::string Name() const override { return "gpu"; }
  // Every call checks for a device: one may be absent (CI) or lost.
  void Run(const KernelLaunch& launch) override {
    std::visit([](const auto& description) { RunOnCudaDevice(description, "gpu"); }, launch);
  }
};

}  // namespace

std::unique_ptr<KernelRunner> MakeCudaRunner() { return std::make_unique<CudaRunner>(); }
std::unique_ptr<Backend> MakeCudaBackend() { return std::make_unique<GpuBackend>(MakeCudaRunner()); }

void RunFastSamplingCuda(const FastSamplingLaunch& launch) {
  RequireCudaDevice();
  CudaLaunch device("gpu-fast");
  launch.Describe<kFastSamplingDeviceThreads>(device);
}

void RunFastInverseCdfCuda(const FastInverseCdfLaunch& launch) {
  RequireCudaDevice();
  CudaLaunch device("gpu-fast");
  launch.Describe<kFastSamplingDeviceThreads>(device);
}

void RunFastFlashinferSamplingFromProbsCuda(const FastFlashinferSamplingFromProbsLaunch& launch) {
  RequireCudaDevice();
  CudaLaunch device("gpu-fast");
  launch.Describe<kFastSamplingDeviceThreads>(device);
}

void RunFastSpecRandomCuda(const FastSpecRandomLaunch& launch) {
  RequireCudaDevice();
  CudaLaunch device("gpu-fast");
  launch.Describe<kFastSamplingDeviceThreads>(device);
}

std::unique_ptr<Backend> MakeGpuFastCudaBackend() {
  return std::make_unique<GpuFastBackend>("gpu-fast", FastRunners{.sampling = RunFastSamplingCuda, .inverse_cdf = RunFastInverseCdfCuda,
                                                                .flashinfer_sampling_from_probs = RunFastFlashinferSamplingFromProbsCuda,
                                                                .spec_random = RunFastSpecRandomCuda},
                                          FastSamplingBug::kNone, MakeCudaRunner());
}

namespace {

// The slices each mode's plan gives every row (RowSliceBudget / FastSliceBudget of the batch).
struct ResidentPlan {
  std::int64_t budget, filter_slices, fast_slices;
};

ResidentPlan PlanResident(std::int64_t rows, std::int64_t vocab, int top_k) {
  const std::int64_t budget = FastSliceBudget(rows, vocab);
  return {budget, SamplingFiltersRowSlices(budget, vocab, top_k, FilterRules{}),
          FastRowSlices(budget, vocab, false, top_k, FastFilterRule{})};
}

}  // namespace

std::int64_t ResidentPartialWords(std::int64_t rows, std::int64_t vocab, int top_k) {
  const ResidentPlan plan = PlanResident(rows, vocab, top_k);
  return plan.filter_slices > 1 || plan.fast_slices > 1 ? rows * kRowSliceSlots : 1;
}

int LaunchResidentSampling(const ResidentSampling& s) {
  const ResidentPlan plan = PlanResident(s.rows, s.vocab, s.top_k);
  const std::int64_t cells = s.rows * s.vocab;
  const auto grid = static_cast<unsigned>(s.rows);
  const GlobalArray<std::uint64_t> partials(s.partials, ResidentPartialWords(s.rows, s.vocab, s.top_k), "slices");
  const GlobalArray<std::uint32_t> tickets(s.tickets, s.rows, "tickets");
  const GlobalArray<std::int64_t> token(s.token, s.rows, "token");
  const GlobalArray<const std::int32_t> top_k(s.top_k_rows, s.rows, "top_k");
  const GlobalArray<const float> top_p(s.top_p, s.rows, "top_p");
  const GlobalArray<const float> min_p(s.min_p, s.rows, "min_p");
  if (s.mode == ResidentMode::kDeterministic) {
    // The filters kernel reads its input through the same array type it writes (never writing
    // the input).
    const GlobalArray<float> in(const_cast<float*>(s.logits), cells, "logits");
    const GlobalArray<float> out(s.work_a, cells, "out");
    const GlobalArray<float> probs(s.work_b, cells, "probs");
    const GlobalArray<std::uint64_t> keys(s.order_keys, 2 * cells, "order_keys");
    const GlobalArray<std::uint64_t> survivor_rows(s.survivor_rows, 1, "survivor_rows");
    const GlobalArray<const std::int64_t> seed(s.seed, s.rows, "seed");
    const GlobalArray<const std::int64_t> positions(s.positions, s.rows, "positions");
    if (plan.filter_slices > 1) {
      KernelEntry<SamplingFiltersSlicesKernel><<<grid * static_cast<unsigned>(plan.filter_slices),
                                                 SamplingFiltersSlicesKernel::kThreads>>>(
          in, out, probs, keys, top_k, true, top_p, true, min_p, s.has_min_p, s.vocab, s.vocab, FilterRules{},
          partials, survivor_rows, tickets, plan.budget, plan.filter_slices, false, seed, positions, token, true);
    } else {
      KernelEntry<SamplingFiltersKernel><<<grid, SamplingFiltersKernel::kThreads>>>(
          in, out, probs, keys, top_k, true, top_p, true, min_p, s.has_min_p, s.vocab, s.vocab, FilterRules{},
          partials, survivor_rows, std::int64_t{1}, false, seed, positions, token, true);
    }
  } else {
    using Slices = FastSamplingSlicesKernel<kFastSamplingDeviceThreads>;
    using Fast = FastSamplingKernel<kFastSamplingDeviceThreads>;
    const GlobalArray<const float> in(s.logits, cells, "logits");
    const GlobalArray<const float> temperature(s.temperature, s.rows, "temperature");
    const GlobalArray<const std::uint64_t> seed(s.seed_u64, s.rows, "seed");
    const GlobalArray<const std::uint64_t> position(s.position_u64, s.rows, "position");
    // Canonical rules: no race, q never read.
    const GlobalArray<const float> q(nullptr, 0, "q");
    if (plan.fast_slices > 1) {
      KernelEntry<Slices><<<grid * static_cast<unsigned>(plan.fast_slices), Slices::kThreads>>>(
          in, temperature, top_k, top_p, min_p, seed, position, q, partials, tickets, token, s.vocab, s.vocab,
          plan.budget, plan.fast_slices, FastSamplingOptions{});
    } else {
      KernelEntry<Fast><<<grid, Fast::kThreads>>>(in, temperature, top_k, top_p, min_p, seed, position, q, partials,
                                                  token, s.vocab, s.vocab, std::int64_t{1}, FastSamplingOptions{});
    }
  }
  return static_cast<int>(cudaGetLastError());
}

// Whether a device is present, for tests that must skip with "no CUDA device".
bool CudaDevicePresent() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace sampcheck::gpu
