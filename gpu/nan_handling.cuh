// SPDX-License-Identifier: Apache-2.0
#pragma once
// nan_handling kernel, exact tier, bit-exact with reference/nan_handling.h
// (docs/spec/nan_handling.md).
//
// Contract:
// - One block of 1024 threads per row; thread l handles indices l, l + 1024, ... < V.
//   logits: rows x pitch f32 (entries [V, pitch) are padding, never read); out: rows x V f32.
// - replace (sglang): every NaN, of any sign or payload, becomes `replacement` (-1e5f);
//   otherwise (canonical, vllm) the row is copied bit for bit, NaN payloads included.
// - No shared memory, no barriers.
// Example: sglang {NaN, 1} -> {-100000, 1}; vllm {NaN, 1} -> {NaN, 1} (tests/gpu_kernels_test.cc).

#include <cstdint>

#include "gpu/block_model.h"
#include "gpu/block_reduce.cuh"

namespace sampcheck::gpu {

struct NanHandlingKernel {
  static constexpr const char* kName = "nan_handling";
  static constexpr int kThreads = 1024;

  template <class B, class In, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Out out, std::int64_t vocab, std::int64_t pitch,
                                        bool replace, float replacement) const {
    const std::int64_t row = block.index();
    block.ForEachThread([&](Thread t) {
      for (std::int64_t i = t.x; i < vocab; i += kThreads) {
        const float x = logits.Load(row * pitch + i);
        out.Store(row * vocab + i, replace && IsNan(x) ? replacement : x);
      }
    });
  }
};

}  // namespace sampcheck::gpu
