// SPDX-License-Identifier: Apache-2.0
// The kernels on a CUDA device (gpu/runners/kernel_runner.h, docs/gpu.md "Backends"): every launch description
// runs through the device's launcher (gpu/runners/cuda_launch.cuh), gpu-fast's too (gpu/fast/*_launch.h), host
// buffers copied in and out per call; a failure becomes std::runtime_error at the runner's boundary, "no CUDA
// device" when there is none. Also the device-resident entry (gpu/runners/resident_sampling.h: the same
// descriptions through gpu/runners/cuda_resident_launch.cuh), here so that nvcc compiles the sampling kernels
// once for the runners and for it. And the device timeline's switch (gpu/block/device_timeline.h), which must
// set this translation unit's copy of the kernels' target.
#include <variant>

#include "gpu/runners/cuda_launch.cuh"
#include "gpu/runners/cuda_resident_launch.cuh"
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
#include "gpu/block/device_timeline.h"
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

// This translation unit's timeline target is the one its kernels read (gpu/block/device_timeline.cuh).
bool DeviceTimelineBuilt() { return device::kDeviceTimeline; }

int EnableDeviceTimeline(std::uint64_t* device_slots, std::int64_t blocks) {
  const device::TimelineTarget target{reinterpret_cast<unsigned long long*>(device_slots),
                                      device_slots == nullptr ? 0 : static_cast<long long>(blocks)};
  return static_cast<int>(cudaMemcpyToSymbol(device::c_timeline, &target, sizeof target));
}

int DisableDeviceTimeline() { return EnableDeviceTimeline(nullptr, 0); }

ResidentWorkspace::~ResidentWorkspace() {
  for (const std::vector<Buffer>* list : {&scratch_, &tickets_}) {
    for (const Buffer& b : *list) cudaFree(b.device);
  }
}

int LaunchResidentSampling(const ResidentSampling& s, ResidentWorkspace& workspace) {
  // Each mode's slices are planned from the host's top_k (SamplingFiltersRowSlices /
  // FastRowSlices): the descriptions' own Slices() would read the per-row arrays, which are on
  // the device. Every row greedy or none (ResidentSampling::greedy): a greedy batch takes the
  // greedy stage's argmax kernel in both modes, as FastSamplingLaunch's all-greedy batch does.
  ResidentLaunch device(workspace);
  if (s.greedy) {
    GreedyLaunch{s.logits, s.rows, s.vocab, s.vocab, s.token}.Describe(device);
  } else if (s.mode == ResidentMode::kDeterministic) {
    SamplingFiltersLaunch l;
    l.logits = s.logits;
    l.top_k = s.top_k_rows;
    l.top_p = s.top_p;
    l.min_p = s.has_min_p ? s.min_p : nullptr;
    l.rows = s.rows;
    l.vocab = s.vocab;
    l.pitch = s.vocab;
    l.seed = s.seed;
    l.positions = s.positions;
    l.token = s.token;
    l.planned_slices = SamplingFiltersRowSlices(l.SliceBudget(), s.vocab, s.top_k, l.rules);
    l.Describe(device);
  } else {
    FastSamplingLaunch l;
    l.logits = s.logits;
    l.temperature = s.temperature;
    l.top_k = s.top_k_rows;
    l.top_p = s.top_p;
    l.min_p = s.min_p;
    l.seed = s.seed_u64;
    l.position = s.position_u64;
    l.rows = s.rows;
    l.vocab = s.vocab;
    l.pitch = s.vocab;
    l.token = s.token;
    // The most slices a row can take: a min-p-only row's probe when min-p is on and top-k off
    // (top-p is not known here; a row with top-p on takes one block and leaves the others idle).
    const std::int64_t k = FastSurvivorK(FastTopKOf(s.top_k, l.options.bug), 1.0f, s.has_min_p ? 1.0f : 0.0f, s.vocab,
                                         l.options.rule);
    l.planned_slices = FastRowSlices(l.SliceBudget(), s.vocab, false, k, l.options.rule);
    l.Describe<kFastSamplingDeviceThreads>(device);
  }
  return static_cast<int>(device.Error());
}

int LaunchResidentStage(const ResidentStageRows& s, ResidentWorkspace& workspace) {
  ResidentLaunch device(workspace);
  switch (s.stage) {
    case ResidentStage::kSoftmax:
      SoftmaxLaunch{s.logits, nullptr, s.rows, s.vocab, s.vocab, false, s.out}.Describe(device);
      break;
    case ResidentStage::kTopK:
      TopKLaunch{s.logits, s.top_k, s.rows, s.vocab, s.vocab, TopKRule{}, s.out}.Describe(device);
      break;
    case ResidentStage::kTopP:
      TopPLaunch{s.logits, s.p, s.rows, s.vocab, s.vocab, TopPWalk::kExclusive, s.out, DegenerateRowRule{}}.Describe(
          device);
      break;
    case ResidentStage::kMinP:
      MinPLaunch{s.logits, s.p, s.rows, s.vocab, s.vocab, MinPRule{}, s.out, DegenerateRowRule{}}.Describe(device);
      break;
  }
  return static_cast<int>(device.Error());
}

// Whether a device is present, for tests that must skip with "no CUDA device".
bool CudaDevicePresent() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace sampcheck::gpu
