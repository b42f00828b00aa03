// SPDX-License-Identifier: Apache-2.0
#pragma once
// logit_bias kernel, exact tier, bit-exact with reference/logit_bias.h (docs/spec/logit_bias.md).
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32 (entries [V, pitch) are
//   padding, never read); bias: rows x V f32 when has_dense; the sparse list bias_rows /
//   bias_ids / bias_values [n] (checked by the caller: rows in [0, B), ids in [0, V), no pair
//   twice); out: rows x V f32.
// - y_i = x_i + dense_i (one IEEE addition, only with a dense bias).
//   Phase 1, thread l for i = l, l + 1024, ...: out_i = y_i, or y_i + 0.0f under sglang (its
//   densified bias adds +0.0 to every unlisted entry, turning -0.0 into +0.0).
//   Barrier (phase 2 rewrites words of phase 1).
//   Phase 2, thread l for list entries k = l, l + 1024, ... of this row: out_id = y_id + b_k,
//   with b_k = min(100, max(-100, v_k)) in Python's order under vllm (a NaN bias becomes
//   -100), v_k otherwise. y_id is recomputed from the inputs, so a listed entry gets exactly
//   one addition of its bias, as in the reference.
// - Each listed (row, id) is unique, so no word is written twice in phase 2.
// Example: logits {1, 2, 3}, sparse (0, 2, 0.5) -> {1, 2, 3.5}; vllm with 250 -> {1, 2, 103}.

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/lane_scan.cuh"
#include "gpu/kernels/stage_rules.h"

namespace sampcheck::gpu {

// vLLM's `min(100.0, max(-100.0, bias))` in Python's evaluation order (NaN -> -100).
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float VllmClampBias(float bias) {
  const float lower = bias > -100.0f ? bias : -100.0f;
  return lower < 100.0f ? lower : 100.0f;
}

struct LogitBiasKernel {
  static constexpr const char* kName = "logit_bias";
  static constexpr int kThreads = 1024;

  template <class B, class In, class Dense, class Rows, class Ids, class Values, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Dense bias, bool has_dense, Rows bias_rows, Ids bias_ids,
                                        Values bias_values, std::int64_t n, Out out, std::int64_t vocab,
                                        std::int64_t pitch, LogitBiasRule rule) const {
    const std::int64_t row = block.index();
    auto bias_of = [&](std::int64_t i) { return has_dense ? bias.Load(row * vocab + i) : 0.0f; };
    auto with_bias = [&](float x, float b) { return has_dense ? x + b : x; };
    auto biased = [&](std::int64_t i) { return with_bias(logits.Load(row * pitch + i), bias_of(i)); };
    // A group's loads (the logit and its dense bias) before its stores (ForEachLaneEntry): four
    // in flight a thread, not one before each store.
    struct Loaded {
      float x, bias;
    };
    block.ForEachThread([&](Thread t) {
      ForEachLaneEntry<kLaneSumGroup>(
          t.x, vocab, kThreads,
          [&](std::int64_t i) {
            return Loaded{logits.Load(row * pitch + i), bias_of(i)};
          },
          [&](std::int64_t i, Loaded l) {
            const float y = with_bias(l.x, l.bias);
            out.Store(row * vocab + i, rule.densify ? y + 0.0f : y);
          });
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      for (std::int64_t k = t.x; k < n; k += kThreads) {
        if (bias_rows.Load(k) != row) continue;
        const std::int64_t id = bias_ids.Load(k);
        const float v = bias_values.Load(k);
        out.Store(row * vocab + id, biased(id) + (rule.clamp ? VllmClampBias(v) : v));
      }
    });
  }
};

}  // namespace sampcheck::gpu
