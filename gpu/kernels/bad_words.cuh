// SPDX-License-Identifier: Apache-2.0
#pragma once
// bad_words kernel, exact tier, bit-exact with reference/bad_words.h (docs/spec/masks.md).
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32 (entries [V, pitch) are
//   padding, never read); output_ids: rows x Lo i32, the output is the entries before the
//   first -1; bad_words: rows x Nw x Lw i32, a word is its entries before the first -1; ids
//   in [0, V) (checked by the caller); out: rows x V f32.
// - Phase 1 copies the row bit for bit. Barrier. Phase 2, thread l for words w = l, l + 1024,
//   ...: a word of length n >= 1 with n <= len(output) + 1 whose first n - 1 tokens equal the
//   last n - 1 output tokens bans its last token: out[w[n-1]] = -inf (assignment). Two words
//   banning one token write the same value (idempotent).
// Example: output {5, 7}, word {7, 2} -> logits[2] = -inf; word {5, 2} -> nothing.

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/kernels/greedy.cuh"

namespace sampcheck::gpu {

struct BadWordsKernel {
  static constexpr const char* kName = "bad_words";
  static constexpr int kThreads = 1024;

  template <class B, class In, class Output, class Words, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In logits, Output output_ids, std::int64_t output_len,
                                        Words bad_words, std::int64_t n_words, std::int64_t word_len, Out out,
                                        std::int64_t vocab, std::int64_t pitch) const {
    const std::int64_t row = block.index();
    block.ForEachThread([&](Thread t) {
      for (std::int64_t i = t.x; i < vocab; i += kThreads) out.Store(row * vocab + i, logits.Load(row * pitch + i));
    });
    block.Sync();
    block.ForEachThread([&](Thread t) {
      std::int64_t produced = 0;  // len(output): entries before the first -1
      while (produced < output_len && output_ids.Load(row * output_len + produced) >= 0) ++produced;
      for (std::int64_t w = t.x; w < n_words; w += kThreads) {
        const std::int64_t base = (row * n_words + w) * word_len;
        std::int64_t n = 0;
        while (n < word_len && bad_words.Load(base + n) >= 0) ++n;
        if (n == 0 || n > produced + 1) continue;
        bool match = true;
        for (std::int64_t k = 0; k + 1 < n && match; ++k) {
          match = bad_words.Load(base + k) == output_ids.Load(row * output_len + produced - (n - 1) + k);
        }
        if (match) out.Store(row * vocab + bad_words.Load(base + n - 1), NegativeInfinity());
      }
    });
  }
};

}  // namespace sampcheck::gpu
