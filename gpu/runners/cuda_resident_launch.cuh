// SPDX-License-Identifier: Apache-2.0
#pragma once
// A launcher (docs/gpu.md "Adding a kernel") that runs a launch description
// (gpu/runners/kernel_launches.h) on arrays already on the device: the device-resident entry's
// (gpu/runners/resident_sampling.h). Where the copying launcher (gpu/runners/cuda_launch.cuh)
// uploads each In array and copies each Out array back, this one takes the description's
// pointers as device pointers; its scratch and ticket arrays come from the caller's
// ResidentWorkspace; a launch is queued on the default stream with no synchronisation. The
// first CUDA error is kept and the launches after it are skipped.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/block/block_model.h"
#include "gpu/runners/kernel_entry.cuh"
#include "gpu/runners/resident_sampling.h"

namespace sampcheck::gpu {

class ResidentLaunch {
 public:
  explicit ResidentLaunch(ResidentWorkspace& workspace) : workspace_(workspace) {}

  template <class T>
  GlobalArray<const T> In(const T* device, std::int64_t n, const char* name) {
    return GlobalArray<const T>(device, device == nullptr ? 0 : n, name);
  }
  template <class T>
  GlobalArray<T> Out(T* device, std::int64_t n, const char* name) {
    return GlobalArray<T>(device, device == nullptr ? 0 : n, name);
  }
  // The filters read their input through the array type they write (never writing the input).
  template <class T>
  GlobalArray<T> InAsOut(const T* device, std::int64_t n, const char* name) {
    return Out(const_cast<T*>(device), n, name);
  }
  template <class T>
  GlobalArray<T> InOut(T* device, std::int64_t n, const char* name) {
    return Out(device, n, name);
  }
  template <class T>
  GlobalArray<T> Scratch(std::int64_t n, const char* name) {
    return GlobalArray<T>(static_cast<T*>(Buffer(workspace_.scratch_, scratch_used_++, Bytes<T>(n), false)), n, name);
  }
  GlobalArray<std::uint32_t> Tickets(std::int64_t n, const char* name) {
    return GlobalArray<std::uint32_t>(
        static_cast<std::uint32_t*>(Buffer(workspace_.tickets_, tickets_used_++, Bytes<std::uint32_t>(n), true)), n,
        name);
  }

  template <class Kernel, class... Args>
  void Run(std::int64_t grid, Args... args) {
    if (error_ != cudaSuccess || grid <= 0) return;
    KernelEntry<Kernel, Args...><<<static_cast<unsigned>(grid), Kernel::kThreads>>>(args...);
    Check(cudaGetLastError());
  }

  cudaError_t Error() const { return error_; }

 private:
  template <class T>
  static std::size_t Bytes(std::int64_t n) {
    return n > 0 ? sizeof(T) * static_cast<std::size_t>(n) : 0;
  }
  // Buffer `index` of `list`, reallocated when it is smaller than `bytes` (zeroed when `zero`);
  // null for an empty array or after an error.
  void* Buffer(std::vector<ResidentWorkspace::Buffer>& list, std::size_t index, std::size_t bytes, bool zero) {
    if (bytes == 0 || error_ != cudaSuccess) return nullptr;
    if (list.size() <= index) list.resize(index + 1);
    ResidentWorkspace::Buffer& b = list[index];
    if (b.bytes < bytes) {
      Check(cudaFree(b.device));
      b = {};
      void* p = nullptr;
      Check(cudaMalloc(&p, bytes));
      if (error_ != cudaSuccess) return nullptr;
      b = {p, bytes};
      if (zero) Check(cudaMemset(p, 0, bytes));
    }
    return b.device;
  }
  void Check(cudaError_t e) {
    if (e != cudaSuccess && error_ == cudaSuccess) error_ = e;
  }

  ResidentWorkspace& workspace_;
  std::size_t scratch_used_ = 0, tickets_used_ = 0;
  cudaError_t error_ = cudaSuccess;
};

}  // namespace sampcheck::gpu
