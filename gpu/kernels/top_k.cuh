// SPDX-License-Identifier: Apache-2.0
#pragma once
// top_k kernel: keep the k largest logits of each row, the rest -inf; bit-exact with
// reference/top_k.h (docs/spec/filters.md#top_k).
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32 (entries [V, pitch) are
//   padding, never read), any values; top_k: rows i32; out: rows x V f32, kept entries
//   bit-identical, dropped entries -inf.
// - Disabled rows are copied: k <= 0 or k >= V; with rule.ascend_limit (ascend_v2) unless
//   1 <= k <= min(V, ks_max rounded up to a multiple of 8, 1024).
// - Selection (gpu/block/radix_select.cuh SelectKth): K = the key of rank k in the canonical order
//   (value descending, index ascending). Exactly k (canonical, sglang, ascend_v2): kept iff
//   key <= K. Ties kept (vllm, flashinfer): kept iff the value key <= K's value key, i.e.
//   x >= the k-th value (-0.0 and +0.0 tie). No sort; exact tier.
// - NaN (docs/spec/filters.md "Degenerate rows"; +inf is the largest number and needs no rule):
//   the kernel's copy of the row counts its NaNs by sign bit (CopyRowTally, the same read).
//   OrderKey ranks every NaN first, by index, so exactly k keeps the first k entries of that
//   order with no rule of its own; ties kept with n >= k NaNs leaves the row unchanged (vllm: a
//   NaN k-th value masks nothing); rule.drops_nan (flashinfer, which orders by the bits: P
//   sign-clear NaNs above +inf, N sign-set ones below -inf) empties the row when the k-th
//   entry of that order is a NaN (k <= P or k > V - N), else selects the (k - P)-th number,
//   rank k + N of OrderKey's order, and keeps the numbers >= it, never a NaN.
// Example: {1, 3, 3, 2}, k = 1: exactly k -> {-inf, 3, -inf, -inf}; ties kept ->
//   {-inf, 3, 3, -inf} (tests/gpu_kernels_test.cc, GpuTopK).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/lane_scan.cuh"
#include "gpu/kernels/filter_rules.h"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/row_tally.cuh"
#include "gpu/kernels/degenerate_rows.cuh"

namespace sampcheck::gpu {

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool TopKActive(std::int64_t k, std::int64_t vocab, const TopKRule& rule) {
  if (!rule.ascend_limit) return k > 0 && k < vocab;
  const std::int64_t ks = rule.ks_max > 0 ? rule.ks_max : 0;
  std::int64_t limit = (ks + 7) / 8 * 8;
  if (vocab < limit) limit = vocab;
  if (limit > 1024) limit = 1024;
  return k >= 1 && k <= limit;
}

// A row's NaNs by sign bit (contract above).
struct TopKNaNCount {
  std::int64_t sign_clear = 0, sign_set = 0;
};

// TopKRow on the row row[base, base + vocab), in place; `nans` counts its NaNs (none: the
// healthy rows of sampling_filters' chains; its degenerate rows count theirs,
// gpu/kernels/sampling_filters_degenerate_rows.cuh).
template <class B, class Arr>
SAMPCHECK_KERNEL_BODY void TopKStep(B& block, Arr row, std::int64_t base, std::int64_t vocab, std::int64_t k,
                                    const TopKRule& rule, TopKNaNCount nans = {}) {
  if (!TopKActive(k, vocab, rule)) return;
  const bool ties = rule.ties_kept, drops_nan = rule.drops_nan;
  std::int64_t rank = k;
  if (drops_nan) {
    if (k <= nans.sign_clear || k > vocab - nans.sign_set) {  // the pivot is a NaN: nothing is >= it
      return FillNegInf(block, row, base, vocab);
    }
    rank = k + nans.sign_set;
  } else if (ties && nans.sign_clear + nans.sign_set >= k) {
    return;  // a NaN k-th value: x < NaN is false for every x
  }
  const std::uint64_t kth = SelectKth(block, row, base, vocab, false, rank);
  block.ForEachThread([&](Thread t) {
    ForEachLaneEntry<kLaneSumGroup>(
        t.x, vocab, kCanonicalLanes, [&](std::int64_t i) { return row.Load(base + i); },
        [&](std::int64_t i, float x) {
          const std::uint64_t key = OrderKey(x, i, false);
          const bool keep = WithinTopKBound(key, kth, ties) && !(ties && drops_nan && IsNan(x));
          if (!keep) row.Store(base + i, NegativeInfinity());
        });
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
    // Sign-clear NaNs in the high half, sign-set in the low (each < 2^32: V < 2^32).
    const std::uint64_t nans = CopyRowTally<std::uint64_t>(block, logits, row * pitch, out, row * vocab, vocab,
                                                           [](float x) -> std::uint64_t {
                                                             if (!IsNan(x)) return 0;
                                                             return SignBit(x) ? 1u : std::uint64_t{1} << 32;
                                                           });
    const TopKNaNCount count{static_cast<std::int64_t>(nans >> 32), static_cast<std::int64_t>(nans & 0xffffffffu)};
    TopKStep(block, out, row * vocab, vocab, top_k.Load(row), rule, count);
  }
};

}  // namespace sampcheck::gpu
