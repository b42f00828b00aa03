// SPDX-License-Identifier: Apache-2.0
// The sampling paths on the counting emulator (gpu/cost/sampling_cost.h, docs/gpu.md "Cost model").
#include "gpu/cost/sampling_cost.h"

#include <memory>

#include "gpu/cost/cost_model.h"

#include "gpu/fast/fast_sampling_launch.h"
#include "gpu/kernels/filter_rules.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

namespace {
constexpr std::uint64_t kSeed = 42;     // bench/device_sampling_bench.cu's seed
constexpr std::uint64_t kPosition = 7;  // and position (gpu/runners/resident_sampling.h)
}  // namespace

std::vector<float> SamplingCostLogits(const SamplingCostShape& shape) {
  std::vector<float> x(static_cast<std::size_t>(shape.rows * shape.vocab), 0.0f);
  if (shape.flat) return x;
  // SplitMix64 (Steele, Lea and Flood, OOPSLA 2014; the finaliser constants of Java's
  // SplittableRandom), the top 24 bits scaled to [-8, 8): bench/device_sampling_bench.cu's
  // Inputs, so the counts are of the bytes the device benchmark samples.
  std::uint64_t s = 0x5eed0001;
  for (float& v : x) {
    s += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    v = -8.0f + 16.0f * static_cast<float>(z >> 40) * 0x1.0p-24f;
  }
  return x;
}

std::vector<LaunchCounters> CountGpuSampling(const SamplingCostShape& shape, const float* logits) {
  const auto rows = static_cast<std::size_t>(shape.rows);
  const std::vector<std::int32_t> top_k(rows, shape.top_k);
  const std::vector<float> top_p(rows, shape.top_p), min_p(rows, shape.min_p);
  const std::vector<std::int64_t> seed(rows, static_cast<std::int64_t>(kSeed));
  const std::vector<std::int64_t> position(rows, static_cast<std::int64_t>(kPosition));
  std::vector<std::int64_t> token(rows);
  const std::unique_ptr<KernelRunner> runner = MakeEmulatedRunner();
  LaunchRecorder recorder;
  if (shape.greedy) {
    GreedyLaunch g;
    g.logits = logits;
    g.rows = shape.rows;
    g.vocab = shape.vocab;
    g.pitch = shape.vocab;
    g.token = token.data();
    g.plan_rows = shape.plan_rows;
    runner->Run(g);
    return recorder.launches();
  }
  // Only the token: no out or probs rows, the draw on each row's survivors.
  SamplingFiltersLaunch l(logits, top_k.data(), top_p.data(), shape.min_p > 0.0f ? min_p.data() : nullptr, shape.rows,
                          shape.vocab, shape.vocab, shape.rules, nullptr, nullptr, shape.plan_rows);
  l.seed = seed.data();
  l.positions = position.data();
  l.token = token.data();
  runner->Run(l);
  return recorder.launches();
}

std::vector<LaunchCounters> CountGpuFastSampling(const SamplingCostShape& shape, const float* logits) {
  const auto rows = static_cast<std::size_t>(shape.rows);
  const std::vector<float> temperature(rows, shape.greedy ? 0.0f : 1.0f), top_p(rows, shape.top_p),
      min_p(rows, shape.min_p);
  const std::vector<std::int32_t> top_k(rows, shape.top_k);
  const std::vector<std::uint64_t> seed(rows, kSeed), position(rows, kPosition);
  std::vector<std::int64_t> token(rows);
  FastSamplingLaunch l;
  l.logits = logits;
  l.temperature = temperature.data();
  l.top_k = top_k.data();
  l.top_p = top_p.data();
  l.min_p = min_p.data();
  l.seed = seed.data();
  l.position = position.data();
  l.rows = shape.rows;
  l.vocab = shape.vocab;
  l.pitch = shape.vocab;
  l.token = token.data();
  l.plan_rows = shape.plan_rows;
  LaunchRecorder recorder;
  RunFastSamplingEmulatedDeviceBlock(l);
  return recorder.launches();
}

SamplingCostShape DeviceBenchShape(std::int64_t rows, std::int64_t vocab, bool min_p_on, DeviceBenchCase c) {
  SamplingCostShape s;
  s.rows = rows;
  s.vocab = vocab;
  s.top_k = kDeviceBenchTopK;
  s.top_p = kDeviceBenchTopP;
  s.min_p = min_p_on ? 0.05f : 0.0f;
  switch (c) {
    case DeviceBenchCase::kFlat: s.flat = true; break;
    case DeviceBenchCase::kTopKNearV: s.top_k = static_cast<std::int32_t>(vocab - 1); break;
    case DeviceBenchCase::kTopPNearOne:
      s.top_k = 0;
      s.top_p = 0.999f;
      break;
    case DeviceBenchCase::kMinPOne: s.min_p = 1.0f; break;
    case DeviceBenchCase::kGreedy: s.greedy = true; break;
    case DeviceBenchCase::kMinPAlone:
    case DeviceBenchCase::kFlatMinPAlone:
      s.top_k = 0;
      s.top_p = 1.0f;
      s.min_p = 1.0f;
      s.flat = c == DeviceBenchCase::kFlatMinPAlone;
      break;
    case DeviceBenchCase::kTypical: break;
  }
  return s;
}

std::vector<LaunchCounters> CountDeviceBench(bool deterministic, const SamplingCostShape& shape, const float* logits) {
  SamplingCostShape counted = shape;
  counted.rows = shape.rows < kDeviceBenchCountedRows ? shape.rows : kDeviceBenchCountedRows;
  counted.plan_rows = shape.rows;  // both paths slice each row as the whole batch would
  const auto launches = deterministic ? CountGpuSampling(counted, logits) : CountGpuFastSampling(counted, logits);
  std::vector<LaunchCounters> scaled;
  for (const auto& l : launches) scaled.push_back(ScaleRows(l, counted.rows, shape.rows));
  return scaled;
}

}  // namespace sampcheck::gpu
