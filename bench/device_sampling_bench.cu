// SPDX-License-Identifier: Apache-2.0
// Device speed of filter + draw from f32 logits (docs/gpu.md "Speed";
// bench/README.md "Device"): top-k 50, top-p 0.9, min-p off (0) or on (0.05), temperature 1,
// at B in {1, 64, 256} x V in {32000, 128256, 151936}; and, at 1 x 128256 and 64 x 128256,
// the worst cases the goals bound (docs/gpu.md "Cost model"): flat rows (every logit 0),
// top-k V - 1, top-k off with top-p 0.999, min-p 1 (argument `case`, 1 to 4) and min-p 1 with
// top-k and top-p off (case 6), on flat rows too (case 7); and greedy
// rows (temperature 0, case 5) at 64 and 256 rows of V = 128256 and 151936, whose goal is a
// fraction of the copy's bandwidth (the greedy stage's argmax kernel in both modes since
// 2026-12-06: gpu-fast launches it for a batch of greedy rows, docs/gpu.md "Greedy batches").
//
// Each shape is timed, in the same run, for:
//   BM_DeviceCopyBaseline   a device-to-device copy of the logits (the bandwidth yardstick);
//   BM_DeviceSortBaseline   the sort-based path: CUB segmented radix sort of (logit, id) pairs,
//                           then one warp per row scans the sorted head (top-k, top-p, min-p)
//                           and draws with cuRAND's Philox (typical and flat-row cases: its
//                           scan is written for top-k 50);
//   BM_DeviceDeterministic  sampcheck's deterministic kernels (bit-exact with the reference);
//   BM_DeviceFast           the gpu-fast kernel (distributional tier);
//   BM_DeviceStage          one stage kernel of the gpu backend (argument `stage`: 0 softmax,
//                           1 top_k 50, 2 top_p 0.9, 3 min_p 0.05; canonical rules) on the
//                           typical logits at 1, 64 and 256 rows of V = 128256: each reads the
//                           logits once or more and writes as many floats, as the copy does;
//   BM_DeviceFlashinferTopKFirst / BM_DeviceFlashinferJoint
//                           FlashInfer's own kernels, the anchor: the two chains its
//                           top_k_top_p_sampling_from_logits runs (plugins/flashinfer/
//                           flashinfer_chains.h), from the unmodified sources the build option
//                           SAMPCHECK_FLASHINFER_INCLUDE_DIR names; min-p off only (FlashInfer
//                           has no chain of top-k, top-p and min-p), top-k off as top_k = V.
//                           Without that option one benchmark reports, as an error, that the
//                           anchor was not built.
// Timing: CUDA events around each iteration (manual time), inputs resident on the device,
// outputs left there: what is timed is what a serving engine would launch. Counters: GB/s of
// logits read (B * V * 4 bytes per iteration); for the two sampcheck modes, the cost model's
// estimate of the same launches (gpu/cost/cost_model.h: model_us, row_passes, barriers), counted on
// the emulator over the first min(B, 4) rows of the same logits and scaled to B (rows are
// drawn alike; docs/gpu.md "Cost model"), and for the copy its estimate at the model's
// bandwidth. bench/device_report.py divides each mode by the copy and by the fast mode of the
// same shape, and each worst case by the typical case. SAMPCHECK_BENCH_TIMELINE=FILE adds, after
// each sampcheck mode's timed iterations, one launch with the device timeline on: the cycles of
// every block's barrier intervals (RecordTimeline below; bench/timeline_report.py).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "bench/device_sampling.h"
#include "gpu/block/device_timeline.h"
#include "gpu/cost/cost_model.h"
#include "gpu/cost/sampling_cost.h"
#if SAMPCHECK_BENCH_FLASHINFER
#include "plugins/flashinfer/flashinfer_chains.h"
#endif

namespace sampcheck::bench {
namespace {

constexpr int kTopK = gpu::kDeviceBenchTopK;
constexpr float kTopP = gpu::kDeviceBenchTopP;

// The `case` argument (gpu/cost/sampling_cost.h): the typical parameters, or one of the worst
// cases the goals bound.
constexpr std::int64_t CaseArg(gpu::DeviceBenchCase c) { return static_cast<std::int64_t>(c); }
constexpr std::int64_t kTypical = CaseArg(gpu::DeviceBenchCase::kTypical);
constexpr std::int64_t kFlat = CaseArg(gpu::DeviceBenchCase::kFlat);
constexpr std::int64_t kTopKNearV = CaseArg(gpu::DeviceBenchCase::kTopKNearV);
constexpr std::int64_t kTopPNearOne = CaseArg(gpu::DeviceBenchCase::kTopPNearOne);
constexpr std::int64_t kMinPOne = CaseArg(gpu::DeviceBenchCase::kMinPOne);
constexpr std::int64_t kMinPAlone = CaseArg(gpu::DeviceBenchCase::kMinPAlone);
constexpr std::int64_t kFlatMinPAlone = CaseArg(gpu::DeviceBenchCase::kFlatMinPAlone);
constexpr std::int64_t kGreedy = CaseArg(gpu::DeviceBenchCase::kGreedy);

// Shape and parameters of one benchmark: (B, V, min-p on, case).
gpu::SamplingCostShape ShapeOf(const benchmark::State& state) {
  return gpu::DeviceBenchShape(state.range(0), state.range(1), state.range(2) != 0,
                               static_cast<gpu::DeviceBenchCase>(state.range(3)));
}

void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// The constants of the device the benchmark runs on: the H200's fitted ones on an H200, else
// the H100's (gpu/cost/cost_model.h).
const gpu::DeviceConstants& BenchDevice() {
  static const gpu::DeviceConstants d = [] {
    cudaDeviceProp p{};
    const bool h200 = cudaGetDeviceProperties(&p, 0) == cudaSuccess && std::string(p.name).find("H200") != std::string::npos;
    return h200 ? gpu::DeviceConstants::H200() : gpu::DeviceConstants::H100Sxm();
  }();
  return d;
}

// Device-resident inputs of one shape, made once per benchmark (not timed): the cost model's
// logits (gpu/cost/sampling_cost.h: SplitMix64 in [-8, 8), or every logit 0 for flat rows), so the
// estimate counts the bytes timed here.
struct Inputs {
  std::int64_t rows, vocab;
  std::vector<float> host;
  float* logits = nullptr;
  explicit Inputs(const gpu::SamplingCostShape& shape)
      : rows(shape.rows), vocab(shape.vocab), host(gpu::SamplingCostLogits(shape)) {
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
  Inputs in(ShapeOf(state));
  float* out = nullptr;
  Check(cudaMalloc(&out, in.bytes()), "cudaMalloc copy");
  TimeDevice(state, in, [&] { cudaMemcpyAsync(out, in.logits, in.bytes(), cudaMemcpyDeviceToDevice); });
  cudaFree(out);
  // The copy at the model's constants: one launch, the bytes read and written at HBM speed.
  const auto& d = BenchDevice();
  state.counters["model_us"] = (d.launch_s + 2.0 * static_cast<double>(in.bytes()) / d.hbm_bytes_per_s) * 1e6;
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
  const gpu::SamplingCostShape shape = ShapeOf(state);
  Inputs in(shape);
  const float min_p = shape.min_p;
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

// The cost model's estimate of the mode's launches at this shape (gpu/cost/sampling_cost.h:
// CountDeviceBench; counted once per mode and shape). Returns the counted launches, or null
// when SAMPCHECK_BENCH_NO_MODEL is set: times only (the estimates take host seconds per shape,
// which a device lease pays for when comparing builds).
const std::vector<gpu::LaunchCounters>* ModelCounters(benchmark::State& state, DeviceMode mode,
                                                      const gpu::SamplingCostShape& shape,
                                                      const std::vector<float>& logits) {
  if (const char* off = std::getenv("SAMPCHECK_BENCH_NO_MODEL"); off != nullptr && *off != '\0') return nullptr;
  using Key = std::tuple<int, std::int64_t, std::int64_t, std::int32_t, float, float, bool, bool>;
  static std::map<Key, std::vector<gpu::LaunchCounters>> cache;
  const Key key{static_cast<int>(mode), shape.rows, shape.vocab, shape.top_k, shape.top_p, shape.min_p, shape.flat,
                shape.greedy};
  auto it = cache.find(key);
  if (it == cache.end()) {
    it = cache.emplace(key, gpu::CountDeviceBench(mode == DeviceMode::kDeterministic, shape, logits.data())).first;
  }
  const auto& launches = it->second;
  state.counters["model_us"] = gpu::Estimate(launches, BenchDevice()).total_s * 1e6;
  state.counters["row_passes"] = gpu::RowPasses(launches, shape.rows, shape.vocab);
  state.counters["barriers"] = static_cast<double>(gpu::BarriersPerRow(launches));
  return &launches;
}

// SAMPCHECK_BENCH_TIMELINE=FILE: one more launch with the device timeline on
// (gpu/block/device_timeline.h), appended to FILE as one JSON line: each block's cycles per
// barrier interval and ns, beside the emulator's counted intervals of the critical block of the
// same launches when the model ran (bench/timeline_report.py reads them side by side). Not
// timed: it follows the timed iterations.
void RecordTimeline(const benchmark::State& state, DeviceMode mode, DeviceSampler& sampler, const Inputs& in,
                    const std::vector<gpu::LaunchCounters>* launches) {
  const char* path = std::getenv("SAMPCHECK_BENCH_TIMELINE");
  if (path == nullptr || *path == '\0') return;
  if (!gpu::DeviceTimelineBuilt()) {
    throw std::runtime_error(
        "SAMPCHECK_BENCH_TIMELINE: these kernels have no device timeline (configure a build with "
        "-DSAMPCHECK_DEVICE_TIMELINE=ON; docs/gpu.md \"Device timeline\")");
  }
  // Every launch here runs at most max(rows, 132) blocks (gpu/block/row_slices.cuh: a row's
  // slices share the SMs); the margin costs 4 KiB a block.
  const std::int64_t blocks = in.rows + 1024;
  const std::size_t words = static_cast<std::size_t>(blocks) * gpu::kTimelineSlots;
  // Recording stops and the words are freed on every path: a later launch must not write into
  // freed memory.
  struct Recording {
    std::uint64_t* slots = nullptr;
    ~Recording() {
      gpu::DisableDeviceTimeline();
      cudaFree(slots);
    }
  } rec;
  Check(cudaMalloc(&rec.slots, words * sizeof(std::uint64_t)), "cudaMalloc timeline");
  Check(cudaMemset(rec.slots, 0, words * sizeof(std::uint64_t)), "zero timeline");
  Check(static_cast<cudaError_t>(gpu::EnableDeviceTimeline(rec.slots, blocks)), "enable timeline");
  sampler.Launch(in.logits);
  Check(cudaDeviceSynchronize(), "timeline launch");
  Check(static_cast<cudaError_t>(gpu::DisableDeviceTimeline()), "disable timeline");
  std::vector<std::uint64_t> host(words);
  Check(cudaMemcpy(host.data(), rec.slots, words * sizeof(std::uint64_t), cudaMemcpyDeviceToHost), "timeline copy");
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  // The benchmark's name as Google Benchmark prints it (State::name() is newer than Debian's).
  const std::string name = std::string(mode == DeviceMode::kDeterministic ? "BM_DeviceDeterministic" : "BM_DeviceFast") +
                           "/B:" + std::to_string(state.range(0)) + "/V:" + std::to_string(state.range(1)) +
                           "/minp:" + std::to_string(state.range(2)) + "/case:" + std::to_string(state.range(3));
  std::string line = "{\"name\": \"" + name + "\", \"mode\": \"" +
                     (mode == DeviceMode::kDeterministic ? "gpu" : "gpu-fast") + "\", \"rows\": " +
                     std::to_string(in.rows) + ", \"vocab\": " + std::to_string(in.vocab) +
                     ", \"clock_khz\": " + std::to_string(clock_khz) + ", \"model\": ";
  if (launches == nullptr) {
    line += "null";
  } else {
    line += "[";
    for (std::size_t l = 0; l < launches->size(); ++l) {
      const gpu::LaunchCounters& c = (*launches)[l];
      line += std::string(l ? ", " : "") + "{\"kernel\": \"" + c.kernel + "\", \"critical_intervals\": [";
      for (std::size_t i = 0; i < c.critical_intervals.size(); ++i) {
        line += (i ? ", " : "") + std::to_string(c.critical_intervals[i]);
      }
      line += "]}";
    }
    line += "]";
  }
  line += ", \"blocks\": [";
  bool first = true;
  const std::vector<gpu::BlockTimeline> decoded = gpu::DecodeTimeline(host, blocks);
  for (std::size_t b = 0; b < decoded.size(); ++b) {
    const gpu::BlockTimeline& t = decoded[b];
    if (t.cycles.empty()) continue;
    line += std::string(first ? "" : ", ") + "{\"block\": " + std::to_string(b) + ", \"ns\": " + std::to_string(t.ns) +
            ", \"truncated\": " + (t.truncated ? "true" : "false") + ", \"cycles\": [";
    for (std::size_t i = 0; i < t.cycles.size(); ++i) line += (i ? ", " : "") + std::to_string(t.cycles[i]);
    line += "]}";
    first = false;
  }
  line += "]}\n";
  std::FILE* f = std::fopen(path, "a");
  if (f == nullptr) throw std::runtime_error(std::string("SAMPCHECK_BENCH_TIMELINE: cannot open ") + path);
  const bool ok = std::fputs(line.c_str(), f) >= 0;
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error(std::string("SAMPCHECK_BENCH_TIMELINE: cannot write ") + path);
}

// The two sampcheck modes, through bench/device_sampling.h (device pointers in and out).
void TimeMode(benchmark::State& state, DeviceMode mode) {
  const gpu::SamplingCostShape shape = ShapeOf(state);
  Inputs in(shape);
  DeviceSampler sampler(mode, in.rows, in.vocab, shape.top_k, shape.top_p, shape.min_p, 42, shape.greedy);
  TimeDevice(state, in, [&] { sampler.Launch(in.logits); });
  RecordTimeline(state, mode, sampler, in, ModelCounters(state, mode, shape, in.host));
}

void BM_DeviceDeterministic(benchmark::State& state) { TimeMode(state, DeviceMode::kDeterministic); }

// A stage kernel through the gpu library's resident entry (gpu/runners/resident_sampling.h:
// LaunchResidentStage), its output on the device.
void BM_DeviceStage(benchmark::State& state) {
  const std::int64_t rows = state.range(0), vocab = state.range(1);
  const auto stage = static_cast<gpu::ResidentStage>(state.range(2));
  Inputs in(gpu::DeviceBenchShape(rows, vocab, false, gpu::DeviceBenchCase::kTypical));
  DeviceArray<std::int32_t> top_k(rows, kTopK);
  DeviceArray<float> p(rows, stage == gpu::ResidentStage::kMinP ? 0.05f : kTopP);
  float* out = nullptr;
  Check(cudaMalloc(&out, in.bytes()), "cudaMalloc stage out");
  gpu::ResidentWorkspace workspace;
  gpu::ResidentStageRows s;
  s.stage = stage;
  s.rows = rows;
  s.vocab = vocab;
  s.logits = in.logits;
  s.top_k = top_k.Get();
  s.p = p.Get();
  s.out = out;
  TimeDevice(state, in,
             [&] { Check(static_cast<cudaError_t>(gpu::LaunchResidentStage(s, workspace)), "stage launch"); });
  cudaFree(out);
}
void BM_DeviceFast(benchmark::State& state) { TimeMode(state, DeviceMode::kFast); }

#if SAMPCHECK_BENCH_FLASHINFER
// FlashInfer's chains on the same logits, with per-row parameter arrays as an engine passes
// them; deterministic=true (the default of every FlashInfer Python function).
template <class Chain>
void TimeFlashinfer(benchmark::State& state, Chain chain) {
  const gpu::SamplingCostShape shape = ShapeOf(state);
  Inputs in(shape);
  const auto rows = static_cast<std::uint32_t>(in.rows);
  const auto vocab = static_cast<std::uint32_t>(in.vocab);
  const std::vector<int> top_k(rows, shape.top_k > 0 ? shape.top_k : static_cast<int>(vocab));
  const std::vector<float> top_p(rows, shape.top_p);
  int* d_top_k = nullptr;
  float* d_top_p = nullptr;
  flashinfer_plugin::ChainBuffers buffers;
  const std::size_t cells = static_cast<std::size_t>(in.rows * in.vocab);
  Check(cudaMalloc(&d_top_k, rows * sizeof(int)), "cudaMalloc top_k");
  Check(cudaMalloc(&d_top_p, rows * sizeof(float)), "cudaMalloc top_p");
  Check(cudaMemcpy(d_top_k, top_k.data(), rows * sizeof(int), cudaMemcpyHostToDevice), "upload top_k");
  Check(cudaMemcpy(d_top_p, top_p.data(), rows * sizeof(float), cudaMemcpyHostToDevice), "upload top_p");
  Check(cudaMalloc(&buffers.masked_logits, cells * sizeof(float)), "cudaMalloc masked");
  Check(cudaMalloc(&buffers.probs, cells * sizeof(float)), "cudaMalloc probs");
  Check(cudaMalloc(&buffers.token, rows * sizeof(int)), "cudaMalloc token");
  Check(cudaMalloc(&buffers.valid, rows * sizeof(bool)), "cudaMalloc valid");
  Check(cudaMalloc(&buffers.row_states, flashinfer_plugin::kChainScratchBytes), "cudaMalloc row states");
  Check(cudaMemset(buffers.row_states, 0, flashinfer_plugin::kChainScratchBytes), "cudaMemset row states");
  Check(cudaMalloc(&buffers.workspace, flashinfer_plugin::kChainScratchBytes), "cudaMalloc workspace");
  int device = 0, major = 0;
  Check(cudaGetDevice(&device), "cudaGetDevice");
  Check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "compute capability");
  buffers.enable_pdl = major >= 9;
  std::uint64_t offset = 0;
  TimeDevice(state, in, [&] {
    Check(chain(in.logits, d_top_k, d_top_p, rows, vocab, true, 42, offset, buffers), "FlashInfer chain");
    offset += 4;  // a fresh Philox offset per call, as sampling.py advances it
  });
  for (void* p : {static_cast<void*>(d_top_k), static_cast<void*>(d_top_p), static_cast<void*>(buffers.masked_logits),
                  static_cast<void*>(buffers.probs), static_cast<void*>(buffers.token), static_cast<void*>(buffers.valid),
                  buffers.row_states, buffers.workspace}) {
    cudaFree(p);
  }
}

void BM_DeviceFlashinferTopKFirst(benchmark::State& state) { TimeFlashinfer(state, flashinfer_plugin::TopKFirstChain); }
void BM_DeviceFlashinferJoint(benchmark::State& state) { TimeFlashinfer(state, flashinfer_plugin::JointChain); }
#else
void BM_DeviceFlashinferMissing(benchmark::State& state) {
  for (auto _ : state) {
  }
  state.SkipWithError("FlashInfer anchor not built: configure with -DSAMPCHECK_FLASHINFER_INCLUDE_DIR=<FlashInfer include/> "
                      "(ci/device.sh bench does when the sources are carried)");
}
#endif

// The typical shapes (min-p on and off when min_p_both), then, when `worst`, the worst cases at
// 1 and 64 rows of V = 128256 (only the flat-row one when flat_only), then, when `greedy`, the
// greedy rows.
void AddShapes(benchmark::internal::Benchmark* b, bool min_p_both, bool worst, bool flat_only, bool greedy = false) {
  for (std::int64_t rows : {1, 64, 256}) {
    for (std::int64_t vocab : {32000, 128256, 151936}) {
      b->Args({rows, vocab, 0, kTypical});
      if (min_p_both) b->Args({rows, vocab, 1, kTypical});
    }
  }
  if (worst) {
    for (std::int64_t rows : {1, 64}) {
      for (std::int64_t c : {kFlat, kTopKNearV, kTopPNearOne, kMinPOne, kMinPAlone, kFlatMinPAlone}) {
        if (!flat_only || c == kFlat) b->Args({rows, 128256, 0, c});
      }
    }
  }
  if (greedy) {
    for (std::int64_t rows : {64, 256}) {
      for (std::int64_t vocab : {128256, 151936}) b->Args({rows, vocab, 0, kGreedy});
    }
  }
  b->ArgNames({"B", "V", "minp", "case"})->UseManualTime()->Unit(benchmark::kMicrosecond);
}

void Shapes(benchmark::internal::Benchmark* b) { AddShapes(b, true, true, false, true); }
void StageShapes(benchmark::internal::Benchmark* b) {
  for (std::int64_t rows : {1, 64, 256}) {
    for (std::int64_t stage = 0; stage < 4; ++stage) b->Args({rows, 128256, stage});
  }
  b->ArgNames({"B", "V", "stage"})->UseManualTime()->Unit(benchmark::kMicrosecond);
}
void SortShapes(benchmark::internal::Benchmark* b) { AddShapes(b, true, true, true); }
void CopyShapes(benchmark::internal::Benchmark* b) { AddShapes(b, false, false, false); }

BENCHMARK(BM_DeviceCopyBaseline)->Apply(CopyShapes);
BENCHMARK(BM_DeviceSortBaseline)->Apply(SortShapes);
BENCHMARK(BM_DeviceDeterministic)->Apply(Shapes);
BENCHMARK(BM_DeviceFast)->Apply(Shapes);
BENCHMARK(BM_DeviceStage)->Apply(StageShapes);
#if SAMPCHECK_BENCH_FLASHINFER
// FlashInfer: min-p off, every worst case but min-p 1 (defined only where it is used: an
// unused function is an nvcc warning in the build without FlashInfer).
void FlashinferShapes(benchmark::internal::Benchmark* b) {
  AddShapes(b, false, false, false);
  for (std::int64_t rows : {1, 64}) {
    for (std::int64_t c : {kFlat, kTopKNearV, kTopPNearOne}) b->Args({rows, 128256, 0, c});
  }
}

BENCHMARK(BM_DeviceFlashinferTopKFirst)->Apply(FlashinferShapes);
BENCHMARK(BM_DeviceFlashinferJoint)->Apply(FlashinferShapes);
#else
BENCHMARK(BM_DeviceFlashinferMissing);
#endif

}  // namespace
}  // namespace sampcheck::bench

BENCHMARK_MAIN();
