// SPDX-License-Identifier: Apache-2.0
// gpu-fast's fused sampling kernel on the checking host emulator (gpu/fast_sampling_launch.h,
// docs/gpu.md "gpu-fast"): every launch runs with every check on, and a violation fails the
// run with the emulator's report.
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/emulator.h"
#include "gpu/fast_sampling.cuh"
#include "gpu/fast_sampling_launch.h"

namespace sampcheck::gpu {

namespace {

template <class T>
GlobalArray<T> Global(T* p, std::int64_t n, const char* name) {
  return GlobalArray<T>(p, p == nullptr ? 0 : n, name);
}

template <int kThreads>
void Run(const FastSamplingLaunch& l) {
  using Kernel = FastSamplingKernel<kThreads>;
  const std::int64_t rows = l.rows;
  std::vector<float> scaled(static_cast<std::size_t>(rows * l.vocab)), weight(scaled.size());
  const LaunchReport report = emu::Launch(Kernel::kName, static_cast<int>(rows), Kernel::kThreads, [&](Block& block) {
    Kernel{}(block, Global(l.logits, rows * l.pitch, "logits"), Global(l.temperature, rows, "temperature"),
             Global(l.top_k, rows, "top_k"), Global(l.top_p, rows, "top_p"), Global(l.min_p, rows, "min_p"),
             Global(l.seed, rows, "seed"), Global(l.position, rows, "position"), Global(scaled.data(), rows * l.vocab, "scaled"),
             Global(weight.data(), rows * l.vocab, "weight"), Global(l.token, rows, "token"),
             l.vocab, l.pitch, l.options);
  });
  if (!report.ok()) {
    throw std::runtime_error("gpu-fast-emulated: kernel '" + std::string(Kernel::kName) +
                             "' failed the emulator's checks:\n" + report.Summary());
  }
}

}  // namespace

void RunFastSamplingEmulated(const FastSamplingLaunch& launch) { Run<kFastSamplingEmulatedThreads>(launch); }
void RunFastSamplingEmulatedDeviceBlock(const FastSamplingLaunch& launch) { Run<kFastSamplingDeviceThreads>(launch); }

}  // namespace sampcheck::gpu
