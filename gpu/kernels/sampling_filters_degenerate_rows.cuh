// SPDX-License-Identifier: Apache-2.0
#pragma once
// sampling_filters' degenerate rows in the kernel (docs/spec/filters.md "Degenerate rows" of
// sampling_filters; the reference's SamplingFiltersDegenerateRow, reference/sampling_filters.h):
// a row holding a NaN or a +inf goes through the profile's filters in its order, each with its
// own degenerate-row rule on the row it receives, so that under flashinfer a row whose NaNs
// top_k drops is filtered by top_p and min_p as usual. The fused kernels find such a row in
// their first read (gpu/kernels/sampling_filters_on_survivors.cuh, _on_partition.cuh; the
// full-row path's copy, gpu/block/row_tally.cuh) and hand it here; logprobs' processed modes
// do the same for their filtered rows (gpu/kernels/logprobs.cuh).
//
// Contract:
// - SamplingFiltersDegenerateRowSteps(block, row, base, vocab, k, p, m, rules, scratch, at):
//   row[base, base + vocab) holds a NaN or a +inf; it is filtered in place:
//   kMinPFirst (vllm): min_p, top_k, top_p; kJoint / kJointThenMinP: top_k, then every entry
//   -inf when rules.degenerate.nan_softmax_empties_row and (p < 1, or kJoint and m > 0: the
//   original row's top_p (min_p) set is all of it or nothing), then kJointThenMinP's min_p;
//   kTopKFirst, kAscend: top_k, top_p, min_p. Each top_k counts the row's NaNs by sign bit
//   first (TopKStep's rule, gpu/kernels/top_k.cuh); each top_p and min_p first asks whether the
//   row it receives still holds a NaN or a +inf (DegenerateSoftmaxFilterStep,
//   gpu/kernels/degenerate_rows.cuh) and else applies its usual step.
// - Extra reads (a tally per step) on degenerate rows only: healthy rows never come here. No
//   shared array of its own: the tallies use the trees and scans the filter steps use anyway.
// Example: {1, NaN, 3, 2}, k = 2, p = 0.5: canonical {-inf, NaN, 3, -inf}; flashinfer
//   top_k_first {-inf, -inf, 3, -inf} (top_k drops the NaN, top_p keeps 3); flashinfer joint all
//   -inf (tests/gpu_filters_test.cc, DegenerateRowsDecidedInTheKernel).

#include <cstdint>

#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/row_tally.cuh"
#include "gpu/kernels/degenerate_rows.cuh"
#include "gpu/kernels/filter_rules.h"
#include "gpu/kernels/min_p.cuh"
#include "gpu/kernels/top_k.cuh"
#include "gpu/kernels/top_p.cuh"

namespace sampcheck::gpu {

// TopKStep's NaN counts by sign bit (TopKKernel's tally), as two exact integer scans
// (BlockExclusiveScan, whose warp sums the filter kernels hold already: a u64 tree here would
// push the fused sampling_filters kernel past the device's 48 KiB of static shared memory). A
// barrier after each: the second scan and the caller's next one reuse the warp sums.
template <class B, class Arr>
SAMPCHECK_KERNEL_BODY TopKNaNCount RowNaNCount(B& block, Arr row, std::int64_t base, std::int64_t vocab) {
  auto clear = Registers<std::uint32_t>(block);
  auto set = Registers<std::uint32_t>(block);
  block.ForEachThread([&](Thread t) {
    std::uint32_t c = 0, s = 0;
    for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
      const float x = row.Load(base + i);
      if (!IsNan(x)) continue;
      if (SignBit(x)) {
        ++s;
      } else {
        ++c;
      }
    }
    clear[t] = c;
    set[t] = s;
  });
  std::uint32_t sign_clear = 0, sign_set = 0;
  BlockExclusiveScan<kCanonicalLanes>(block, clear, sign_clear);
  block.Sync();
  BlockExclusiveScan<kCanonicalLanes>(block, set, sign_set);
  block.Sync();
  return TopKNaNCount{sign_clear, sign_set};
}

template <class B, class Arr, class S>
SAMPCHECK_KERNEL_BODY void SamplingFiltersDegenerateRowSteps(B& block, Arr row, std::int64_t base, std::int64_t vocab,
                                                             std::int64_t k, float p, float m, const FilterRules& rules,
                                                             S scratch, std::int64_t scratch_base) {
  auto top_k = [&] {
    if (!TopKActive(k, vocab, rules.top_k)) return;
    TopKStep(block, row, base, vocab, k, rules.top_k, RowNaNCount(block, row, base, vocab));
  };
  auto top_p = [&] {
    if (RowHoldsDegenerate(block, row, base, vocab)) {
      return DegenerateSoftmaxFilterStep(block, row, base, vocab, p < 1.0f, rules.degenerate);
    }
    TopPStep(block, row, base, row, base, vocab, p, rules.top_p, scratch, scratch_base);
  };
  auto min_p = [&] {
    if (RowHoldsDegenerate(block, row, base, vocab)) {
      return DegenerateSoftmaxFilterStep(block, row, base, vocab, m > 0.0f, rules.degenerate);
    }
    MinPStep(block, row, base, vocab, m, rules.min_p);
  };
  switch (rules.order) {
    case FilterOrder::kMinPFirst:
      min_p();
      top_k();
      top_p();
      return;
    case FilterOrder::kJoint:
    case FilterOrder::kJointThenMinP: {
      const bool joint = rules.order == FilterOrder::kJoint;
      top_k();
      if (rules.degenerate.nan_softmax_empties_row && (p < 1.0f || (joint && m > 0.0f))) {
        FillNegInf(block, row, base, vocab);
      }
      if (!joint) min_p();
      return;
    }
    case FilterOrder::kTopKFirst:
    case FilterOrder::kAscend:
      top_k();
      top_p();
      min_p();
      return;
  }
}

}  // namespace sampcheck::gpu
