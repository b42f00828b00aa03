// SPDX-License-Identifier: Apache-2.0
#pragma once
// The filter kernels' degenerate rows (docs/spec/filters.md "Degenerate rows"): a row holding a
// NaN or a +inf is a row with a result, decided by the kernel that filters it (top_k.cuh ranks
// its NaNs; top_p.cuh and min_p.cuh below), never by the host.
//
// Contract:
// - CopyRowFindingDegenerate: CopyRow's copy, and in the same read whether the row holds a NaN
//   or a +inf (CopyRowTally, gpu/block/row_tally.cuh).
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

template <class B, class Src, class Dst>
SAMPCHECK_KERNEL_BODY bool CopyRowFindingDegenerate(B& block, Src src, std::int64_t src_base, Dst dst,
                                                    std::int64_t dst_base, std::int64_t vocab) {
  return CopyRowTally<std::uint32_t>(block, src, src_base, dst, dst_base, vocab, [](float x) -> std::uint32_t {
           return (IsNan(x) || x > 0x1.fffffep+127f) ? 1u : 0u;
         }) != 0;
}

template <class B, class Arr>
SAMPCHECK_KERNEL_BODY void DegenerateSoftmaxFilterStep(B& block, Arr row, std::int64_t base, std::int64_t vocab,
                                                       bool enabled, DegenerateRowRule rule) {
  if (enabled && rule.nan_softmax_empties_row) FillNegInf(block, row, base, vocab);
}

}  // namespace sampcheck::gpu
