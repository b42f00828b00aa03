// SPDX-License-Identifier: Apache-2.0
#pragma once
// logprobs kernel: the top-n ids and values of a row's value row x, the sampled token's value
// and rank, the values of requested ids; bit-exact with reference/logprobs.h
// (docs/spec/logprobs.md).
//
// Contract:
// - One block of 1024 threads per row. src: rows x pitch f32 (the glue passes raw_logits for
//   the raw modes, logits otherwise); work: rows x V f32, receives x. Per row (prepared and
//   checked by the glue): divisor f32 and divide u8 (y = src / divisor, else y = src), filter
//   u8 (run the profile's sequential filters on y, gpu/kernels/sampling_filters.cuh; a y holding
//   a NaN or a +inf, found by the copy's tally, the filters' degenerate-row chain,
//   gpu/kernels/sampling_filters_degenerate_rows.cuh), top_k, top_p, min_p (disabled values
//   when absent); token i64; token_ids rows x T i32 (-1 padding).
// - x by mode (LogprobsKernelMode): kValues x = y; kLogSoftmax x_i = (y_i - M) - LogF32Cr(s)
//   (gpu/kernels/softmax.cuh's operations); kLogOfSoftmax x_i = LogF32Cr(ExpF32Cr(y_i - M) / s)
//   (SGLang's log of the probabilities). M, s: canonical max and sum (RowSoftmaxStats).
// - top-n: the first n keys of the order NaN first, larger first (-0.0 == +0.0), ties by lower
//   index, by radix select and sorted chunks of 1024 (gpu/block/radix_select.cuh); no sort of the
//   row. top_ranks: rule.positional_top_ranks (vllm) position + 1; else 1 + #{x_j > x_id}, read
//   from the list itself (every entry greater than a listed number is listed before it): 1 for
//   NaN, else 1 + (first listed position whose number is not greater) - (listed NaNs), both by
//   binary search of top_values. rank: canonical 1 + #{x_j > x_tok}, vllm #{x_j >= x_tok}: exact integer block counts.
//   token_ids_logprobs: x[id], quiet NaN (0x7fc00000) at -1.
// - rule.clamp_neg_inf (sglang): a -inf of x becomes -FLT_MAX. rule.token_ids_rank (vllm with
//   logprob_token_ids; the glue passes n = 0 and the processed_logprobs mode): rank =
//   #{y_j > y_tok} counted on y before the log, no + 1; padding -inf.
// Example: the ln 2 row, raw_logprobs, token 3, n = 2: top_ids {0, 1}, top_ranks {1, 2}; rank 3
//   (canonical), 4 (vllm) (tests/gpu_kernels_test.cc, GpuLogprobs).

#include <cstdint>
#include <cstring>

#include "gpu/block/block_exclusive_scan.cuh"
#include "gpu/block/block_model.h"
#include "gpu/block/block_reduce.cuh"
#include "gpu/block/lane_scan.cuh"
#include "gpu/kernels/filter_rules.h"
#include "gpu/block/radix_select.cuh"
#include "gpu/kernels/degenerate_rows.cuh"
#include "gpu/kernels/sampling_filters.cuh"
#include "gpu/kernels/sampling_filters_degenerate_rows.cuh"
#include "reference/math/log.h"

namespace sampcheck::gpu {

SAMPCHECK_HOST_DEVICE SAMPCHECK_FORCE_INLINE float QuietNan() {
  const std::uint32_t bits = 0x7fc00000u;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

struct LogprobsKernel {
  static constexpr const char* kName = "logprobs";
  static constexpr int kThreads = kCanonicalLanes;

  template <class B, class Arr, class P, class U8, class K, class I, class IOut>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, Arr src, Arr work, P divisor, U8 divide, U8 filter, K top_k, P top_p,
                                        P min_p, I token, K token_ids, std::int64_t width, IOut top_ids, Arr top_values,
                                        IOut top_ranks, Arr token_logprob, IOut token_rank, Arr ids_values, std::int64_t n,
                                        std::int64_t vocab, std::int64_t pitch, LogprobsRule rule) const {
    const std::int64_t row = block.index();
    const std::int64_t in = row * pitch;
    const std::int64_t at = row * vocab;
    const bool div = divide.Load(row) != 0;
    const float t = divisor.Load(row);
    auto y_of = [&](float x) { return div ? x / t : x; };
    // A filtered row's copy also finds whether it holds a NaN or a +inf (the same read): such a
    // row takes the filters' degenerate-row chain (gpu/kernels/sampling_filters_degenerate_rows.cuh).
    const bool filtered = filter.Load(row) != 0;
    const bool degenerate = filtered && CopyRowFindingDegenerate(block, src, in, work, at, vocab, y_of);
    if (!filtered) {
      block.ForEachThread([&](Thread th) {
        ForEachLaneEntry<kLaneSumGroup>(
            th.x, vocab, kCanonicalLanes, [&](std::int64_t i) { return src.Load(in + i); },
            [&](std::int64_t i, float x) { work.Store(at + i, y_of(x)); });
      });
      block.Sync();
    }
    if (degenerate) {
      SamplingFiltersDegenerateRowSteps(block, work, at, vocab, top_k.Load(row), top_p.Load(row), min_p.Load(row),
                                        rule.filters, NoScratch{}, 0);
    } else if (filtered) {
      SequentialFilters(block, work, at, vocab, top_k.Load(row), top_p.Load(row), min_p.Load(row), rule.filters);
    }
    // #{x_j > v} (or >= v with ties) over the row as it is now: exact integer block counts.
    auto count_rank = [&](float v, bool ties) {
      auto count = Registers<std::uint32_t>(block);
      block.ForEachThread([&](Thread th) {
        std::uint32_t c = 0;
        for (std::int64_t i = th.x; i < vocab; i += kCanonicalLanes) {
          const float x = work.Load(at + i);
          c += (ties ? x >= v : x > v) ? 1u : 0u;
        }
        count[th] = c;
      });
      std::uint32_t total = 0;
      BlockExclusiveScan<kCanonicalLanes>(block, count, total);
      block.Sync();  // the warp sums are free for the top-n's CollectSorted
      return static_cast<std::int64_t>(total);
    };
    // vllm beside logprob_token_ids counts the processed logits y, before the log.
    const std::int64_t ids_rank = rule.token_ids_rank ? count_rank(work.Load(at + token.Load(row)), false) : 0;
    if (rule.mode != LogprobsKernelMode::kValues) {
      const SoftmaxStats st = RowSoftmaxStats(block, work, at, vocab);
      const bool log_of_probs = rule.mode == LogprobsKernelMode::kLogOfSoftmax;
      const float log_s = log_of_probs ? 0.0f : math::LogF32Cr(st.sum);
      block.ForEachThread([&](Thread th) {
        ForEachLaneEntry<kLaneSumGroup>(
            th.x, vocab, kCanonicalLanes, [&](std::int64_t i) { return work.Load(at + i); },
            [&](std::int64_t i, float y) {
              // -FLT_MAX = 0xff7fffff, -inf = 0xff800000.
              const float x = log_of_probs ? math::LogF32Cr(st.Prob(y)) : (y - st.max) - log_s;
              const bool clamp = rule.clamp_neg_inf && x == math::F32FromBits(0xff800000u);
              work.Store(at + i, clamp ? math::F32FromBits(0xff7fffffu) : x);
            });
      });
      block.Sync();
    }
    // top-n, in chunks of at most kCandidates.
    SAMPCHECK_SHARED(block, std::uint64_t, sorted, kCandidates);
    bool has_lo = false;
    std::uint64_t lo = 0;
    for (std::int64_t done = 0; done < n;) {
      const std::int64_t end = n - done > kCandidates ? done + kCandidates : n;
      const std::uint64_t hi = end == vocab ? kNoKey : SelectKth(block, work, at, vocab, false, end);
      const std::uint32_t m = CollectSorted(block, work, at, vocab, false, has_lo, lo, hi, sorted);
      block.ForEachThread([&](Thread th) {
        if (static_cast<std::uint32_t>(th.x) >= m) return;
        const auto i = static_cast<std::int64_t>(sorted.Load(th.x) & 0xffffffffu);
        top_ids.Store(row * n + done + th.x, i);
        top_values.Store(row * n + done + th.x, work.Load(at + i));
      });
      block.Sync();
      done = end;
      lo = hi;
      has_lo = true;
    }
    // The listed ids' ranks, from top_values as the loop above wrote it (a NaN prefix, then
    // numbers non-increasing).
    block.ForEachThread([&](Thread th) {
      const std::int64_t base = row * n;
      // The first position in [from, n) where `greater` fails (it holds on a prefix).
      auto first_not = [&](std::int64_t from, auto greater) {
        std::int64_t a = from, b = n;
        while (a < b) {
          const std::int64_t mid = a + (b - a) / 2;
          if (greater(top_values.Load(base + mid))) {
            a = mid + 1;
          } else {
            b = mid;
          }
        }
        return a;
      };
      for (std::int64_t p = th.x; p < n; p += kCanonicalLanes) {
        const float v = top_values.Load(base + p);
        std::int64_t r = p + 1;
        if (!rule.positional_top_ranks) {
          if (IsNan(v)) {
            r = 1;  // NaN: no x_j > NaN
          } else {
            const std::int64_t nans = first_not(0, [](float x) { return IsNan(x); });
            r = 1 + first_not(nans, [v](float x) { return x > v; }) - nans;
          }
        }
        top_ranks.Store(base + p, r);
      }
    });
    block.Sync();
    // The token's value and rank.
    const float v = work.Load(at + token.Load(row));
    const bool ties = rule.rank_counts_ties;
    const std::int64_t rank = rule.token_ids_rank ? ids_rank : count_rank(v, ties) + (ties ? 0 : 1);
    const float pad = rule.token_ids_rank ? math::F32FromBits(0xff800000u) : QuietNan();  // -inf or NaN
    block.ForEachThread([&](Thread th) {
      if (th.x == 0) {
        token_logprob.Store(row, v);
        token_rank.Store(row, rank);
      }
      for (std::int64_t j = th.x; j < width; j += kCanonicalLanes) {
        const std::int32_t id = token_ids.Load(row * width + j);
        ids_values.Store(row * width + j, id < 0 ? pad : work.Load(at + id));
      }
    });
  }
};

}  // namespace sampcheck::gpu
