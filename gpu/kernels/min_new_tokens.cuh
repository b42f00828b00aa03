// SPDX-License-Identifier: Apache-2.0
#pragma once
// min_new_tokens kernel, exact tier, bit-exact with reference/min_new_tokens.h
// (docs/spec/penalties.md).
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32 (entries [V, pitch) are
//   padding, never read); output_len, min_tokens: rows i32 >= 0; stop_ids: rows x S i32, -1
//   padding, other ids in [0, V) (checked by the caller), repeats allowed; out: rows x V f32.
// - A row is active iff output_len < min_tokens (decided at block level).
//   Phase 1: out_i = x_i, or x_i + 0.0f under sglang (its linear-penalty tensor adds +0.0
//   everywhere). Barrier. Phase 2 (active rows), thread l for stop slots l, l + 1024, ...:
//   out_id = -inf (canonical, vllm: assignment) or (x_id + 0.0f) + -inf (sglang: +inf and NaN
//   give NaN), recomputed from the input so a repeated id writes the same value again.
// Example: logits {1, 2, 3}, stop {2}, output_len 0, min_tokens 1 -> {1, 2, -inf}.

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/lane_scan.cuh"
#include "gpu/kernels/greedy.cuh"

namespace sampcheck::gpu {

struct MinNewTokensKernel {
  static constexpr const char* kName = "min_new_tokens";
  static constexpr int kThreads = 1024;

  template <class B, class In, class Len, class Min, class Stop, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Len output_len, Min min_tokens, Stop stop_ids,
                                        std::int64_t slots, Out out, std::int64_t vocab, std::int64_t pitch,
                                        bool additive) const {
    const std::int64_t row = block.index();
    const bool active = output_len.Load(row) < min_tokens.Load(row);
    block.ForEachThread([&](Thread t) {
      ForEachLaneEntry<kLaneSumGroup>(  // four loads in flight a thread, not one before each store
          t.x, vocab, kThreads, [&](std::int64_t i) { return logits.Load(row * pitch + i); },
          [&](std::int64_t i, float x) { out.Store(row * vocab + i, additive ? x + 0.0f : x); });
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      if (!active) return;
      for (std::int64_t k = t.x; k < slots; k += kThreads) {
        const std::int64_t id = stop_ids.Load(row * slots + k);
        if (id < 0) continue;
        out.Store(row * vocab + id,
                  additive ? (logits.Load(row * pitch + id) + 0.0f) + NegativeInfinity() : NegativeInfinity());
      }
    });
  }
};

}  // namespace sampcheck::gpu
