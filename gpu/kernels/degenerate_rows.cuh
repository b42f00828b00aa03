// SPDX-License-Identifier: Apache-2.0
#pragma once
// The filter kernels' degenerate rows (docs/spec/filters.md "Degenerate rows"): a row holding a
// NaN or a +inf is a row with a result, decided by the kernel that filters it (top_k.cuh ranks
// its NaNs; top_p.cuh and min_p.cuh below), never by the host.
//
// Contract:
// - CopyRowFindingDegenerate: CopyRow's copy (or map's, as CopyRowTally), and in the same read
//   whether the row holds a NaN or a +inf (CopyRowTally, gpu/block/row_tally.cuh);
//   RowHoldsDegenerate the same test on a row it only reads.
// - IsDegenerateFirstKey(key) (gpu/block/radix_select.cuh): whether a row whose first key in the canonical descending order
//   (its smallest OrderKey, gpu/block/radix_select.cuh: every NaN first, then +inf) is `key`
//   holds a NaN or a +inf: the fused filter paths' test, folded into the read that finds that
//   key anyway (the survivors' thread maxima, the partition's level 0).
// - DegenerateSoftmaxFilterStep: such a row's softmax is NaN everywhere; an enabled top-p or
//   min-p then keeps nothing under rule.nan_softmax_empties_row (flashinfer: every entry -inf)
//   and drops nothing otherwise (torch compares with a NaN cumsum or threshold: false), the
//   reference's DegenerateSoftmaxFilterRow (reference/filter_rows.h).
// Example: {NaN, 1, 2}, top-p 0.9: flashinfer -> {-inf, -inf, -inf}; canonical -> unchanged
//   (tests/gpu_kernels_test.cc, GpuFilterDegenerateRows).

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/row_tally.cuh"
#include "gpu/kernels/filter_rules.h"

namespace sampcheck::gpu {

template <class B, class Arr>
SAMPCHECK_KERNEL_BODY void FillNegInf(B& block, Arr row, std::int64_t base, std::int64_t vocab) {
  block.ForEachThread([&](Thread t) {
    for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) row.Store(base + i, NegativeInfinity());
  });
  block.Sync();
}

// 1 for a NaN or a +inf, else 0; combined by the float max (an exact "any", row_tally.cuh).
struct DegenerateWeight {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float operator()(float x) const {
    return (IsNan(x) || x > 0x1.fffffep+127f) ? 1.0f : 0.0f;
  }
};

template <class B, class Src, class Dst, class Map = IdentityMap>
SAMPCHECK_KERNEL_BODY bool CopyRowFindingDegenerate(B& block, Src src, std::int64_t src_base, Dst dst,
                                                    std::int64_t dst_base, std::int64_t vocab, Map map = {}) {
  return CopyRowTally<float, MaxCombine>(block, src, src_base, dst, dst_base, vocab, DegenerateWeight{}, map) > 0.0f;
}

template <class B, class Arr>
SAMPCHECK_KERNEL_BODY bool RowHoldsDegenerate(B& block, Arr row, std::int64_t base, std::int64_t vocab) {
  return RowTally<float, MaxCombine>(block, row, base, vocab, DegenerateWeight{}) > 0.0f;
}

template <class B, class Arr>
SAMPCHECK_KERNEL_BODY void DegenerateSoftmaxFilterStep(B& block, Arr row, std::int64_t base, std::int64_t vocab,
                                                       bool enabled, DegenerateRowRule rule) {
  if (enabled && rule.nan_softmax_empties_row) FillNegInf(block, row, base, vocab);
}

}  // namespace sampcheck::gpu
