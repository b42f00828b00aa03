// SPDX-License-Identifier: Apache-2.0
#pragma once
// allowed_token_ids kernel, exact tier, bit-exact with reference/allowed_token_ids.h
// (docs/spec/masks.md).
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32 (entries [V, pitch) are
//   padding, never read); allowed: rows x A i32, -1 padding, other ids in [0, V) (checked by
//   the caller), repeats allowed; out: rows x V f32.
// - A row whose list holds no id is copied bit for bit. Otherwise phase 1 writes -inf to
//   every entry; barrier; phase 2, thread l for list slots k = l, l + 1024, ..., writes
//   out_id = x_id for each listed id (a repeated id writes the same value twice: idempotent).
// Example: logits {1, 2, 3, 4}, allowed {3, 1} -> {-inf, 2, -inf, 4} (tests/gpu_kernels_test.cc).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/kernels/greedy.cuh"

namespace sampcheck::gpu {

struct AllowedTokenIdsKernel {
  static constexpr const char* kName = "allowed_token_ids";
  static constexpr int kThreads = 1024;

  template <class B, class In, class Ids, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Ids allowed, std::int64_t slots, Out out,
                                        std::int64_t vocab, std::int64_t pitch) const {
    const std::int64_t row = block.index();
    // Block-level: every thread reads the same slots and reaches the same decision.
    bool restricted = false;
    for (std::int64_t k = 0; k < slots && !restricted; ++k) restricted = allowed.Load(row * slots + k) >= 0;
    block.ForEachThread([&](Thread t) {
      for (std::int64_t i = t.x; i < vocab; i += kThreads) {
        out.Store(row * vocab + i, restricted ? NegativeInfinity() : logits.Load(row * pitch + i));
      }
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      for (std::int64_t k = t.x; k < slots; k += kThreads) {
        const std::int64_t id = allowed.Load(row * slots + k);
        if (id >= 0) out.Store(row * vocab + id, logits.Load(row * pitch + id));
      }
    });
  }
};

}  // namespace sampcheck::gpu
