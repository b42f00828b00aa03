// SPDX-License-Identifier: Apache-2.0
// gpu-fast's fused sampling kernel on a CUDA device (gpu/fast_sampling_launch.h, docs/gpu.md
// "gpu-fast"): the emulator's kernel body in one __global__ entry, host buffers copied in and
// out per call. A failed CUDA call becomes std::runtime_error naming the call and line; with
// no device the message starts with "no CUDA device".
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "gpu/block_model.h"
#include "gpu/fast_sampling.cuh"
#include "gpu/fast_sampling_launch.h"
#include "gpu/kernel_entry.cuh"

namespace sampcheck::gpu {

namespace {

using Kernel = FastSamplingKernel<kFastSamplingDeviceThreads>;

void Check(cudaError_t e, const char* what, int line) {
  if (e == cudaSuccess) return;
  throw std::runtime_error(std::string("gpu-fast: kernel '") + Kernel::kName + "': " + what + " failed at " __FILE__ ":" +
                           std::to_string(line) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
#define SAMPCHECK_FAST_CHECK(expr) Check((expr), #expr, __LINE__)

// One device buffer, freed on every path (a throw included).
template <class T>
class Buffer {
 public:
  Buffer(const T* host, std::int64_t n) : n_(n) {
    if (n_ <= 0) return;
    SAMPCHECK_FAST_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), Bytes()));
    if (host != nullptr) SAMPCHECK_FAST_CHECK(cudaMemcpy(p_, host, Bytes(), cudaMemcpyHostToDevice));
  }
  ~Buffer() {
    if (p_ != nullptr) cudaFree(p_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void Download(T* host) const {
    if (p_ != nullptr) SAMPCHECK_FAST_CHECK(cudaMemcpy(host, p_, Bytes(), cudaMemcpyDeviceToHost));
  }
  GlobalArray<const T> In(const char* name) const { return GlobalArray<const T>(p_, n_, name); }
  GlobalArray<T> Out(const char* name) const { return GlobalArray<T>(p_, n_, name); }

 private:
  std::size_t Bytes() const { return sizeof(T) * static_cast<std::size_t>(n_); }
  T* p_ = nullptr;
  std::int64_t n_;
};

}  // namespace

void RunFastSamplingCuda(const FastSamplingLaunch& l) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string("no CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorName(e) + " (" +
                             cudaGetErrorString(e) + ")");
  }
  if (count == 0) throw std::runtime_error("no CUDA device: cudaGetDeviceCount found 0 devices");
  if (l.rows == 0) return;
  const std::int64_t rows = l.rows;
  Buffer<float> logits(l.logits, rows * l.pitch);
  Buffer<float> temperature(l.temperature, rows);
  Buffer<std::int32_t> top_k(l.top_k, rows);
  Buffer<float> top_p(l.top_p, rows);
  Buffer<float> min_p(l.min_p, rows);
  Buffer<std::uint64_t> seed(l.seed, rows);
  Buffer<std::uint64_t> position(l.position, rows);
  Buffer<float> scaled(nullptr, rows * l.vocab);
  Buffer<float> weight(nullptr, rows * l.vocab);
  Buffer<std::int64_t> token(nullptr, rows);
  KernelEntry<Kernel><<<static_cast<unsigned>(rows), Kernel::kThreads>>>(
      logits.In("logits"), temperature.In("temperature"), top_k.In("top_k"), top_p.In("top_p"), min_p.In("min_p"),
      seed.In("seed"), position.In("position"), scaled.Out("scaled"), weight.Out("weight"), token.Out("token"), l.vocab,
      l.pitch, l.options);
  SAMPCHECK_FAST_CHECK(cudaGetLastError());
  SAMPCHECK_FAST_CHECK(cudaDeviceSynchronize());
  token.Download(l.token);
}

}  // namespace sampcheck::gpu

#include "gpu/fast_backend.h"

namespace sampcheck::gpu {

std::unique_ptr<Backend> MakeGpuFastCudaBackend() {
  return std::make_unique<GpuFastBackend>("gpu-fast", RunFastSamplingCuda, FastSamplingBug::kNone, MakeCudaRunner());
}

}  // namespace sampcheck::gpu
