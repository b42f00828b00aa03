// SPDX-License-Identifier: Apache-2.0
#pragma once
// sampling_filters kernel: top_k, top_p and min_p in a profile's order, output as masked
// logits and as probabilities; bit-exact with reference/sampling_filters.h
// (docs/spec/filters.md#sampling_filters, "Order per profile").
//
// Contract:
// - One block of 1024 threads per row. logits: rows x pitch f32, finite or -inf; top_k i32,
//   top_p f32, min_p f32 per row, each optional (absent: disabled, p = 1, m = 0); out and
//   probs: rows x V f32.
// - Steps (gpu/kernels/top_k.cuh, gpu/kernels/top_p.cuh, gpu/kernels/min_p.cuh, each with its stage's rule):
//   kTopKFirst: top_k -> top_p -> min_p, each on the row masked so far (renormalised).
//   kMinPFirst (vllm): min_p -> top_k -> top_p.
//   kJoint (sglang): top_k; then, if a finite entry is left, top_p walked over the first
//     n (= top_k's survivors) positions of the ORIGINAL order with the original probs, and
//     min_p with the original distribution's threshold.
//   kJointThenMinP (flashinfer joint): top_k; top_p as kJoint when p < 1; then min_p
//     renormalised on what is left.
//   kAscend: top_k (ks_max) -> top_p on the top-k row -> min_p with the top-k row's
//     softmax (threshold taken before top-p; m >= 1 keeps only the first token).
// - kTopKFirst with top_k active and k <= 1024 runs on the top-k survivors gathered in shared
//   memory (gpu/kernels/sampling_filters_on_survivors.cuh: same bits, three reads of the row);
//   when the batch is small such a row is split over several blocks
//   (gpu/kernels/sampling_filters_slices.cuh: slices, scratch of rows x kRowSliceSlots keys,
//   and survivor_rows, rows x kSurvivorRowWords, with slice_budget > 1; same bits), and the
//   row's work here (Row) runs in the last block of its slices;
//   kTopKFirst otherwise (top_k off or k > 1024, candidates that do not fit) runs on one radix
//   partition of the row (gpu/kernels/sampling_filters_on_partition.cuh: same bits, the
//   statistics and masks fused into its reads); every other order runs the steps above.
// - A row holding a NaN or a +inf (docs/spec/filters.md "Degenerate rows"): found by the
//   first read of whichever path runs (the survivors' thread maxima, the partition's level 0,
//   the full-row copy's tally), then filtered by the profile's chain, each filter with its own
//   degenerate-row rule (gpu/kernels/sampling_filters_degenerate_rows.cuh).
// - probs = the canonical softmax of the output row (gpu/kernels/softmax.cuh's operations): dropped
//   entries +0; a row with no finite output logit gives NaN, as SoftmaxRow.
// - write_rows false (the caller wants only the token): the survivor and partition paths write
//   no row (the survivor path's split rows leave no survivors for the last launch, which does
//   not run); the other paths write out and probs to the launch's scratch rows.
// - draw (seed, positions [rows] i64, token [rows] i64): multinomial_with_seed keyed by token
//   id over probs (gpu/kernels/seeded_gumbel.cuh), bit-exact with SeededGumbelKernel over the
//   probs written: on the final survivors at the survivor path's end (its contract: every other
//   column holds +0, never drawn), folded into the partition path's probs read, else over the
//   probs row this block wrote (DrawFromProbsRow: degenerate rows, the other orders). A row
//   with no drawable column (every output logit -inf: NaN probs) gets kNoIndex, as the
//   full-row kernel gives.
// Example: the ln 2 row, top_k 3, top_p 0.75: canonical keeps {0, 1}, probs (2/3, 1/3, 0, 0)
//   rounded (0x3f2aaaab, 0x3eaaaaab); sglang keeps {0, 1, 2} (tests/gpu_kernels_test.cc,
//   GpuSamplingFilters).

#include <cstdint>

#include "gpu/block/block_model.h"
#include "gpu/kernels/filter_rules.h"
#include "gpu/kernels/degenerate_rows.cuh"
#include "gpu/kernels/min_p.cuh"
#include "gpu/kernels/sampling_filters_degenerate_rows.cuh"
#include "gpu/kernels/sampling_filters_on_partition.cuh"
#include "gpu/kernels/sampling_filters_on_survivors.cuh"
#include "gpu/kernels/seeded_gumbel.cuh"
#include "gpu/block/radix_select.cuh"
#include "gpu/kernels/top_k.cuh"
#include "gpu/kernels/top_p.cuh"

namespace sampcheck::gpu {

// The sequential orders (kTopKFirst, kMinPFirst) on row[base, base + vocab), in place: each
// filter reads the row masked so far (logprobs' processed modes use them too).
template <class B, class Arr, class S = NoScratch>
SAMPCHECK_KERNEL_BODY void SequentialFilters(B& block, Arr row, std::int64_t base, std::int64_t vocab, std::int64_t k,
                                             float p, float m, const FilterRules& rules, S scratch = {},
                                             std::int64_t scratch_base = 0) {
  if (rules.order == FilterOrder::kMinPFirst) {
    MinPStep(block, row, base, vocab, m, rules.min_p);
    TopKStep(block, row, base, vocab, k, rules.top_k);
    TopPStep(block, row, base, row, base, vocab, p, rules.top_p, scratch, scratch_base);
    return;
  }
  TopKStep(block, row, base, vocab, k, rules.top_k);
  TopPStep(block, row, base, row, base, vocab, p, rules.top_p, scratch, scratch_base);
  MinPStep(block, row, base, vocab, m, rules.min_p);
}

// probs: SoftmaxRow of the output row.
template <class B, class Arr>
SAMPCHECK_KERNEL_BODY void OutputRowProbs(B& block, Arr out, std::int64_t at, Arr probs, std::int64_t vocab) {
  const SoftmaxStats st = RowSoftmaxStats(block, out, at, vocab);
  block.ForEachThread([&](Thread t) {
    for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) probs.Store(at + i, st.Prob(out.Load(at + i)));
  });
}

// The seeded draw's token (thread 0's `drawn`) to token[row].
template <class B, class Token, class RI>
SAMPCHECK_KERNEL_BODY void StoreDrawnToken(B& block, bool draw, Token token, std::int64_t row, RI& drawn) {
  if (!draw) return;
  block.ForEachThread([&](Thread t) {
    if (t.x == 0) token.Store(row, drawn[t]);
  });
}

// The seeded draw over the probs row this block wrote (its threads' stores, hence the barrier
// first): multinomial_with_seed's fold (FoldSeededGumbelRow) with the one-barrier tree, so
// the full-row kernel's token, bit for bit (the order is total).
template <class B, class Arr, class Token>
SAMPCHECK_KERNEL_BODY void DrawFromProbsRow(B& block, bool draw, Arr probs, std::int64_t at, std::int64_t vocab,
                                            const SeededGumbelKey& key, Token token, std::int64_t row) {
  if (!draw) return;
  block.Sync();
  auto value = Registers<double>(block);
  auto drawn = Registers<std::int64_t>(block);
  FoldSeededGumbelRow<kCanonicalLanes>(block, probs, probs, false, at, vocab, key, value, drawn);
  WarpFirstBlockArgmax<double>(block, value, drawn, ArgmaxAboveF64{});
  StoreDrawnToken(block, draw, token, row, drawn);
}

struct SamplingFiltersKernel {
  static constexpr const char* kName = "sampling_filters";
  static constexpr int kThreads = kCanonicalLanes;
  // No kMinBlocksPerSm: ptxas takes 64 registers, one block per SM. Timed on an H200
  // (docs/gpu.md "Occupancy"), that beat two blocks at 32 registers by up to 29 %: the bound's
  // spills went to a stack frame that no SM's L1 holds.

  template <class B, class Arr, class S, class K, class P, class Seeds, class Token>
  SAMPCHECK_KERNEL_BODY void operator()(B& block, Arr logits, Arr out, Arr probs, S scratch, K top_k, bool has_k,
                                        P top_p, bool has_p, P min_p, bool has_m, std::int64_t vocab,
                                        std::int64_t pitch, FilterRules rules, S slices, S survivor_rows,
                                        std::int64_t slice_budget, bool write_rows, Seeds seed, Seeds positions,
                                        Token token, bool draw) const {
    Row(block, block.index(), logits, out, probs, scratch, top_k, has_k, top_p, has_p, min_p, has_m, vocab, pitch,
        rules, slices, survivor_rows, slice_budget, write_rows, seed, positions, token, draw);
  }

  // One row's filters, by block `row` of this kernel or by the last block of the row's slices
  // (gpu/kernels/sampling_filters_slices.cuh), which then merges the slices' lists.
  template <class B, class Arr, class S, class K, class P, class Seeds, class Token>
  SAMPCHECK_KERNEL_BODY void Row(B& block, std::int64_t row, Arr logits, Arr out, Arr probs, S scratch, K top_k,
                                 bool has_k, P top_p, bool has_p, P min_p, bool has_m, std::int64_t vocab,
                                 std::int64_t pitch, FilterRules rules, S slices, S survivor_rows,
                                 std::int64_t slice_budget, bool write_rows, Seeds seed, Seeds positions,
                                 Token token, bool draw) const {
    const std::int64_t keys = row * 2 * vocab;  // this row's two scratch buffers
    const std::int64_t in = row * pitch;
    const std::int64_t at = row * vocab;
    const std::int64_t k = has_k ? top_k.Load(row) : 0;
    const float p = has_p ? top_p.Load(row) : 1.0f;
    const float m = has_m ? min_p.Load(row) : 0.0f;
    // top_k_first with a small k: three reads of the row, every later step on the survivors;
    // a row split over several blocks merges its slices' top k instead of reading the row
    // (gpu/kernels/sampling_filters_slices.cuh).
    const std::int64_t slice_count = SamplingFiltersRowSlices(slice_budget, vocab, k, rules);
    const std::int64_t rows_base = row * kSurvivorRowWords;
    bool degenerate = false;  // the row holds a NaN or a +inf: found by the first read of a path
    SeededGumbelKey key;
    if (draw) key = LoadSeededGumbelKey(block, seed, positions, row);
    auto drawn = Registers<std::int64_t>(block);
    if (SamplingFiltersOnSurvivors(block, logits, in, out, probs, at, vocab, k, p, m, rules, slices,
                                   row * kRowSliceSlots, slice_count, survivor_rows, rows_base, degenerate, write_rows,
                                   draw, key, drawn)) {
      return StoreDrawnToken(block, draw, token, row, drawn);
    }
    // The partition path draws in its last read; every later path writes out and probs over
    // the row (the launch's scratch when the caller wants neither), and the draw reads probs
    // back (DrawFromProbsRow).
    if (slice_count > 1 && write_rows) {  // this kernel writes the row: the last launch leaves it alone
      block.ForEachThread([&](Thread t) {
        if (t.x == 0) survivor_rows.Store(rows_base + kSurvivorRowLast, kNoKey);
      });
    }
    // top_k_first otherwise: the k-th key and the top_p walk from one radix partition, the
    // statistics and masks fused into the reads (at most 6 reads around the partition).
    if (!degenerate && SamplingFiltersOnPartition(block, logits, in, out, probs, at, vocab, k, p, m, rules, scratch,
                                                  keys, degenerate, write_rows, draw, key, drawn)) {
      return StoreDrawnToken(block, draw, token, row, drawn);
    }
    if (degenerate) {
      CopyRow(block, logits, in, out, at, vocab);
    } else {
      degenerate = CopyRowFindingDegenerate(block, logits, in, out, at, vocab);
    }
    if (degenerate) {
      SamplingFiltersDegenerateRowSteps(block, out, at, vocab, k, p, m, rules, scratch, keys);
      OutputRowProbs(block, out, at, probs, vocab);
      return DrawFromProbsRow(block, draw, probs, at, vocab, key, token, row);
    }
    switch (rules.order) {
      case FilterOrder::kTopKFirst:
      case FilterOrder::kMinPFirst:
        SequentialFilters(block, out, at, vocab, k, p, m, rules, scratch, keys);
        break;
      case FilterOrder::kJoint:
      case FilterOrder::kJointThenMinP: {
        const bool sglang = rules.order == FilterOrder::kJoint;
        TopKStep(block, out, at, vocab, k, rules.top_k);
        // top_k's survivors are a prefix of the original order: top_p's set intersected with
        // them is top_p's rule walked over that prefix alone.
        const std::int64_t survivors = CountFinite(block, out, at, vocab);
        TopPWalk walk;
        float q;
        const bool run_top_p = ResolveTopP(rules.top_p, p, walk, q);
        if (survivors > 0 && (run_top_p || (sglang && m > 0.0f))) {
          const SoftmaxStats original = RowSoftmaxStats(block, logits, in, vocab);
          if (run_top_p) {
            const std::int64_t n_finite = CountFinite(block, logits, in, vocab);
            TopPWalkRow(block, logits, in, out, at, vocab, walk, q, original, survivors, n_finite, scratch, keys);
          }
          if (sglang && m > 0.0f) {
            const float threshold = MinPThreshold(RowMaxProb(block, logits, in, vocab, original), m);
            MinPApply(block, out, at, vocab, original, threshold);
          }
        }
        if (!sglang) MinPStep(block, out, at, vocab, m, rules.min_p);
        break;
      }
      case FilterOrder::kAscend: {
        TopKStep(block, out, at, vocab, k, rules.top_k);
        SoftmaxStats top_k_stats{};
        float threshold = 0.0f;
        if (m > 0.0f && !(rules.min_p.first_only_at_one && m >= 1.0f)) {
          top_k_stats = RowSoftmaxStats(block, out, at, vocab);
          threshold = MinPThreshold(RowMaxProb(block, out, at, vocab, top_k_stats), m);
        }
        TopPStep(block, out, at, out, at, vocab, p, rules.top_p, scratch, keys);
        if (m > 0.0f) {
          if (rules.min_p.first_only_at_one && m >= 1.0f) {
            KeepFirst(block, out, at, vocab);
          } else {
            MinPApply(block, out, at, vocab, top_k_stats, threshold);
          }
        }
        break;
      }
    }
    OutputRowProbs(block, out, at, probs, vocab);
    DrawFromProbsRow(block, draw, probs, at, vocab, key, token, row);
  }
};

}  // namespace sampcheck::gpu
