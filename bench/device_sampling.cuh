// SPDX-License-Identifier: Apache-2.0
#pragma once
// The two sampcheck sampling modes on device-resident logits, for bench/device_sampling_bench.cu
// (bench/README.md "Device"), launched as the backends launch them but on device pointers,
// with every buffer allocated once per shape so that only kernels are timed:
// - deterministic: the canonical pipeline's random-row path, bit-exact with the reference
//   (docs/gpu.md): sampling_filters (top-k -> top-p -> min-p on the top-k survivors, canonical
//   softmax of the survivors, gpu/kernels/sampling_filters.cuh) with the seeded Gumbel-max draw
//   keyed by (seed, position, token id) done on the survivors by the same kernel
//   (gpu/kernels/sampling_filters_on_survivors.cuh; bit-exact with gpu/kernels/seeded_gumbel.cuh over
//   the filtered probabilities), the masked rows not written: one launch; when the batch has
//   fewer rows than the SMs, its split form over several blocks per row, each row's last block
//   running the per-row work (gpu/kernels/sampling_filters_slices.cuh), as SamplingFiltersLaunch
//   describes them for a caller that wants only the token.
// - fast: gpu-fast's fused kernel (gpu/fast/fast_sampling.cuh): temperature, filters and a
//   rejection draw, the row's own Philox stream; when the batch has fewer rows than the SMs,
//   its split form over several blocks per row, the last block of a row merging and drawing
//   (gpu/fast/fast_sampling_slices.cuh), one launch, as FastSamplingLaunch describes it.
// Temperature is 1 (the deterministic path then skips the temperature kernel, as a pipeline
// with t = 1 still runs it: the difference is one element-wise pass, reported in README).
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/block/device_block.cuh"
#include "gpu/fast/fast_sampling.cuh"
#include "gpu/fast/fast_sampling_slices.cuh"
#include "gpu/runners/kernel_entry.cuh"
#include "gpu/kernels/sampling_filters.cuh"
#include "gpu/kernels/sampling_filters_slices.cuh"

namespace sampcheck::bench {

enum class DeviceMode { kDeterministic, kFast };

template <class T>
class DeviceArray {
 public:
  DeviceArray(std::int64_t n, T fill) : n_(n) {
    const std::vector<T> host(static_cast<std::size_t>(n), fill);
    Check(cudaMalloc(reinterpret_cast<void**>(&p_), Bytes()), "cudaMalloc");
    Check(cudaMemcpy(p_, host.data(), Bytes(), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DeviceArray() { cudaFree(p_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  gpu::GlobalArray<T> View(const char* name) const { return gpu::GlobalArray<T>(p_, n_, name); }
  gpu::GlobalArray<const T> In(const char* name) const { return gpu::GlobalArray<const T>(p_, n_, name); }

 private:
  static void Check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string("device bench: ") + what + ": " + cudaGetErrorString(e));
  }
  std::size_t Bytes() const { return sizeof(T) * static_cast<std::size_t>(n_); }
  T* p_ = nullptr;
  std::int64_t n_;
};

class DeviceSampler {
 public:
  DeviceSampler(DeviceMode mode, std::int64_t rows, std::int64_t vocab, int top_k, float top_p, float min_p,
                std::uint64_t seed)
      : mode_(mode),
        rows_(rows),
        vocab_(vocab),
        has_min_p_(min_p > 0.0f),
        top_k_(rows, top_k),
        top_p_(rows, top_p),
        min_p_(rows, min_p),
        temperature_(rows, 1.0f),
        seed_(rows, static_cast<std::int64_t>(seed)),
        position_(rows, 7),
        seed_u64_(rows, seed),
        position_u64_(rows, 7),
        work_a_(rows * vocab, 0.0f),
        work_b_(rows * vocab, 0.0f),
        keys_(rows * 2 * vocab, 0),
        slice_budget_(gpu::FastSliceBudget(rows, vocab)),
        slices_(gpu::FastRowSlices(slice_budget_, vocab, false, top_k, gpu::FastFilterRule{})),
        filter_slices_(gpu::SamplingFiltersRowSlices(slice_budget_, vocab, top_k, gpu::FilterRules{})),
        partials_(slices_ > 1 || filter_slices_ > 1 ? rows * gpu::kRowSliceSlots : 1, 0),
        survivor_rows_(1, 0),
        tickets_(rows, 0u),
        token_(rows, -1) {}

  void Launch(const float* logits) {
    const unsigned grid = static_cast<unsigned>(rows_);
    if (mode_ == DeviceMode::kDeterministic) {
      using Filters = gpu::SamplingFiltersKernel;
      // The filters kernel reads its input through the same array type it writes (never
      // writing the input).
      using FilterSlices = gpu::SamplingFiltersSlicesKernel;
      const gpu::GlobalArray<float> in(const_cast<float*>(logits), rows_ * vocab_, "logits");
      // Every row alike (the same top-k): SamplingFiltersLaunch::Slices is filter_slices_.
      const unsigned split_grid = grid * static_cast<unsigned>(filter_slices_);
      if (filter_slices_ > 1) {
        gpu::KernelEntry<FilterSlices><<<split_grid, FilterSlices::kThreads>>>(
            in, work_a_.View("out"), work_b_.View("probs"), keys_.View("order_keys"), top_k_.In("top_k"), true,
            top_p_.In("top_p"), true, min_p_.In("min_p"), has_min_p_, vocab_, vocab_, gpu::FilterRules{},
            partials_.View("slices"), survivor_rows_.View("survivor_rows"), tickets_.View("tickets"), slice_budget_,
            filter_slices_, false, seed_.In("seed"), position_.In("positions"), token_.View("token"), true);
      } else {
        gpu::KernelEntry<Filters><<<grid, Filters::kThreads>>>(
            in, work_a_.View("out"), work_b_.View("probs"), keys_.View("order_keys"), top_k_.In("top_k"), true,
            top_p_.In("top_p"), true, min_p_.In("min_p"), has_min_p_, vocab_, vocab_, gpu::FilterRules{},
            partials_.View("slices"), survivor_rows_.View("survivor_rows"), std::int64_t{1}, false, seed_.In("seed"),
            position_.In("positions"), token_.View("token"), true);
      }
    } else {
      using Slices = gpu::FastSamplingSlicesKernel<gpu::kFastSamplingDeviceThreads>;
      using Fast = gpu::FastSamplingKernel<gpu::kFastSamplingDeviceThreads>;
      const gpu::GlobalArray<const float> in(logits, rows_ * vocab_, "logits");
      // Every row alike (temperature 1, the same top-k): FastSamplingLaunch::Slices is slices_.
      // Canonical rules: no race, q never read.
      if (slices_ > 1) {
        gpu::KernelEntry<Slices><<<grid * static_cast<unsigned>(slices_), Slices::kThreads>>>(
            in, temperature_.In("temperature"), top_k_.In("top_k"), top_p_.In("top_p"), min_p_.In("min_p"),
            seed_u64_.In("seed"), position_u64_.In("position"), gpu::GlobalArray<const float>(nullptr, 0, "q"),
            partials_.View("slices"), tickets_.View("tickets"), token_.View("token"), vocab_, vocab_, slice_budget_,
            slices_, gpu::FastSamplingOptions{});
      } else {
        gpu::KernelEntry<Fast><<<grid, Fast::kThreads>>>(
            in, temperature_.In("temperature"), top_k_.In("top_k"), top_p_.In("top_p"), min_p_.In("min_p"),
            seed_u64_.In("seed"), position_u64_.In("position"), gpu::GlobalArray<const float>(nullptr, 0, "q"),
            partials_.View("slices"), token_.View("token"), vocab_, vocab_, std::int64_t{1}, gpu::FastSamplingOptions{});
      }
    }
  }

 private:
  DeviceMode mode_;
  std::int64_t rows_, vocab_;
  bool has_min_p_;
  DeviceArray<std::int32_t> top_k_;
  DeviceArray<float> top_p_, min_p_, temperature_;
  DeviceArray<std::int64_t> seed_, position_;
  DeviceArray<std::uint64_t> seed_u64_, position_u64_;
  DeviceArray<float> work_a_, work_b_;
  DeviceArray<std::uint64_t> keys_;  // the filters' order-key scratch (gpu/block/radix_partition.cuh)
  std::int64_t slice_budget_, slices_;  // gpu-fast's slices per row (gpu/fast/fast_sampling_launch.h)
  std::int64_t filter_slices_;  // gpu's (gpu/kernels/sampling_filters_slices.cuh)
  DeviceArray<std::uint64_t> partials_;  // their partials (one mode at a time)
  DeviceArray<std::uint64_t> survivor_rows_;  // unused: no row writes after the filters (never read)
  DeviceArray<std::uint32_t> tickets_;  // the split rows' last-block counters (gpu/block/last_block.cuh), left zero
  DeviceArray<std::int64_t> token_;
};

}  // namespace sampcheck::bench
