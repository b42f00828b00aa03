// SPDX-License-Identifier: Apache-2.0
#pragma once
// nan_handling kernel, exact tier, bit-exact with reference/nan_handling.h
// (docs/spec/nan_handling.md).
//
// Contract:
// - One block of 1024 threads per row; thread l handles indices l, l + 1024, ... < V.
//   logits: rows x pitch f32 (entries [V, pitch) are padding, never read); out: rows x V f32.
// - NanRule (resolved on the host from the profile and sglang's `nan_mode`): a NaN of any sign
//   or payload becomes `nan_value` when `nan`, -inf becomes `neg_inf_value` when `neg_inf`, +inf
//   becomes `pos_inf_value` when `pos_inf`; everything else is copied bit for bit. canonical,
//   vllm and sglang `keep`: nothing replaced; sglang `detect_1e5`: NaN -> -1e5; sglang
//   `sanitize`: NaN and -inf -> f32(-1e30), +inf -> f32(1e30).
// - No shared memory, no barriers.
// Example: detect_1e5 {NaN, 1} -> {-100000, 1}; keep {NaN, 1} -> {NaN, 1} (tests/gpu_kernels_test.cc).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/lane_scan.cuh"
#include "gpu/kernels/stage_rules.h"

namespace sampcheck::gpu {

struct NanHandlingKernel {
  static constexpr const char* kName = "nan_handling";
  static constexpr int kThreads = 1024;

  template <class B, class In, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Out out, std::int64_t vocab, std::int64_t pitch,
                                        NanRule rule) const {
    const std::int64_t row = block.index();
    block.ForEachThread([&](Thread t) {
      // Four loads in flight a thread (ForEachLaneEntry), not one before each store.
      ForEachLaneEntry<kLaneSumGroup>(
          t.x, vocab, kThreads, [&](std::int64_t i) { return logits.Load(row * pitch + i); },
          [&](std::int64_t i, float x) {
            float y = x;
            if (rule.nan && IsNan(x)) y = rule.nan_value;
            if (rule.neg_inf && IsInf(x) && SignBit(x)) y = rule.neg_inf_value;
            if (rule.pos_inf && IsInf(x) && !SignBit(x)) y = rule.pos_inf_value;
            out.Store(row * vocab + i, y);
          });
    });
  }
};

}  // namespace sampcheck::gpu
