// SPDX-License-Identifier: Apache-2.0
#pragma once
// The two sampcheck sampling modes on device-resident logits, for bench/device_sampling_bench.cu:
// deterministic (the bit-exact kernels, docs/gpu.md) and fast (the gpu-fast kernel). Device
// pointers in, the drawn token per row left on the device; buffers allocated once per shape.
#include <cuda_runtime.h>

#include <cstdint>

namespace sampcheck::bench {

enum class DeviceMode { kDeterministic, kFast };

class DeviceSampler {
 public:
  DeviceSampler(DeviceMode mode, std::int64_t rows, std::int64_t vocab) : mode_(mode), rows_(rows), vocab_(vocab) {}
  bool available() const { return false; }
  const char* why_not() const { return "the kernels of this mode are not wired into the device benchmark yet"; }
  void Launch(const float* /*logits*/, int /*top_k*/, float /*top_p*/, float /*min_p*/, std::uint64_t /*seed*/) {}

 private:
  DeviceMode mode_;
  std::int64_t rows_, vocab_;
};

}  // namespace sampcheck::bench
