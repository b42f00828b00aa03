// SPDX-License-Identifier: Apache-2.0
#pragma once
// The two sampcheck sampling modes on device-resident logits, for bench/device_sampling_bench.cu
// (bench/README.md "Device"): every buffer allocated once per shape (the kernels' scratch by the
// first launch) so that only kernels are timed, launched by the gpu library's resident entry
// (gpu/runners/resident_sampling.h: the deterministic path bit-exact with the reference, or
// gpu-fast's fused kernel), so this benchmark compiles no kernel of its own.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/runners/resident_sampling.h"

namespace sampcheck::bench {

using DeviceMode = gpu::ResidentMode;

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
  T* Get() const { return p_; }

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
  // greedy: every row's temperature 0 (gpu/runners/resident_sampling.h), else 1.
  DeviceSampler(DeviceMode mode, std::int64_t rows, std::int64_t vocab, int top_k, float top_p, float min_p,
                std::uint64_t seed, bool greedy = false)
      : top_k_(rows, top_k),
        top_p_(rows, top_p),
        min_p_(rows, min_p),
        temperature_(rows, greedy ? 0.0f : 1.0f),
        seed_(rows, static_cast<std::int64_t>(seed)),
        position_(rows, 7),
        seed_u64_(rows, seed),
        position_u64_(rows, 7),
        token_(rows, -1) {
    s_.mode = mode;
    s_.rows = rows;
    s_.vocab = vocab;
    s_.top_k = top_k;
    s_.has_min_p = min_p > 0.0f;
    s_.greedy = greedy;
    s_.top_k_rows = top_k_.Get();
    s_.top_p = top_p_.Get();
    s_.min_p = min_p_.Get();
    s_.temperature = temperature_.Get();
    s_.seed = seed_.Get();
    s_.positions = position_.Get();
    s_.seed_u64 = seed_u64_.Get();
    s_.position_u64 = position_u64_.Get();
    s_.token = token_.Get();
  }

  void Launch(const float* logits) {
    s_.logits = logits;
    const int e = gpu::LaunchResidentSampling(s_, workspace_);
    if (e != 0) {
      throw std::runtime_error(std::string("device bench: kernel launch: ") +
                               cudaGetErrorString(static_cast<cudaError_t>(e)));
    }
  }

 private:
  DeviceArray<std::int32_t> top_k_;
  DeviceArray<float> top_p_, min_p_, temperature_;
  DeviceArray<std::int64_t> seed_, position_;
  DeviceArray<std::uint64_t> seed_u64_, position_u64_;
  DeviceArray<std::int64_t> token_;
  gpu::ResidentSampling s_;
  gpu::ResidentWorkspace workspace_;  // the kernels' scratch, allocated by the first (warm-up) launch
};

}  // namespace sampcheck::bench
