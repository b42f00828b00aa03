// SPDX-License-Identifier: Apache-2.0
#pragma once
// Block verification (Sun et al. 2024, "Block Verification Accelerates Speculative Decoding",
// Algorithm 2), spec_step's block_verification profile, bit-exact with reference/spec_step.h's
// SpecVerifyBlock (docs/spec/spec_step.md) given the noise.
//
// Contract of SpecVerifyBlockKernel:
// - One block of kBlock threads per request row b (1024, or one warp when V <= kOneWarpVocab:
//   the sums are serial and the final argmax is a total order, so the result is the same).
//   target: rows x (K + 1) x V f32 probabilities, draft: rows x K x V (position layout of
//   gpu/kernels/spec_random.cuh), drafts rows x K i32, counts rows i64 (n_b), u f64 rows x K,
//   q and bonus_q f32 rows x V (finite > 0): all checked by the caller as the reference checks
//   them. Outputs emitted rows x (K + 1) i64, accepted rows i64 (WriteSpecOutcome).
// - Binary64 throughout, every sum the reference's: S = sum of double(p_j) in index order, by one
//   thread over the row staged in tiles (gpu/block/block_sequential.cuh); the normalised entry is
//   double(p_j) / S (0 when S <= 0). P_0 = 1; P_{i+1} = min(P_i t / d, 1) (std::min: 1 only when
//   1 < P_i t / d) with t, d the normalised target and draft at x_i; d = 0: 1 if P_i t > 0 else
//   0. For 1 <= i < n: N_i = sum over j in index order of max(P_i t_j - d_j, 0) (std::max: a
//   -0.0 difference stays), h_i = N_i / (N_i + (1 - P_i)) (a non-positive denominator: 1);
//   h_n = P_n. tau = the largest i in 1..n with u[i - 1] <= h_i, else 0 (the positions are
//   visited in order, so the last hit wins).
// - Final token: tau = n: the first maximum over j of target[n][j] / bonus_q[j]; else of
//   f32(max(P_tau t_j - d_j, 0)) / q[j] (one f32 division each; RaceArgmax's strict scan equals
//   ArgmaxAbove since no score is NaN). P_tau and the sums of position tau are kept in shared
//   memory when tau is set (no per-position array: K is not known at compile time).
// - Block-level loops over positions read n, P_i and the sums as block-uniform values (thread 0
//   writes them to shared memory, every thread reads them after a barrier).
// Example: n = 1, target {0.5, 0.5} / draft {1, 0} at position 0 with x_0 = 0: P_1 = min(0.5 /
//   1, 1) = 0.5 = h_1; u = 0.25 accepts (tau 1, the bonus drawn from target row 1 = {0, 1}:
//   token 1), u = 0.75 rejects: residual {max(0.5 - 1, 0), 0.5} = {0, 0.5} -> token 1
//   (tests/gpu_kernels_test.cc, GpuSpecVerifyBlock).

#include <cstdint>

#include "gpu/block/block_argmax.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/block_sequential.cuh"
#include "gpu/kernels/spec_random.cuh"

namespace sampcheck::gpu {

template <int kBlock = kCanonicalLanes>
struct SpecVerifyBlockKernel {
  static constexpr const char* kName = "spec_verify_block";
  static constexpr int kThreads = kBlock;

  template <class B, class In, class Drafts, class Counts, class U, class Out>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, In target, In draft, Drafts drafts, Counts counts, U u, In q,
                                        In bonus_q, Out emitted, Out accepted, std::int64_t width,
                                        std::int64_t vocab) const {
    const std::int64_t row = block.index();
    SAMPCHECK_SHARED(block, double, uniform, 2);  // the sums of the current position
    SAMPCHECK_SHARED(block, double, weight, 1);   // P_i
    SAMPCHECK_SHARED(block, std::int64_t, tau_shared, 1);
    std::int64_t n = 0;
    block.ForEachThread([&](Thread t) {
      n = counts.Load(row);
      if (t.x == 0) {
        weight.Store(0, 1.0);
        tau_shared.Store(0, 0);
      }
    });
    block.Sync();
    auto target_at = [&](std::int64_t i) { return (row * (width + 1) + i) * vocab; };
    auto draft_at = [&](std::int64_t i) { return (row * width + i) * vocab; };
    auto acc = Registers<double>(block);
    // The two sums of position i, broadcast: S_target, S_draft.
    auto sums = [&](std::int64_t i, double& st, double& sd) {
      for (int which = 0; which < 2; ++which) {
        block.ForEachThread([&](Thread t) { acc[t] = 0.0; });
        BlockSequentialFold<kBlock, double>(
            block,
            [&](Thread, std::int64_t j) {
              return static_cast<double>(which == 0 ? target.Load(target_at(i) + j) : draft.Load(draft_at(i) + j));
            },
            vocab, [&](Thread t, std::int64_t, double x) {
              acc[t] = acc[t] + x;
              return false;
            });
        block.ForEachThread([&](Thread t) {
          if (t.x == 0) uniform.Store(which, acc[t]);
        });
        block.Sync();
      }
      block.ForEachThread([&](Thread) {
        st = uniform.Load(0);
        sd = uniform.Load(1);
      });
      block.Sync();
    };
    // max(P t_j - d_j, 0) of the reference (std::max keeps a -0.0 difference).
    auto excess = [&](double p, double st, double sd, std::int64_t i, std::int64_t j) {
      const double tj = st > 0.0 ? static_cast<double>(target.Load(target_at(i) + j)) / st : 0.0;
      const double dj = sd > 0.0 ? static_cast<double>(draft.Load(draft_at(i) + j)) / sd : 0.0;
      const double e = p * tj - dj;
      return e < 0.0 ? 0.0 : e;
    };
    // What the final draw needs of position tau (P_tau and its two sums), kept when tau is set:
    // position 0's at first (tau = 0), overwritten by each later position that accepts.
    SAMPCHECK_SHARED(block, double, at_tau, 3);
    for (std::int64_t i = 0; i < n; ++i) {
      double st = 0.0, sd = 0.0, p = 1.0;
      sums(i, st, sd);
      block.ForEachThread([&](Thread) { p = weight.Load(0); });
      block.Sync();
      if (i >= 1) {
        block.ForEachThread([&](Thread t) { acc[t] = 0.0; });
        BlockSequentialFold<kBlock, double>(
            block, [&](Thread, std::int64_t j) { return excess(p, st, sd, i, j); }, vocab,
            [&](Thread t, std::int64_t, double x) {
              acc[t] = acc[t] + x;
              return false;
            });
      }
      block.ForEachThread([&](Thread t) {
        if (t.x != 0) return;
        bool keep = i == 0;
        if (i >= 1) {
          const double denominator = acc[t] + (1.0 - p);
          const double h = denominator > 0.0 ? acc[t] / denominator : 1.0;
          keep = u.Load(row * width + i - 1) <= h;
        }
        if (keep) {
          tau_shared.Store(0, i);
          at_tau.Store(0, p);
          at_tau.Store(1, st);
          at_tau.Store(2, sd);
        }
        const std::int32_t x = drafts.Load(row * width + i);
        const double tx = st > 0.0 ? static_cast<double>(target.Load(target_at(i) + x)) / st : 0.0;
        const double dx = sd > 0.0 ? static_cast<double>(draft.Load(draft_at(i) + x)) / sd : 0.0;
        const double num = p * tx;
        double next = num > 0.0 ? 1.0 : 0.0;  // d = 0
        if (dx > 0.0) {
          const double ratio = num / dx;
          next = 1.0 < ratio ? 1.0 : ratio;  // std::min(ratio, 1.0)
        }
        weight.Store(0, next);
      });
      block.Sync();
    }
    // h_n = P_n.
    block.ForEachThread([&](Thread t) {
      if (t.x == 0 && n >= 1 && u.Load(row * width + n - 1) <= weight.Load(0)) tau_shared.Store(0, n);
    });
    block.Sync();
    std::int64_t tau = 0;
    double p_tau = 1.0, st_tau = 0.0, sd_tau = 0.0;
    block.ForEachThread([&](Thread) {
      tau = tau_shared.Load(0);
      if (tau < n) {
        p_tau = at_tau.Load(0);
        st_tau = at_tau.Load(1);
        sd_tau = at_tau.Load(2);
      }
    });
    block.Sync();
    auto k = Registers<std::int64_t>(block);
    block.ForEachThread([&](Thread t) { k[t] = tau; });
    auto value = Registers<float>(block);
    auto index = Registers<std::int64_t>(block);
    RowArgmax<kBlock>(block, vocab, value, index, ArgmaxAboveF32{}, [&](Thread, std::int64_t j, float& r) {
      if (tau == n) {
        r = target.Load(target_at(n) + j) / bonus_q.Load(row * vocab + j);
      } else {
        r = static_cast<float>(excess(p_tau, st_tau, sd_tau, tau, j)) / q.Load(row * vocab + j);
      }
      return true;
    });
    WriteSpecOutcome<kBlock>(block, drafts, emitted, accepted, row, width, k, index);
  }
};

}  // namespace sampcheck::gpu
