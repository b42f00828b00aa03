// SPDX-License-Identifier: Apache-2.0
#pragma once
// token_bitmask kernel (xgrammar's apply_token_bitmask), exact tier, bit-exact with
// reference/token_bitmask.h (docs/spec/masks.md).
//
// Contract:
// - One block of 1024 threads per row; thread l handles indices l, l + 1024, ... < V.
//   logits: rows x pitch f32 (entries [V, pitch) are padding, never read); bitmask:
//   mask_rows x words i32; masked: rows u8, 1 when row r is masked with bitmask row r (the
//   caller resolves `indices` and checks them); out: rows x V f32.
// - In a masked row, token t < vocab_size is disallowed iff bit (t % 32) of
//   bitmask[r][t / 32] is 0 (LSB first) and becomes -inf; every other entry, and every entry of
//   an unmasked row, is copied bit for bit. vocab_size <= min(V, 32 words) (checked by the
//   caller), so no word past the bitmask row is read.
// - No shared memory, no barriers.
// Example (xgrammar's tests): word 0b1010101010 over logits {1..10} keeps tokens 1, 3, 5, 7, 9
// and sets tokens 0, 2, 4, 6, 8 to -inf (tests/gpu_kernels_test.cc).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/kernels/greedy.cuh"

namespace sampcheck::gpu {

struct TokenBitmaskKernel {
  static constexpr const char* kName = "token_bitmask";
  static constexpr int kThreads = 1024;

  template <class B, class In, class Mask, class Masked, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Mask bitmask, Masked masked, Out out,
                                        std::int64_t vocab, std::int64_t pitch, std::int64_t words,
                                        std::int64_t vocab_size) const {
    const std::int64_t row = block.index();
    const bool apply = masked.Load(row) != 0;
    block.ForEachThread([&](Thread t) {
      for (std::int64_t i = t.x; i < vocab; i += kThreads) {
        float x = logits.Load(row * pitch + i);
        if (apply && i < vocab_size) {
          const auto word = static_cast<std::uint32_t>(bitmask.Load(row * words + i / 32));
          if (((word >> (i % 32)) & 1u) == 0) x = NegativeInfinity();
        }
        out.Store(row * vocab + i, x);
      }
    });
  }
};

}  // namespace sampcheck::gpu
