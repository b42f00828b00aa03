// SPDX-License-Identifier: Apache-2.0
#pragma once
// gpu-fast's spec_random kernel: rejection sampling of speculative drafts given the noise
// (docs/spec/speculative.md "spec_random", profiles vllm and flashinfer), written as production
// verifiers are: the acceptance tests read one scalar per position; the recovered or bonus
// token is one pass over the row, vLLM's race as a block reduction of order keys
// (fast_detail::FastBlockReduce) and FlashInfer's residual draw as the fused sampler's block-scan
// inverse CDF (fast_detail::FastBlockInverseCdf, gpu/fast/fast_sampling.cuh). NOT bit-exact:
// FlashInfer's residual sums are taken in the block scan's free order, so a token whose
// cumulative boundary lies within rounding of x may differ from the reference's sequential scan;
// the backend is judged by the statistical harness only (docs/gpu.md "gpu-fast"). The bit-exact
// kernels are gpu/kernels/spec_random.cuh, whose residual rule (SpecResidual) this kernel shares.
//
// Contract:
// - One block of kThreads threads (a multiple of 32, at most 1024) per request b. target:
//   rows x (K + 1) x V f32; draft: rows x K x V f32 (absent under vllm: n-gram drafts, draft
//   prob 1); drafts rows x K i32; counts rows i64 (n_b); noise: vllm u f64 rows x K, q and
//   bonus_q f32 rows x V; flashinfer u f32 rows x (K + 1). Every input checked by the caller as
//   the reference's parse (reference/spec_random.h ParseSpecRandom, through
//   gpu/backend/draws_glue.h PrepareSpecRandom).
// - k = the first rejected position, n_b when every draft is accepted:
//   vllm: draft i accepted iff dp > 0 and f64(tp / dp) >= u_i (one f32 division, widened);
//   flashinfer: iff u_i * dp < tp (one f32 product). Comparisons are IEEE: NaN rejects.
// - vllm token: at a rejection the first maximum over every j of r_j * f32(1 / q_j), r_j =
//   SpecResidual(t_j, d_j) (n-gram: t_j, the draft's own entry 0), a NaN score never winning
//   (index 0 when every score is NaN); all accepted, argmax_j t_j / bonus_q_j with the first NaN
//   winning (torch.argmax). A minimum over 64-bit keys (value key << 32 | j, NaN mapped as stated):
//   a total order, so the free reduction order gives the reference's token.
// - flashinfer token: x = u * total with u = u_{min(k + 1, n)} at a rejection, u_n for the
//   bonus; FastBlockInverseCdf over w_j = SpecResidual(t_j, d_j) (bonus: SpecResidual(t_j, 0)),
//   total in the block scan's order; when x is not below the total (u = 1, a +inf weight, an
//   all-zero residual) the token is V - 1, the reference's fallback.
// - Reads: the token's pass reads each row it needs (t; d for a residual; vllm's q or bonus_q)
//   four entries a load (SpecEntries below), each thread the same entries whatever the rows'
//   addresses (FixedQuadSpanOf, gpu/block/quad_reads.cuh); one entry a load before 2026-12-03.
// - emitted[b] = drafts[0, k), the token, then -1; accepted[b] = k.
// - Deterministic for a given kThreads (no atomics); the distributional tier between block sizes
//   and against the reference (flashinfer's draw only; vllm's token is the reference's).
// - bug plants a fault for the harness's negative control (`wrong:` variants,
//   harness/wrong/wrong_gpu_fast_speculative.cc): kSpecRandomRecoveredFromTarget draws the
//   recovered token from the target row t instead of the residual max(t - d, 0) (both profiles).
//   kNone in every real backend.
// Example (flashinfer): V = 4, one draft x = 0 with t_0 = {0.25, 0.25, 0.5, 0}, d_0 = {0.5, 0.5,
//   0, 0}, u = {0.75, 0.25}: 0.75 * 0.5 < 0.25 fails, so k = 0 and the residual {0, 0, 0.5, 0}
//   (x = 0.125) gives token 2: emitted {2, -1}, num_accepted 0; the planted fault draws from t_0
//   with x = 0.25, C = {0.25, 0.5, 1}: token 1 (tests/gpu_fast_spec_random_test.cc).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/block/quad.h"
#include "gpu/block/quad_reads.cuh"
#include "gpu/fast/fast_sampling.cuh"
#include "gpu/fast/fast_spec_random_launch.h"
#include "gpu/kernels/spec_random.cuh"

namespace sampcheck::gpu {

namespace fast_detail {

// Entry i of the rows a position reads: the target's t, the draft's d (0 when not read) and
// the race's q (1 when not read).
struct SpecEntry {
  float t, d, q;
};

// Those rows as one source four entries a load (Load, Load4, OffBoundary: gpu/block/quad_reads.cuh),
// for FixedQuadSpanOf only (the rows have no one head): when any row read starts off a 16-byte
// boundary, every quad is loaded one entry at a time (LoadQuad's `scalar`).
template <class In>
struct SpecEntries {
  In target, draft, q;
  std::int64_t at = 0, draft_at = 0, q_at = 0;
  bool reads_draft = false, reads_q = false;
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE SpecEntry Load(std::int64_t i) const {
    return {target.Load(at + i), reads_draft ? draft.Load(draft_at + i) : 0.0f, reads_q ? q.Load(q_at + i) : 1.0f};
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE Quad<SpecEntry> Load4(std::int64_t i) const {
    const auto t = target.Load4(at + i);
    Quad<float> d{{0.0f, 0.0f, 0.0f, 0.0f}}, r{{1.0f, 1.0f, 1.0f, 1.0f}};
    if (reads_draft) d = draft.Load4(draft_at + i);
    if (reads_q) r = q.Load4(q_at + i);
    Quad<SpecEntry> e;
    for (int j = 0; j < 4; ++j) e.v[j] = {t.v[j], d.v[j], r.v[j]};
    return e;
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE bool OffBoundary(std::int64_t i) const {
    return target.BoundaryGap(at + i) != 0 || (reads_draft && draft.BoundaryGap(draft_at + i) != 0) ||
           (reads_q && q.BoundaryGap(q_at + i) != 0);
  }
};

}  // namespace fast_detail

template <int kBlockThreads>
struct FastSpecRandomKernel {
  static constexpr const char* kName = "fast_spec_random";
  static constexpr int kThreads = kBlockThreads;
  static_assert(kThreads % kWarpSize == 0 && kThreads >= kWarpSize && kThreads <= 1024,
                "one block of whole warps, at most 1024 threads");

  template <class B, class In, class Drafts, class Counts, class U64, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In target, In draft, bool has_draft, Drafts drafts, Counts counts,
                                        U64 u64, In u32, In q, In bonus_q, Out emitted, Out accepted,
                                        std::int64_t width, std::int64_t vocab, bool vllm, FastSamplingBug bug) const {
    const std::int64_t row = block.index();
    const std::int64_t n = counts.Load(row);
    // The acceptance tests: one scalar per position, read by every thread (block-uniform).
    std::int64_t k = n;
    bool rejected = false;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int32_t x = drafts.Load(row * width + i);
      const float tp = target.Load((row * (width + 1) + i) * vocab + x);
      const float dp = has_draft ? draft.Load((row * width + i) * vocab + x) : 1.0f;
      const bool accept =
          vllm ? dp > 0.0f && static_cast<double>(tp / dp) >= u64.Load(row * width + i)
               : u32.Load(row * (width + 1) + i) * dp < tp;
      if (accept) continue;
      k = i;
      rejected = true;
      break;
    }
    const std::int64_t at = (row * (width + 1) + k) * vocab;
    const std::int64_t draft_at = (row * width + k) * vocab;
    const std::int64_t rejected_id = rejected ? drafts.Load(row * width + k) : -1;
    const bool from_target = bug == FastSamplingBug::kSpecRandomRecoveredFromTarget;
    // The rows read, four entries a load, each thread the same entries whatever the rows'
    // addresses (FixedQuadSpanOf): the target's, the draft's for a residual, vllm's q (a
    // rejection) or bonus_q (every draft accepted).
    const fast_detail::SpecEntries<In> entries{
        target, draft, rejected ? q : bonus_q, at, draft_at, row * vocab, rejected && has_draft && !from_target, vllm};
    const QuadSpan span = FixedQuadSpanOf(entries, 0, vocab);
    // The recovered token's weights (the residual), or the bonus position's target row.
    // (vllm's bonus race reads t itself.)
    auto weight = [&](std::int64_t i, const fast_detail::SpecEntry& e) {
      if (!rejected) return SpecResidual(e.t, 0.0f);
      if (from_target) return e.t;
      if (!has_draft) return i == rejected_id ? 0.0f : e.t;  // n-gram: r = t with the draft's entry 0
      return SpecResidual(e.t, e.d);
    };
    std::int64_t token = 0;
    if (vllm) {
      auto best = Registers<std::uint64_t>(block);
      block.ForEachThread([&](Thread th) {
        std::uint64_t b = fast_detail::kNoKey;
        ForEachQuadElement(entries, 0, span, kThreads, th.x, [&](std::int64_t i, const fast_detail::SpecEntry& e) {
          std::uint64_t key;
          if (rejected) {
            const float s = weight(i, e) * (1.0f / e.q);  // vLLM: prob * q.reciprocal()
            key = fast_detail::OrderKey(IsNan(s) ? NegativeInfinity() : s, i);
          } else {
            const float s = e.t / e.q;
            key = IsNan(s) ? static_cast<std::uint64_t>(i) : fast_detail::OrderKey(s, i);  // NaN first
          }
          if (key < b) b = key;
        });
        best[th] = b;
      });
      const std::uint64_t won =
          fast_detail::FastBlockReduce<kThreads, std::uint64_t>(block, best, fast_detail::KeyMin{});
      token = static_cast<std::int64_t>(won & 0xffffffffu);
    } else {
      const std::int64_t ui = rejected ? (k + 1 < n ? k + 1 : n) : n;
      const float u = u32.Load(row * (width + 1) + ui);
      float total = 0.0f;
      const std::int64_t j = fast_detail::FastBlockInverseCdf<kThreads>(
          block, vocab, fast_detail::WeightsOfValues(entries, weight), [&](float sum) { return u * sum; }, total);
      token = j < 0 || !(u * total < total) ? vocab - 1 : j;
    }
    block.ForEachThread([&](Thread th) {
      for (std::int64_t i = th.x; i <= width; i += kThreads) {
        std::int64_t v = -1;
        if (i < k) v = drafts.Load(row * width + i);
        if (i == k) v = token;
        emitted.Store(row * (width + 1) + i, v);
      }
      if (th.x == 0) accepted.Store(row, k);
    });
  }
};

}  // namespace sampcheck::gpu
