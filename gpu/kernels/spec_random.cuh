// SPDX-License-Identifier: Apache-2.0
#pragma once
// spec_random kernels: rejection sampling of speculative drafts with the noise given, one
// kernel per profile rule, bit-exact with reference/spec_random.h
// (docs/spec/speculative.md "spec_random": "vllm", "flashinfer", "typical_acceptance").
//
// Contract shared by the three kernels:
// - One block per request row b: 1024 threads, or one warp of 32 for vllm and flashinfer when
//   V <= kOneWarpVocab (gpu/block/block_argmax.cuh; the result is the same); typical_acceptance
//   always 1024, since its canonical sum needs the 1024 lanes. target: rows x (K + 1) x V f32 (position i at
//   (b (K + 1) + i) V); draft: rows x K x V f32 (position i at (b K + i) V); drafts: rows x K
//   i32; counts: rows i64 (n_b, counted and checked by the caller with the reference's
//   DraftCounts); every input already checked as the reference checks it (probabilities >= 0,
//   NaN or +inf; noise in its domain). Outputs emitted rows x (K + 1) i64 and accepted rows i64.
// - Position k = the first rejected draft, or n_b when all are accepted. emitted[b] = the k
//   accepted drafts, then the final token (recovered at a rejection, bonus otherwise), then -1;
//   num_accepted = k (WriteSpecOutcome).
// - The acceptance tests of vllm and flashinfer read one scalar per position: every thread
//   evaluates them itself, in position order (identical loads, a broadcast on the device), so
//   the block knows k without a reduction. Then exactly one reduction or draw over V entries.
// - Ties: the lowest index. Exact/canonical tier: bitwise given the noise.
//
// SpecRandomVllmKernel (vllm/v1/sample/rejection_sampler.py): u f64 rows x K in [0, 1); q and
//   bonus_q f32 rows x V, finite > 0. has_draft = false: n-gram drafts (draft prob := 1).
//   Draft i is accepted iff dp > 0 and f64(tp / dp) >= u_i (tp = target[i][x], dp = draft[i][x]:
//   one f32 division, widened exactly). At a rejection the token is the first maximum over
//   EVERY j of r_j * f32(1 / q_j) (vLLM 9aaf83ef: prob * q.reciprocal()) with
//   r_j = max(t_j - d_j, +0) (one f32 subtraction; -0 and negatives become +0), n-gram: r = t
//   with r_x = 0. All accepted: target[n][j] / bonus_q_j in ArgmaxAbove's order (the first
//   NaN, else the first maximum), as the reference's RaceArgmax. The recovered scores are in
//   [0, +inf] or NaN (a NaN target probability, or 0 * f32(1 / q) = 0 * inf for a q below
//   2^-128); a NaN score is scored -inf, below every other score, so ArgmaxAbove gives the
//   reference's RaceArgmaxReciprocal: the first maximum of the scores that are not NaN, 0 when
//   every score is NaN (docs/spec/speculative.md "Degenerate rows"; an all-zero r gives 0).
// SpecRandomFlashinferKernel (flashinfer sampling.cuh ChainSpeculativeSampling): u f32
//   rows x (K + 1) in [0, 1]. Draft i is accepted iff u_i * dp < tp (one f32 product). At a
//   rejection the token is BlockInverseCdfDraw (gpu/kernels/inverse_cdf.cuh: the sequential f32
//   running sum, x = u * C_{V-1}, the first j with r_j > 0 and x < C_j, else V - 1) over
//   r_j = max(t_j - d_j, +0) with u_{min(k + 1, n)}; all accepted: the same draw over
//   r_j = max(target[n][j] - 0, +0) with u_n. SpecResidual makes a NaN +0; a +inf weight makes
//   the serial running sum +inf and x = u * inf never below it: the fallback V - 1, as the
//   reference's scan.
// SpecRandomTypicalKernel (Medusa, vLLM v0 TypicalAcceptanceSampler): bonus_q f32 rows x V;
//   threshold and alpha f32. For each position i < n_b until a rejection (a block-level loop
//   over K with a per-thread stop flag, as gpu/kernels/spec_greedy.cuh):
//     S = canonical sum over j of t_j * LogF32Cr(t_j + 1e-5f) (gpu/block/block_reduce.cuh; each
//         term one f32 addition, one owned log, one f32 product)
//     threshold_i = min(threshold, ExpF32Cr(S) * alpha) (torch.minimum: threshold unless the
//         product is smaller or NaN), accept iff t[x] > threshold_i.
//   At a rejection the token is CanonicalArgmax(target[k]) (ArgmaxAbove); all accepted: the
//   first maximum of target[n][j] / bonus_q_j.
// Examples (tests/gpu_kernels_test.cc, GpuSpecRandom): vllm, V = 2, draft 0 with dp = 0.5,
// tp = 0.25, u = 0.75: 0.5 >= 0.75 fails, r = {0, 0.5}, q = {1, 1} -> emitted {1, -1},
// num_accepted 0.

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/kernels/greedy.cuh"
#include "gpu/kernels/inverse_cdf.cuh"
#include "reference/math/exp.h"
#include "reference/math/log.h"

namespace sampcheck::gpu {

// max(t - d, +0): one f32 subtraction; a negative or zero difference (or -0.0) becomes +0.0.
SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float SpecResidual(float t, float d) {
  const float r = t - d;
  return r > 0.0f ? r : 0.0f;
}

// emitted[b] = drafts[0, k), token, then -1; accepted[b] = k. Every thread holds k and token.
template <int kLanes, class B, class Drafts, class Out, class R>
SAMPCHECK_KERNEL_BODY void WriteSpecOutcome(B& block, Drafts drafts, Out emitted, Out accepted, std::int64_t row,
                                            std::int64_t width, const R& k, const R& token) {
  block.ForEachThread([&](Thread t) {
    for (std::int64_t i = t.x; i <= width; i += kLanes) {
      std::int64_t v = -1;
      if (i < k[t]) v = drafts.Load(row * width + i);
      if (i == k[t]) v = token[t];
      emitted.Store(row * (width + 1) + i, v);
    }
    if (t.x == 0) accepted.Store(row, k[t]);
  });
}

template <int kBlock = kCanonicalLanes>
struct SpecRandomVllmKernel {
  static constexpr const char* kName = "spec_random_vllm";
  static constexpr int kThreads = kBlock;

  template <class B, class In, class Drafts, class Counts, class U, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In target, In draft, bool has_draft, Drafts drafts, Counts counts,
                                        U u, In q, In bonus_q, Out emitted, Out accepted, std::int64_t width,
                                        std::int64_t vocab) const {
    const std::int64_t row = block.index();
    auto k = Registers<std::int64_t>(block);
    auto rejected = Registers<bool>(block);
    auto rejected_id = Registers<std::int32_t>(block);  // the draft rejected, -1 when none
    block.ForEachThread([&](Thread t) {
      const std::int64_t n = counts.Load(row);
      k[t] = n;
      rejected[t] = false;
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int32_t x = drafts.Load(row * width + i);
        const float tp = target.Load((row * (width + 1) + i) * vocab + x);
        const float dp = has_draft ? draft.Load((row * width + i) * vocab + x) : 1.0f;
        if (dp > 0.0f && static_cast<double>(tp / dp) >= u.Load(row * width + i)) continue;
        k[t] = i;
        rejected[t] = true;
        break;
      }
      rejected_id[t] = rejected[t] ? drafts.Load(row * width + k[t]) : -1;
    });
    auto value = Registers<float>(block);
    auto index = Registers<std::int64_t>(block);
    RowArgmax<kBlock>(block, vocab, value, index, ArgmaxAboveF32{}, [&](Thread t, std::int64_t i, float& r) {
      const std::int64_t at = (row * (width + 1) + k[t]) * vocab;
      if (!rejected[t]) {
        r = target.Load(at + i) / bonus_q.Load(row * vocab + i);
      } else {
        const std::int64_t draft_at = (row * width + k[t]) * vocab;
        const float w = has_draft ? SpecResidual(target.Load(at + i), draft.Load(draft_at + i))
                                  : (i == rejected_id[t] ? 0.0f : target.Load(at + i));
        r = w * (1.0f / q.Load(row * vocab + i));  // vLLM: prob * q.reciprocal()
        if (IsNan(r)) r = NegativeInfinity();       // a NaN score never wins; all NaN: 0
      }
      return true;
    });
    WriteSpecOutcome<kBlock>(block, drafts, emitted, accepted, row, width, k, index);
  }
};

template <int kBlock = kCanonicalLanes>
struct SpecRandomFlashinferKernel {
  static constexpr const char* kName = "spec_random_flashinfer";
  static constexpr int kThreads = kBlock;

  template <class B, class In, class Drafts, class Counts, class U, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In target, In draft, Drafts drafts, Counts counts, U u, Out emitted,
                                        Out accepted, std::int64_t width, std::int64_t vocab) const {
    const std::int64_t row = block.index();
    auto k = Registers<std::int64_t>(block);
    auto rejected = Registers<bool>(block);
    auto draw_u = Registers<float>(block);
    block.ForEachThread([&](Thread t) {
      const std::int64_t n = counts.Load(row);
      k[t] = n;
      rejected[t] = false;
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int32_t x = drafts.Load(row * width + i);
        const float tp = target.Load((row * (width + 1) + i) * vocab + x);
        const float dp = draft.Load((row * width + i) * vocab + x);
        if (u.Load(row * (width + 1) + i) * dp < tp) continue;
        k[t] = i;
        rejected[t] = true;
        break;
      }
      // The kernel reads uniform_samples[row][min(pos + 1, n)] after a rejection: the next
      // position's uniform, never the one the acceptance test used; u_n for the bonus.
      const std::int64_t ui = rejected[t] ? (k[t] + 1 < n ? k[t] + 1 : n) : n;
      draw_u[t] = u.Load(row * (width + 1) + ui);
    });
    auto weight = [&](Thread t, std::int64_t i) {
      const float tj = target.Load((row * (width + 1) + k[t]) * vocab + i);
      return SpecResidual(tj, rejected[t] ? draft.Load((row * width + k[t]) * vocab + i) : 0.0f);
    };
    auto token = BlockInverseCdfDraw<kBlock>(block, weight, vocab, draw_u, false);
    WriteSpecOutcome<kBlock>(block, drafts, emitted, accepted, row, width, k, token);
  }
};

struct SpecRandomTypicalKernel {
  static constexpr const char* kName = "spec_random_typical_acceptance";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class In, class Drafts, class Counts, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In target, Drafts drafts, Counts counts, In bonus_q,
                                        float posterior_threshold, float posterior_alpha, Out emitted, Out accepted,
                                        std::int64_t width, std::int64_t vocab) const {
    const std::int64_t row = block.index();
    auto n = Registers<std::int64_t>(block);
    auto stop = Registers<std::int64_t>(block);  // -1 while verifying, then the rejected position
    block.ForEachThread([&](Thread t) {
      n[t] = counts.Load(row);
      stop[t] = -1;
    });
    auto lane = Registers<float>(block);
    for (std::int64_t i = 0; i < width; ++i) {
      const std::int64_t at = (row * (width + 1) + i) * vocab;
      block.ForEachThread([&](Thread t) {
        float acc = -0.0f;  // the canonical sum's identity
        if (stop[t] < 0 && i < n[t]) {
          for (std::int64_t j = t.x; j < vocab; j += kCanonicalLanes) {
            const float tj = target.Load(at + j);
            acc = acc + tj * math::LogF32Cr(tj + 1e-5f);
          }
        }
        lane[t] = acc;
      });
      auto s = CanonicalBlockReduce<float>(block, lane, SumCombine{});
      block.ForEachThread([&](Thread t) {
        if (stop[t] >= 0 || i >= n[t]) return;
        const float scaled = math::ExpF32Cr(s[t]) * posterior_alpha;
        // torch.minimum: a NaN product gives a NaN threshold, which no draft passes.
        const float threshold = IsNan(scaled) || scaled < posterior_threshold ? scaled : posterior_threshold;
        const std::int32_t x = drafts.Load(row * width + i);
        if (!(target.Load(at + x) > threshold)) stop[t] = i;
      });
    }
    auto k = Registers<std::int64_t>(block);
    auto value = Registers<float>(block);
    auto index = Registers<std::int64_t>(block);
    block.ForEachThread([&](Thread t) { k[t] = stop[t] >= 0 ? stop[t] : n[t]; });
    RowArgmax<kCanonicalLanes>(block, vocab, value, index, ArgmaxAboveF32{}, [&](Thread t, std::int64_t i, float& r) {
      const float tj = target.Load((row * (width + 1) + k[t]) * vocab + i);
      r = stop[t] >= 0 ? tj : tj / bonus_q.Load(row * vocab + i);  // rejected: the target's argmax
      return true;
    });
    WriteSpecOutcome<kCanonicalLanes>(block, drafts, emitted, accepted, row, width, k, index);
  }
};

}  // namespace sampcheck::gpu
