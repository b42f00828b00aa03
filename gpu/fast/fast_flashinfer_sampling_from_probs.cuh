// SPDX-License-Identifier: Apache-2.0
#pragma once
// gpu-fast's flashinfer_sampling_from_probs kernel: FlashInfer's four rejection samplers from
// probabilities given their uniforms (docs/spec/flashinfer_sampling_from_probs.md), every sum
// in a free order as FlashInfer's own kernels take them (CUB BlockReduce / BlockScan over the
// block's threads): the round's inverse CDF is the fused sampler's block scan
// (fast_detail::FastBlockInverseCdf) and the pivots' counts and masses FastBlockReduce
// (gpu/fast/fast_sampling.cuh). NOT bit-exact: a running sum or a mass within rounding of t or
// of top_p may decide the other way than the reference's index-order sums, so it is judged by the
// statistical harness only (docs/gpu.md "gpu-fast"); the bit-exact kernel is
// gpu/kernels/flashinfer_sampling_from_probs.cuh, whose acceptance rule (FlashinferAccept) and
// kinds this kernel shares.
//
// Contract:
// - One block of kThreads threads (a multiple of 32, at most 1024) per row. probs: rows x pitch
//   f32, every entry >= 0 or NaN (checked by the caller: reference::ParseFlashinferSamplingFromProbs);
//   top_k u32 (the uint32 view of the i32 input), top_p, min_p f32 per row (finite; a kind ignores
//   what it does not read); u: rows x width f32 in (0, 1]. Outputs per row: token i64, valid u8,
//   rounds i32 (-1: the row needs more than `width` uniforms; the glue reports it as the
//   reference does).
// - The rules are the spec's, round by round, with free-order sums:
//   rejection kinds (top_k_top_p, top_k, top_p): low = 0, high = 1, q = 1; round r:
//   t = u[b, r] * q; the token is FastBlockInverseCdf over w_i = p_i if p_i > low else 0 with
//   target t (the first valid i whose running sum exceeds t, else the last valid i; no valid i:
//   token 0, invalid). pivot0 = p[token], pivot1 = (pivot0 + high) * 0.5 (IEEE f32); count and
//   mass of p > pivot for both (strict: ties at a pivot go together; NaN compares false).
//   FlashinferAccept(pivot0): emit; FlashinferAccept(pivot1): low = pivot0, high = pivot1,
//   q = mass0; else low = pivot1, q = mass1; !(low < high): emit the last token.
//   min_p: m = max over the row from 0 (NaN ignored), pivot = m * min_p, valid p >= pivot; one
//   round, t = u[b, 0] * (mass of the valid entries); a token of probability 0 is drawn only when
//   every valid entry is 0 (then the last valid index, as the scan's fallback; the reference's
//   fallback may also land on a trailing zero when t rounds up to the total, an event of
//   probability 0 under the law).
//   Reads: each round's inverse CDF reads the row, and one more read gives both pivots' counts
//   and masses (two until 2026-12-03); every read takes four entries a load, each thread the
//   same entries whatever the row's address (FixedQuadSpanOf), but top_k_first's select: its
//   sample (at most 4096 entries, one a load), its count and gather reads (ShareOf,
//   gpu/block/thread_share.cuh: by quads from 4096 entries on) and the radix select's when the
//   sample misses (PartitionKeys, gpu/block/key_reads.cuh: quads from the array's boundary),
//   whose exact counts do not depend on which thread reads what. Until 2026-12-03 top_k_first
//   took the radix select alone, 8 + (index digits) reads one entry a load.
//   top_k_first (top_k_top_p only): the row is read through top_k_renorm_probs: the k-th
//   largest non-NaN value is the key of rank k among the descending order keys (NaN keyed as
//   -1, after every probability; SelectKthKeyBySample, gpu/block/sample_select.cuh: exact),
//   kept p >= it (every non-NaN entry when k >= their count, none
//   when k = 0), scaled by f32(1 / max(S, 1e-8)), S the kept mass (free order); then the top_p
//   kind on that row. Nothing row-sized is written: the renormalised value is recomputed at
//   every read.
// - Deterministic for a given kThreads (no atomics); between block sizes and against the
//   reference, tokens and round counts may differ where sums round differently: the
//   distributional tier. Block-level loops read block-uniform values only (BlockUniform).
// - bug plants a fault for the harness's negative control (`wrong:` variants,
//   harness/wrong/wrong_gpu_fast_speculative.cc): kFlashinferMassIncludesPivot counts and sums
//   p >= pivot instead of p > pivot (the sampled token's own probability counted above it, a
//   comparison written with >= for >), so the boundary token of top-k and top-p is rejected.
//   kNone in every real backend.
// Example: probs {0.5, 0.25, 0.25}, kind top_p, top_p 0.6, u {0.6, 0.5}: round 0 t = 0.6 draws
//   token 1 (running sums 0.5, 0.75: dyadic, exact in any order), whose mass above is 0.5 < 0.6:
//   token 1, valid, 1 round; the planted fault counts 1.0 above it, rejects it and emits token 0
//   after 2 rounds (tests/gpu_fast_flashinfer_sampling_from_probs_test.cc).

#include <cstdint>
#include <limits>

#include "gpu/block/block_model.h"
#include "gpu/block/radix_select.cuh"
#include "gpu/block/sample_select.cuh"
#include "gpu/fast/fast_flashinfer_sampling_from_probs_launch.h"
#include "gpu/fast/fast_sampling.cuh"
#include "gpu/kernels/flashinfer_sampling_from_probs.cuh"

namespace sampcheck::gpu {

namespace fast_detail {

// Count and mass of the weights above two pivots (p > pivot; p >= pivot under the planted
// fault) from one read, as FlashInfer's kernels take both pivots' aggregates in one loop over
// the row: each_weight(th, f) gives thread th's f(w) over its share; four FastBlockReduce calls,
// exact counts, free-order f32 masses.
template <int kThreads, class B, class EachWeight>
SAMPCHECK_KERNEL_BODY void FastFlashinferAbove(B& block, EachWeight each_weight, const float (&pivot)[2],
                                               bool counts_pivot, std::int64_t (&count)[2], float (&mass)[2]) {
  auto c0 = Registers<std::uint32_t>(block);
  auto c1 = Registers<std::uint32_t>(block);
  auto m0 = Registers<float>(block);
  auto m1 = Registers<float>(block);
  block.ForEachThread([&](Thread th) {
    std::uint32_t n[2] = {0, 0};
    float acc[2] = {0.0f, 0.0f};
    each_weight(th, [&](float w) {
      for (int p = 0; p < 2; ++p) {
        if (w > pivot[p] || (counts_pivot && w == pivot[p])) {
          ++n[p];
          acc[p] += w;
        }
      }
    });
    c0[th] = n[0], c1[th] = n[1];
    m0[th] = acc[0], m1[th] = acc[1];
  });
  count[0] = FastBlockReduce<kThreads, std::uint32_t>(block, c0, CountSum{});
  count[1] = FastBlockReduce<kThreads, std::uint32_t>(block, c1, CountSum{});
  mass[0] = FastBlockReduce<kThreads, float>(block, m0, FloatSum{});
  mass[1] = FastBlockReduce<kThreads, float>(block, m1, FloatSum{});
}

// top_k_first's keys: a row's descending order keys with NaN keyed as -1 (after every
// probability), as a QuadKeySource (gpu/block/key_reads.cuh), so that the select's reads take
// four entries a load.
template <class In>
struct ProbOrderKeys : RowOf<In> {
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t Key(std::int64_t i, float x) const {
    return OrderKey(IsNan(x) ? -1.0f : x, i);
  }
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE std::uint64_t operator()(std::int64_t i) const {
    return Key(i, this->Load(i));
  }
};

struct FloatMax {
  // fmaxf(a, b) with a never NaN: a NaN b compares false and is ignored. Commutative on what
  // its callers reduce: maxima from 0.0f, never NaN or -0.0.
  static constexpr float kIdentity = -std::numeric_limits<float>::infinity();
  SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float operator()(float a, float b) const { return b > a ? b : a; }
};

}  // namespace fast_detail

template <int kBlockThreads>
struct FastFlashinferSamplingFromProbsKernel {
  static constexpr const char* kName = "fast_flashinfer_sampling_from_probs";
  static constexpr int kThreads = kBlockThreads;
  static_assert(kThreads % kWarpSize == 0 && kThreads >= kWarpSize && kThreads <= 1024,
                "one block of whole warps, at most 1024 threads");

  template <class B, class In, class K, class U, class Token, class Valid, class Rounds>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In probs, K top_k, In top_p, In min_p, U u, Token token, Valid valid,
                                        Rounds rounds, std::int64_t vocab, std::int64_t pitch, std::int64_t width,
                                        FlashinferKind kind, bool top_k_first, FastSamplingBug bug) const {
    using fast_detail::FastBlockReduce;
    const std::int64_t row = block.index();
    const std::int64_t base = row * pitch;
    FlashinferRowRule rule;
    rule.kind = kind;
    rule.top_k = top_k.Load(row);
    rule.top_p = top_p.Load(row);
    auto raw = [&](std::int64_t i) { return probs.Load(base + i); };
    // Every read of the row but the radix select's: four entries a load, each thread the same
    // share whatever the row's address (FixedQuadSpanOf: a sum's order, hence a draw, must not
    // depend on where the batch puts the row).
    const QuadSpan span = FixedQuadSpanOf(probs, base, vocab);
    auto each_raw = [&](Thread th, auto&& f) { ForEachQuadElement(probs, base, span, kThreads, th.x, f); };
    // top_k_first: the pivot (k-th largest non-NaN value) and the renormalising factor.
    float keep_from = -1.0f;  // every p >= keep_from is kept (NaN never)
    float scale = 1.0f;
    bool keep_none = false;
    if (top_k_first) {
      auto finite = Registers<std::uint32_t>(block);
      block.ForEachThread([&](Thread th) {
        std::uint32_t n = 0;
        each_raw(th, [&](std::int64_t, float x) { n += IsNan(x) ? 0u : 1u; });
        finite[th] = n;
      });
      const std::uint32_t values =
          FastBlockReduce<kThreads, std::uint32_t>(block, finite, fast_detail::CountSum{});
      keep_none = rule.top_k == 0 || values == 0;
      if (!keep_none && rule.top_k < values) {
        SAMPCHECK_SHARED(block, std::uint64_t, select_slots, kSelectSlots);
        const std::uint64_t kth = SelectKthKeyBySample<kThreads>(
            block, vocab, fast_detail::ProbOrderKeys<In>{{probs, base}}, static_cast<std::int64_t>(rule.top_k),
            select_slots);
        keep_from = raw(static_cast<std::int64_t>(kth & 0xffffffffu));
      }
      auto kept = Registers<float>(block);
      block.ForEachThread([&](Thread th) {
        float acc = 0.0f;
        each_raw(th, [&](std::int64_t, float x) {
          if (x >= keep_from) acc += x;
        });
        kept[th] = acc;
      });
      const float sum = FastBlockReduce<kThreads, float>(block, kept, fast_detail::FloatSum{});
      scale = 1.0f / (sum > 1e-8f ? sum : 1e-8f);
      rule.kind = FlashinferKind::kTopP;
    }
    // The row the rounds read (the renormalised one under top_k_first); NaN stays NaN.
    auto weight_of = [&](float x) {
      if (!top_k_first || IsNan(x)) return x;
      return !keep_none && x >= keep_from ? x * scale : 0.0f;
    };
    auto weight = [&](std::int64_t i) { return weight_of(raw(i)); };
    auto each_weight = [&](Thread th, auto&& f) { each_raw(th, [&](std::int64_t, float x) { f(weight_of(x)); }); };
    // The inverse CDF's weights of the row's values g(w) (ValueWeights: chunks of whole quads).
    auto weights_by = [&](auto g) {
      return fast_detail::WeightsOfValues(RowOf{probs, base}, [=](std::int64_t, float x) { return g(weight_of(x)); });
    };
    auto store = [&](std::int64_t tok, bool ok, std::int32_t used) {
      block.ForEachThread([&](Thread th) {
        if (th.x != 0) return;
        token.Store(row, tok);
        valid.Store(row, ok ? 1 : 0);
        rounds.Store(row, used);
      });
    };
    float total = 0.0f;
    if (rule.kind == FlashinferKind::kMinP) {
      auto m = Registers<float>(block);
      block.ForEachThread([&](Thread th) {
        float acc = 0.0f;
        each_weight(th, [&](float w) { acc = fast_detail::FloatMax{}(acc, w); });
        m[th] = acc;
      });
      const float pivot =
          FastBlockReduce<kThreads, float>(block, m, fast_detail::FloatMax{}) * min_p.Load(row);
      const float ub = u.Load(row * width);
      std::int64_t j = fast_detail::FastBlockInverseCdf<kThreads>(
          block, vocab, weights_by([=](float w) { return w >= pivot ? w : 0.0f; }), [&](float sum) { return ub * sum; },
          total);
      if (j < 0) {  // every valid entry is 0 (or none is valid): the scan's last valid index
        auto last = Registers<std::int64_t>(block);
        block.ForEachThread([&](Thread th) {
          std::int64_t l = -1;
          each_raw(th, [&](std::int64_t i, float x) { l = weight_of(x) >= pivot ? i : l; });
          last[th] = l;
        });
        j = FastBlockReduce<kThreads, std::int64_t>(block, last, fast_detail::IndexMax{});
      }
      store(j < 0 ? 0 : j, j >= 0, 1);
      return;
    }
    const bool counts_pivot = bug == FastSamplingBug::kFlashinferMassIncludesPivot;
    float low = 0.0f, high = 1.0f, q = 1.0f;
    std::int64_t last_token = 0;
    for (std::int32_t r = 0;; ++r) {
      if (r == width) {
        store(0, false, -1);
        return;
      }
      const float t = u.Load(row * width + r) * q;
      const std::int64_t j = fast_detail::FastBlockInverseCdf<kThreads>(
          block, vocab, weights_by([=](float w) { return w > low ? w : 0.0f; }), [&](float) { return t; }, total);
      if (j < 0) {
        store(0, false, r + 1);
        return;
      }
      last_token = j;
      const float pivot0 = weight(j);
      const float pivots[2] = {pivot0, (pivot0 + high) * 0.5f};
      std::int64_t count[2] = {0, 0};
      float mass[2] = {0.0f, 0.0f};
      fast_detail::FastFlashinferAbove<kThreads>(block, each_weight, pivots, counts_pivot, count, mass);
      if (FlashinferAccept(rule, count[0], mass[0])) {
        store(last_token, true, r + 1);
        return;
      }
      if (FlashinferAccept(rule, count[1], mass[1])) {
        low = pivot0;
        high = pivots[1];
        q = mass[0];
      } else {
        low = pivots[1];
        q = mass[1];
      }
      if (!(low < high)) {  // the kernel's `while (low < high)` exit keeps the last sample
        store(last_token, true, r + 1);
        return;
      }
    }
  }
};

}  // namespace sampcheck::gpu
