// SPDX-License-Identifier: Apache-2.0
#pragma once
// The two sampling paths the device benchmark times (gpu/runners/resident_sampling.h), run on the
// checking emulator with its counters on (gpu/emulator/emulator_counters.h, docs/gpu.md "Cost
// model"): what the cost tests, the cost table and the device benchmark's estimate count.
//
// Contract:
// - gpu (bit-exact): SamplingFiltersLaunch (shape.rules: the canonical top_k_first order unless
//   a profile's rules are given; top_k and top_p given,
//   min_p given when > 0) asked for the token alone: no out or probs rows, each row's
//   multinomial_with_seed draw keyed by token id done by the per-row kernel on its survivors
//   (gpu/kernels/sampling_filters_on_survivors.cuh; bit-exact with SeededGumbel over the
//   filtered probabilities), through the emulated runner (gpu/runners/kernel_runner.h): one
//   launch, or two when the batch is split into slices per row (the slices' launch first), as
//   the benchmark launches them.
// - gpu-fast: FastSamplingLaunch at the device's block size (kFastSamplingDeviceThreads),
//   temperature 1, as the benchmark launches it: FastSamplingSlicesKernel (each row's last
//   block merging and drawing) when the batch is split into slices per row, else
//   FastSamplingKernel.
// - Inputs: every row gets the same top_k, top_p, min_p; seed 42, position 7 (the benchmark's).
//   SamplingCostLogits: the benchmark's logits (SplitMix64 in [-8, 8), one stream over the
//   whole batch), or flat rows (every logit 0).
// - Returns the launches' counters in launch order; throws std::runtime_error when the
//   emulator's checks fail (as the runners do).
// Example: CountGpuFastSampling at 1 x 128256, top_k 50, top_p 0.9 gives one launch,
//   "fast_sampling_slices" of 20 blocks (tests/gpu_cost_test.cc).

#include <cstdint>
#include <vector>

#include "gpu/emulator/emulator_counters.h"
#include "gpu/kernels/filter_rules.h"

namespace sampcheck::gpu {

struct SamplingCostShape {
  std::int64_t rows = 1;
  std::int64_t vocab = 128256;
  std::int32_t top_k = 50;
  float top_p = 0.9f;
  float min_p = 0.0f;
  bool flat = false;  // every logit equal
  // Every row greedy (temperature 0): both modes launch the greedy stage's argmax kernel
  // (GreedyLaunch, gpu/kernels/greedy.cuh; gpu-fast by FastSamplingLaunch's all-greedy
  // batch); the filter parameters are then unused.
  bool greedy = false;
  // The batch the launches plan their slices per row for (0: rows), when rows are the first
  // rows of a larger batch (FastSamplingLaunch::plan_rows, SamplingFiltersLaunch::plan_rows,
  // GreedyLaunch::plan_rows).
  std::int64_t plan_rows = 0;
  FilterRules rules{};  // gpu's profile rules (FilterRules{}: the canonical top_k_first)
};

std::vector<float> SamplingCostLogits(const SamplingCostShape& shape);
std::vector<LaunchCounters> CountGpuSampling(const SamplingCostShape& shape, const float* logits);
std::vector<LaunchCounters> CountGpuFastSampling(const SamplingCostShape& shape, const float* logits);

// The device benchmark's cases (bench/device_sampling_bench.cu, argument `case`): the typical
// parameters or one of the worst cases the goals bound.
// kGreedy is not a worst case: the goal for greedy rows is a fraction of the copy's bandwidth.
enum class DeviceBenchCase : int {
  kTypical = 0,
  kFlat = 1,
  kTopKNearV = 2,
  kTopPNearOne = 3,
  kMinPOne = 4,
  kGreedy = 5,
  kMinPAlone = 6,
  kFlatMinPAlone = 7,
};

inline constexpr std::int32_t kDeviceBenchTopK = 50;
inline constexpr float kDeviceBenchTopP = 0.9f;
// The shape of one device benchmark: top-k 50, top-p 0.9, min-p 0.05 when min_p_on (else off),
// then the case's change: flat rows; top-k V - 1; top-k off with top-p 0.999; min-p 1; every
// row greedy; min-p 1 with top-k and top-p off (gpu-fast's min-p-only probe); the same on
// flat rows (every entry passes min-p: gpu-fast's probe cannot hold them, gpu's min-p read
// gives the draw).
SamplingCostShape DeviceBenchShape(std::int64_t rows, std::int64_t vocab, bool min_p_on, DeviceBenchCase c);

// The launches of one benchmark of the gpu (deterministic) or gpu-fast path, counted on the
// first min(rows, kDeviceBenchCountedRows) rows (each row sliced as the whole batch would be)
// and scaled to `rows` (ScaleRows, gpu/cost/cost_model.h): what the benchmark's estimate and the
// calibration (gpu/cost/calibration.h) charge. `logits`: at least the counted rows of
// SamplingCostLogits(shape) (the first rows of the batch are a prefix of its stream).
inline constexpr std::int64_t kDeviceBenchCountedRows = 4;
std::vector<LaunchCounters> CountDeviceBench(bool deterministic, const SamplingCostShape& shape, const float* logits);

}  // namespace sampcheck::gpu
