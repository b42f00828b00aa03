// SPDX-License-Identifier: Apache-2.0
#pragma once
// min_p kernel: keep the tokens whose probability is at least m times the largest; bit-exact
// with reference/min_p.h (docs/spec/filters.md#min_p).
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32, finite or -inf (the glue
//   decides the rows of sampling_filters and logprobs holding NaN or +inf on the host); min_p:
//   rows f32, not NaN; out: rows x V f32, kept entries bit-identical, dropped -inf.
// - MinPKernel's rows holding a NaN or a +inf: DegenerateSoftmaxFilterStep
//   (gpu/kernels/degenerate_rows.cuh), enabled iff m > 0 (docs/spec/filters.md "Degenerate rows").
// - m <= 0: the row is copied. rule.first_only_at_one (ascend_v2) and m >= 1: only the first
//   token of the canonical order stays (SelectKth rank 1).
// - Else: probs_i = ExpF32Cr(x_i - M) / s with the canonical max M and sum s
//   (RowSoftmaxStats: SoftmaxRow's bits), threshold = CanonicalMax(probs) * min(m, 1) (one
//   f32 multiplication), kept iff probs_i >= threshold. One pass, no sort. A row without a
//   finite logit stays all -inf (every entry is -inf already).
// - MinPApply applies a threshold computed from an earlier row (sglang's joint order and
//   ascend_v2 read the original or the top-k distribution): entries that are still finite
//   hold the same value there, so their probabilities are recomputed from the row itself.
// Example: the ln 2 row {0, -ln2, -2 ln2, -2 ln2}, probs (0.5, 0.25, 0.125, 0.125), m = 0.5:
//   threshold 0.25 keeps {0, 1} (tests/gpu_kernels_test.cc, GpuMinP).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/lane_scan.cuh"
#include "gpu/kernels/filter_rules.h"
#include "gpu/block/radix_select.cuh"
#include "gpu/kernels/degenerate_rows.cuh"
#include "reference/math/log.h"

namespace sampcheck::gpu {

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float MinPThreshold(float max_prob, float m) {
  return max_prob * (m < 1.0f ? m : 1.0f);
}

// A bound on x - M below which an entry fails min_p whatever the sum s of the row it reads
// (its max M), so that a read made before s is known can keep the few entries that may pass:
// with m' = min(m, 1) >= kMinPBoundFrom, an entry is kept iff fl(w / s) >= fl(fl(1 / s) m'),
// w = ExpF32Cr(x - M) (Prob(M) = 1 / s); for 1 <= s < 2^31 both sides are normal f32 when
// kept (m' / s >= 2^-95), so keeping implies w (1 + u) >= m' (1 - u)^2, u = 2^-24, hence w >=
// m' (1 - 3u). The bound b = fl(LogF32Cr(m') - 2^-10) is below ln m' - 2^-11 (|ln m'| <= 44.4:
// both roundings within 2^-18), so x - M < b gives w <= m' e^(-2^-11) (1 + u) < m' (1 - 3u):
// dropped. Returns -inf (no bound) for a smaller m'.
inline constexpr float kMinPBoundFrom = 0x1p-64f;
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float MinPValueBound(float m) {
  const float clamped = m < 1.0f ? m : 1.0f;
  if (!(clamped >= kMinPBoundFrom)) return NegativeInfinity();
  return math::LogF32Cr(clamped) - 0x1p-10f;
}

// Drops row entries whose probability under `st` is below `threshold`.
template <class B, class Arr>
SAMPCHECK_KERNEL_BODY void MinPApply(B& block, Arr row, std::int64_t base, std::int64_t vocab, SoftmaxStats st,
                                     float threshold) {
  block.ForEachThread([&](Thread t) {
    ForEachLaneEntry<kLaneSumGroup>(
        t.x, vocab, kCanonicalLanes, [&](std::int64_t i) { return row.Load(base + i); },
        [&](std::int64_t i, float x) {
          if (!IsNegInf(x) && !(st.Prob(x) >= threshold)) row.Store(base + i, NegativeInfinity());
        });
  });
  block.Sync();
}

// Keeps only the first entry of the canonical order.
template <class B, class Arr>
SAMPCHECK_KERNEL_BODY void KeepFirst(B& block, Arr row, std::int64_t base, std::int64_t vocab) {
  const std::uint64_t first = SelectKth(block, row, base, vocab, false, 1);
  block.ForEachThread([&](Thread t) {
    ForEachLaneEntry<kLaneSumGroup>(
        t.x, vocab, kCanonicalLanes, [&](std::int64_t i) { return row.Load(base + i); },
        [&](std::int64_t i, float x) {
          if (OrderKey(x, i, false) != first) row.Store(base + i, NegativeInfinity());
        });
  });
  block.Sync();
}

// MinPRow on row[base, base + vocab), in place.
template <class B, class Arr>
SAMPCHECK_KERNEL_BODY void MinPStep(B& block, Arr row, std::int64_t base, std::int64_t vocab, float m,
                                    const MinPRule& rule) {
  if (!(m > 0.0f)) return;
  if (rule.first_only_at_one && m >= 1.0f) return KeepFirst(block, row, base, vocab);
  const SoftmaxStats st = RowSoftmaxStats(block, row, base, vocab);
  const float threshold = MinPThreshold(RowMaxProb(block, row, base, vocab, st), m);
  MinPApply(block, row, base, vocab, st, threshold);
}

struct MinPKernel {
  static constexpr const char* kName = "min_p";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class Arr, class P>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, Arr logits, Arr out, P min_p, std::int64_t vocab, std::int64_t pitch,
                                        MinPRule rule, DegenerateRowRule degenerate) const {
    const std::int64_t row = block.index();
    const float m = min_p.Load(row);
    if (CopyRowFindingDegenerate(block, logits, row * pitch, out, row * vocab, vocab)) {
      return DegenerateSoftmaxFilterStep(block, out, row * vocab, vocab, m > 0.0f, degenerate);  // m <= 0: disabled
    }
    MinPStep(block, out, row * vocab, vocab, m, rule);
  }
};

}  // namespace sampcheck::gpu
