// SPDX-License-Identifier: Apache-2.0
#pragma once
// top_k kernel: keep the k largest logits of each row, the rest -inf; bit-exact with
// reference/top_k.h (docs/spec/filters.md#top_k).
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32 (entries [V, pitch) are
//   padding, never read), numbers only (+inf ranks first; the glue sets NaN entries aside and
//   puts them back by the profile's rule, docs/spec/filters.md "Degenerate rows"); top_k: rows i32;
//   out: rows x V f32, kept entries bit-identical, dropped entries -inf.
// - Disabled rows are copied: k <= 0 or k >= V; with rule.ascend_limit (ascend_v2) unless
//   1 <= k <= min(V, ks_max rounded up to a multiple of 8, 1024).
// - Selection (gpu/block/radix_select.cuh SelectKth): K = the key of rank k in the canonical order
//   (value descending, index ascending). Exactly k (canonical, sglang, ascend_v2): kept iff
//   key <= K. Ties kept (vllm, flashinfer): kept iff the value key <= K's value key, i.e.
//   x >= the k-th value (-0.0 and +0.0 tie). No sort; exact tier.
// Example: {1, 3, 3, 2}, k = 1: exactly k -> {-inf, 3, -inf, -inf}; ties kept ->
//   {-inf, 3, 3, -inf} (tests/gpu_kernels_test.cc, GpuTopK).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/kernels/filter_rules.h"
#include "gpu/block/radix_select.cuh"

namespace sampcheck::gpu {

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool TopKActive(std::int64_t k, std::int64_t vocab, const TopKRule& rule) {
  if (!rule.ascend_limit) return k > 0 && k < vocab;
  const std::int64_t ks = rule.ks_max > 0 ? rule.ks_max : 0;
  std::int64_t limit = (ks + 7) / 8 * 8;
  if (vocab < limit) limit = vocab;
  if (limit > 1024) limit = 1024;
  return k >= 1 && k <= limit;
}

// TopKRow on the row row[base, base + vocab), in place.
template <class B, class Arr>
SAMPCHECK_KERNEL_BODY void TopKStep(B& block, Arr row, std::int64_t base, std::int64_t vocab, std::int64_t k,
                                    const TopKRule& rule) {
  if (!TopKActive(k, vocab, rule)) return;
  const std::uint64_t kth = SelectKth(block, row, base, vocab, false, k);
  const bool ties = rule.ties_kept;
  block.ForEachThread([&](Thread t) {
    for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
      const std::uint64_t key = OrderKey(row.Load(base + i), i, false);
      const bool keep = ties ? (key >> 32) <= (kth >> 32) : key <= kth;
      if (!keep) row.Store(base + i, NegativeInfinity());
    }
  });
  block.Sync();
}

struct TopKKernel {
  static constexpr const char* kName = "top_k";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class Arr, class K>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, Arr logits, Arr out, K top_k, std::int64_t vocab, std::int64_t pitch,
                                        TopKRule rule) const {
    const std::int64_t row = block.index();
    CopyRow(block, logits, row * pitch, out, row * vocab, vocab);
    TopKStep(block, out, row * vocab, vocab, top_k.Load(row), rule);
  }
};

}  // namespace sampcheck::gpu
