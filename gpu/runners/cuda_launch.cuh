// SPDX-License-Identifier: Apache-2.0
#pragma once
// The CUDA device's launcher (docs/gpu.md "Adding a kernel"): runs any launch description
// (gpu/runners/kernel_launches.h) on the current device. Each In and InOut array is copied to a fresh
// device buffer, each Out and InOut array copied back after the launch, scratch arrays stay on
// the device (ticket arrays zeroed first); every buffer is freed on every path. The kernel runs through its one __global__
// entry (gpu/runners/kernel_entry.cuh). Every CUDA call's status is kept (the first failure wins) and
// Run turns a failure into std::runtime_error naming the runner, kernel, call and line
// (docs/contributing.md "Errors"); callers check for a device first (RequireCudaDevice).

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu/block/block_model.h"
#include "gpu/runners/kernel_entry.cuh"

namespace sampcheck::gpu {

// Throws "no CUDA device: ..." when none is present or the runtime cannot count them; scripts
// and tests recognise that prefix as the skip reason.
inline void RequireCudaDevice() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string("no CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorName(e) + " (" +
                             cudaGetErrorString(e) + ")");
  }
  if (count == 0) throw std::runtime_error("no CUDA device: cudaGetDeviceCount found 0 devices");
}

class CudaLaunch {
 public:
  explicit CudaLaunch(std::string runner) : runner_(std::move(runner)) {}
  ~CudaLaunch() {
    for (void* p : allocations_) cudaFree(p);
  }
  CudaLaunch(const CudaLaunch&) = delete;
  CudaLaunch& operator=(const CudaLaunch&) = delete;

  template <class T>
  GlobalArray<const T> In(const T* host, std::int64_t n, const char* name) {
    const std::int64_t m = host == nullptr ? 0 : n;
    return GlobalArray<const T>(Upload(host, m), m, name);
  }
  template <class T>
  GlobalArray<T> Out(T* host, std::int64_t n, const char* name) {
    const std::int64_t m = host == nullptr ? 0 : n;
    return GlobalArray<T>(CopyBackTo(host, Allocate<T>(m), m), m, name);
  }
  template <class T>
  GlobalArray<T> InAsOut(const T* host, std::int64_t n, const char* name) {
    const std::int64_t m = host == nullptr ? 0 : n;
    return GlobalArray<T>(Upload(host, m), m, name);
  }
  template <class T>
  GlobalArray<T> InOut(T* host, std::int64_t n, const char* name) {
    const std::int64_t m = host == nullptr ? 0 : n;
    return GlobalArray<T>(CopyBackTo(host, Upload<T>(host, m), m), m, name);
  }
  template <class T>
  GlobalArray<T> Scratch(std::int64_t n, const char* name) {
    return GlobalArray<T>(Allocate<T>(n), n, name);
  }
  // The last-block protocol's counters (gpu/block/last_block.cuh): zeroed once here, left zero
  // by every launch's last blocks.
  GlobalArray<std::uint32_t> Tickets(std::int64_t n, const char* name) {
    std::uint32_t* p = Allocate<std::uint32_t>(n);
    if (p != nullptr) Check(cudaMemset(p, 0, Bytes<std::uint32_t>(n)), "cudaMemset(tickets)", __LINE__);
    return GlobalArray<std::uint32_t>(p, n, name);
  }

  template <class Kernel, class... Args>
  void Run(std::int64_t grid, Args... args) {
    if (status_.error == cudaSuccess && grid > 0) {
      KernelEntry<Kernel, Args...><<<static_cast<unsigned>(grid), Kernel::kThreads>>>(args...);
      Check(cudaGetLastError(), "kernel launch", __LINE__);
      Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize()", __LINE__);
    }
    for (const CopyBack& c : copy_back_) {
      if (status_.error == cudaSuccess)
        Check(cudaMemcpy(c.host, c.device, c.bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(out)", __LINE__);
    }
    if (status_.error != cudaSuccess) {
      throw std::runtime_error(runner_ + ": kernel '" + Kernel::kName + "': " + status_.what +
                               " failed at " __FILE__ ":" + std::to_string(status_.line) + ": " +
                               cudaGetErrorName(status_.error) + " (" + cudaGetErrorString(status_.error) + ")");
    }
  }

 private:
  struct Status {
    cudaError_t error = cudaSuccess;
    const char* what = "";
    int line = 0;
  };
  struct CopyBack {
    void* host;
    const void* device;
    std::size_t bytes;
  };

  template <class T>
  static std::size_t Bytes(std::int64_t n) {
    return sizeof(T) * static_cast<std::size_t>(n);
  }
  template <class T>
  T* Allocate(std::int64_t n) {
    if (n <= 0 || status_.error != cudaSuccess) return nullptr;
    void* p = nullptr;
    Check(cudaMalloc(&p, Bytes<T>(n)), "cudaMalloc", __LINE__);
    if (p != nullptr) allocations_.push_back(p);
    return static_cast<T*>(p);
  }
  template <class T>
  T* Upload(const T* host, std::int64_t n) {
    T* device = Allocate<T>(n);
    if (device != nullptr)
      Check(cudaMemcpy(device, host, Bytes<T>(n), cudaMemcpyHostToDevice), "cudaMemcpy(in)", __LINE__);
    return device;
  }
  template <class T>
  T* CopyBackTo(T* host, T* device, std::int64_t n) {
    if (device != nullptr) copy_back_.push_back({host, device, Bytes<T>(n)});
    return device;
  }
  void Check(cudaError_t e, const char* what, int line) {
    if (e != cudaSuccess && status_.error == cudaSuccess) status_ = Status{e, what, line};
  }

  std::string runner_;
  Status status_;
  std::vector<void*> allocations_;
  std::vector<CopyBack> copy_back_;
};

// Runs one launch description on the device.
template <class Description>
void RunOnCudaDevice(const Description& description, const char* runner = "gpu") {
  RequireCudaDevice();
  CudaLaunch launch(runner);
  description.Describe(launch);
}

}  // namespace sampcheck::gpu
