// SPDX-License-Identifier: Apache-2.0
// Device speed of filter + draw from f32 logits (docs/gpu.md "Speed";
// bench/README.md "Device"): top-k 50, top-p 0.9, min-p off (0) or on (0.05), temperature 1,
// at B in {1, 64, 256} x V in {32000, 128256, 151936}.
//
// Each shape is timed, in the same run, for:
//   BM_DeviceCopyBaseline   a device-to-device copy of the logits (the bandwidth yardstick);
//   BM_DeviceSortBaseline   the sort-based path: CUB segmented radix sort of (logit, id) pairs,
//                           then one warp per row scans the sorted head (top-k, top-p, min-p)
//                           and draws with cuRAND's Philox;
//   BM_DeviceDeterministic  sampcheck's deterministic kernels (bit-exact with the reference);
//   BM_DeviceFast           the gpu-fast kernel (distributional tier).
// Timing: CUDA events around each iteration (manual time), inputs resident on the device,
// outputs left there: what is timed is what a serving engine would launch. Counters: GB/s of
// logits read (B * V * 4 bytes per iteration). bench/device_report.py divides each mode by the
// copy and by the fast mode of the same shape.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstdint>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/device_sampling.cuh"

namespace sampcheck::bench {
namespace {

constexpr int kTopK = 50;
constexpr float kTopP = 0.9f;

void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Device-resident inputs of one shape, made once per benchmark (not timed).
struct Inputs {
  std::int64_t rows, vocab;
  float* logits = nullptr;
  Inputs(std::int64_t b, std::int64_t v) : rows(b), vocab(v) {
    // SplitMix64-driven logits in [-8, 8): the same bytes on every run and device.
    std::vector<float> host(static_cast<std::size_t>(b * v));
    std::uint64_t s = 0x5eed0001;
    for (float& x : host) {
      s += 0x9e3779b97f4a7c15ull;
      std::uint64_t z = s;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      x = -8.0f + 16.0f * static_cast<float>(z >> 40) * 0x1.0p-24f;
    }
    Check(cudaMalloc(&logits, host.size() * sizeof(float)), "cudaMalloc logits");
    Check(cudaMemcpy(logits, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice), "upload");
  }
  ~Inputs() { cudaFree(logits); }
  std::size_t bytes() const { return static_cast<std::size_t>(rows * vocab) * sizeof(float); }
};

// Times `launch` with CUDA events, one iteration per benchmark iteration.
template <class Launch>
void TimeDevice(benchmark::State& state, const Inputs& in, Launch&& launch) {
  cudaEvent_t start, stop;
  Check(cudaEventCreate(&start), "event");
  Check(cudaEventCreate(&stop), "event");
  launch();  // warm-up (first-launch and allocation costs)
  Check(cudaDeviceSynchronize(), "warm-up");
  for (auto _ : state) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    Check(cudaEventSynchronize(stop), "iteration");
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(static_cast<double>(ms) * 1e-3);
  }
  Check(cudaGetLastError(), "launch");
  state.counters["GBps_logits"] = benchmark::Counter(static_cast<double>(in.bytes()) * state.iterations(),
                                                     benchmark::Counter::kIsRate);
  state.counters["B"] = static_cast<double>(in.rows);
  state.counters["V"] = static_cast<double>(in.vocab);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

void BM_DeviceCopyBaseline(benchmark::State& state) {
  Inputs in(state.range(0), state.range(1));
  float* out = nullptr;
  Check(cudaMalloc(&out, in.bytes()), "cudaMalloc copy");
  TimeDevice(state, in, [&] { cudaMemcpyAsync(out, in.logits, in.bytes(), cudaMemcpyDeviceToDevice); });
  cudaFree(out);
}

// After the descending sort: one warp per row reads the first kTopK sorted logits (the top-k
// survivors), exponentiates against the row maximum, applies top-p on the renormalised top-k
// mass (vLLM's order: top-k then top-p) and min-p against the maximum, then draws u * mass.
__global__ void ScanAndDraw(const float* sorted, const std::int32_t* ids, std::int64_t vocab, float min_p,
                            std::uint64_t seed, std::int64_t* token) {
  const std::int64_t row = blockIdx.x;
  const int lane = threadIdx.x;
  const float* x = sorted + row * vocab;
  const float m = x[0];
  const int k = vocab < kTopK ? static_cast<int>(vocab) : kTopK;
  // kTopK <= 64: two entries per lane.
  float e0 = lane < k ? __expf(x[lane] - m) : 0.0f;
  float e1 = lane + 32 < k ? __expf(x[lane + 32] - m) : 0.0f;
  if (min_p > 0.0f) {  // min-p keeps p_i >= min_p * p_max, p_max's weight is exp(0) = 1
    if (e0 < min_p) e0 = 0.0f;
    if (e1 < min_p) e1 = 0.0f;
  }
  // Inclusive prefix sums over the 64 slots (lane's first slot, then the second half).
  float c0 = e0, c1 = e1;
  for (int d = 1; d < 32; d <<= 1) {
    const float a = __shfl_up_sync(0xffffffffu, c0, d);
    const float b = __shfl_up_sync(0xffffffffu, c1, d);
    if (lane >= d) {
      c0 += a;
      c1 += b;
    }
  }
  const float half = __shfl_sync(0xffffffffu, c0, 31);
  c1 += half;
  const float total = __shfl_sync(0xffffffffu, c1, 31);
  // top-p: keep the shortest prefix whose mass reaches p * total (its last entry included).
  const unsigned keep0 = __ballot_sync(0xffffffffu, c0 - e0 < kTopP * total && e0 > 0.0f);
  const unsigned keep1 = __ballot_sync(0xffffffffu, c1 - e1 < kTopP * total && e1 > 0.0f);
  const float kept0 = (keep0 >> lane) & 1u ? e0 : 0.0f;
  const float kept1 = (keep1 >> lane) & 1u ? e1 : 0.0f;
  float s0 = kept0, s1 = kept1;
  for (int d = 1; d < 32; d <<= 1) {
    const float a = __shfl_up_sync(0xffffffffu, s0, d);
    const float b = __shfl_up_sync(0xffffffffu, s1, d);
    if (lane >= d) {
      s0 += a;
      s1 += b;
    }
  }
  s1 += __shfl_sync(0xffffffffu, s0, 31);
  const float mass = __shfl_sync(0xffffffffu, s1, 31);
  curandStatePhilox4_32_10_t rng;
  curand_init(seed, static_cast<unsigned long long>(row), 0, &rng);
  const float u = curand_uniform(&rng) * mass;
  const unsigned hit0 = __ballot_sync(0xffffffffu, kept0 > 0.0f && s0 >= u);
  const unsigned hit1 = __ballot_sync(0xffffffffu, kept1 > 0.0f && s1 >= u);
  if (lane == 0) {
    const int slot = hit0 ? __ffs(hit0) - 1 : (hit1 ? 32 + __ffs(hit1) - 1 : 0);
    token[row] = ids[row * vocab + slot];
  }
}

__global__ void Iota(std::int32_t* ids, std::int64_t vocab, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    ids[i] = static_cast<std::int32_t>(i % vocab);
  }
}

void BM_DeviceSortBaseline(benchmark::State& state) {
  Inputs in(state.range(0), state.range(1));
  const float min_p = state.range(2) ? 0.05f : 0.0f;
  const std::int64_t n = in.rows * in.vocab;
  float* keys = nullptr;
  std::int32_t *ids_in = nullptr, *ids = nullptr, *offsets = nullptr;
  std::int64_t* token = nullptr;
  Check(cudaMalloc(&keys, in.bytes()), "cudaMalloc keys");
  Check(cudaMalloc(&ids_in, n * sizeof(std::int32_t)), "cudaMalloc ids");
  Check(cudaMalloc(&ids, n * sizeof(std::int32_t)), "cudaMalloc ids");
  Check(cudaMalloc(&token, in.rows * sizeof(std::int64_t)), "cudaMalloc token");
  std::vector<std::int32_t> host_offsets(static_cast<std::size_t>(in.rows + 1));
  for (std::int64_t b = 0; b <= in.rows; ++b) host_offsets[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(b * in.vocab);
  Check(cudaMalloc(&offsets, host_offsets.size() * sizeof(std::int32_t)), "cudaMalloc offsets");
  Check(cudaMemcpy(offsets, host_offsets.data(), host_offsets.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice),
        "offsets");
  std::size_t temp_bytes = 0;
  cub::DeviceSegmentedRadixSort::SortPairsDescending(nullptr, temp_bytes, in.logits, keys, ids_in, ids,
                                                      static_cast<int>(n), static_cast<int>(in.rows), offsets,
                                                      offsets + 1);
  void* temp = nullptr;
  Check(cudaMalloc(&temp, temp_bytes), "cudaMalloc cub temp");
  TimeDevice(state, in, [&] {
    Iota<<<1024, 256>>>(ids_in, in.vocab, n);
    cub::DeviceSegmentedRadixSort::SortPairsDescending(temp, temp_bytes, in.logits, keys, ids_in, ids,
                                                        static_cast<int>(n), static_cast<int>(in.rows), offsets,
                                                        offsets + 1);
    ScanAndDraw<<<static_cast<unsigned>(in.rows), 32>>>(keys, ids, in.vocab, min_p, 42, token);
  });
  cudaFree(temp);
  cudaFree(offsets);
  cudaFree(token);
  cudaFree(ids);
  cudaFree(ids_in);
  cudaFree(keys);
}

// The two sampcheck modes, through bench/device_sampling.cuh (device pointers in and out).
void TimeMode(benchmark::State& state, DeviceMode mode) {
  Inputs in(state.range(0), state.range(1));
  const float min_p = state.range(2) ? 0.05f : 0.0f;
  DeviceSampler sampler(mode, in.rows, in.vocab, kTopK, kTopP, min_p, 42);
  TimeDevice(state, in, [&] { sampler.Launch(in.logits); });
}

void BM_DeviceDeterministic(benchmark::State& state) { TimeMode(state, DeviceMode::kDeterministic); }
void BM_DeviceFast(benchmark::State& state) { TimeMode(state, DeviceMode::kFast); }

void Shapes(benchmark::internal::Benchmark* b) {
  for (std::int64_t rows : {1, 64, 256}) {
    for (std::int64_t vocab : {32000, 128256, 151936}) {
      for (std::int64_t min_p : {0, 1}) b->Args({rows, vocab, min_p});
    }
  }
  b->ArgNames({"B", "V", "minp"})->UseManualTime()->Unit(benchmark::kMicrosecond);
}

void CopyShapes(benchmark::internal::Benchmark* b) {
  for (std::int64_t rows : {1, 64, 256}) {
    for (std::int64_t vocab : {32000, 128256, 151936}) b->Args({rows, vocab, 0});
  }
  b->ArgNames({"B", "V", "minp"})->UseManualTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_DeviceCopyBaseline)->Apply(CopyShapes);
BENCHMARK(BM_DeviceSortBaseline)->Apply(Shapes);
BENCHMARK(BM_DeviceDeterministic)->Apply(Shapes);
BENCHMARK(BM_DeviceFast)->Apply(Shapes);

}  // namespace
}  // namespace sampcheck::bench

BENCHMARK_MAIN();
