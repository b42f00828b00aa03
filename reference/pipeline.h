// SPDX-License-Identifier: Apache-2.0
#pragma once
// pipeline: a framework's whole sampler on one batch — penalties, masks, bias, temperature,
// filters and a seeded draw, in the profile's order, with greedy and random rows mixed and
// per-row seeds and positions (docs/spec/pipeline.md).
//
// Contract:
// - Inputs (all per row, leading dim B; whether a row depends on other rows: see the tier line):
//   logits [B, V] (f32/f16/bf16); temperature [B] f32 (required; greedy rows by the profile's
//   rule, temperature.h). Optional groups, each applied iff its first tensor is present, with
//   the single stage's names, dtypes and rules:
//     penalties       output_ids [B, Lo], prompt_ids [B, Lp], repetition_penalty,
//                     frequency_penalty, presence_penalty [B]             (penalties.h)
//     min_new_tokens  stop_ids [B, S], output_len [B], min_tokens [B]      (min_new_tokens.h)
//     token_bitmask   bitmask [B, W]                                        (token_bitmask.h)
//     logit_bias      bias [B, V] (dense only: sparse lists name rows)      (logit_bias.h)
//     filters         top_k [B], top_p [B], min_p [B]; param `order`       (sampling_filters.h)
//   Noise: canonical and sglang take seed [B] i64 and positions [B] i64 (the seeded Gumbel
//   draw, seeded_gumbel.h); vllm takes q [B, V] f32 (Exp(1) noise, read on random rows only)
//   and, optionally, seeded [B] bool: a random row with seeded true is a request with its own
//   generator (vLLM's per-request generators), whose q is rng::VllmGeneratorExponentialF32(seed,
//   positions, token) (reference/rng/vllm_generator.h; seed and positions [B] i64 then required,
//   positions = the steps that generator drew before, in [0, 2^32)); the given q serves the
//   rows without a seed, as vLLM's batch-global generator does.
//   Output token [B] i64 (a vocabulary id).
// - Order (each step the single stage under the same profile):
//   canonical: penalties -> min_new_tokens -> token_bitmask -> logit_bias -> temperature ->
//              filters (top_k_first) -> Gumbel-max keyed by (seed, position, token id) on
//              the filtered probabilities.
//   vllm:      token_bitmask (model runner) -> min_new_tokens, logit_bias (logits
//              processors) -> penalties -> temperature -> filters (min_p_first) ->
//              exponential race over every token with the given q (vllm/v1/sample/sampler.py).
//   sglang:    penalties -> min_new_tokens -> token_bitmask -> logit_bias (apply_logits_bias)
//              -> temperature -> softmax -> one of SGLang's two seeded draws, chosen for the
//              whole batch (param `sampling_path`: "auto" default, "sorted", "unfiltered"):
//              sorted (some row greedy, top_k >= 1, top_p != 1 or min_p > 0): joint filters on
//                the sorted probabilities (top-p runs at p = 1 too) -> multinomial_with_seed
//                with rank columns on the sorted, filtered (not renormalised) probabilities;
//                token = the id at the drawn rank;
//              unfiltered (no row greedy or filtering): Gumbel-max keyed by (seed, position,
//                token id) on the full softmax (sampling_from_probs_torch).
//              min_p > 0 in any row with a random row in the batch is an input error: SGLang
//              asserts that a seeded batch has no min-p request.
//              Greedy rows (t < 1e-6) depend on the batch, param `greedy_path` ("auto" default,
//              "argmax", "sorted"; python/sglang/srt/layers/sampler.py @d55f1c28
//              Sampler.forward): when every row is greedy or has top_k = 1 (is_all_greedy)
//              and no sampling_path is stated (a stated one is a server batch with a random
//              request), every row takes the argmax of the logits; otherwise a greedy row is drawn as
//              top_k = 1 at temperature 1 on the sorted path: its argmax as well, but a
//              degenerate one (below) takes the random rows' degenerate token, 0.
//   Greedy rows: the argmax (greedy.h) of the logits after the steps before temperature; the
//   noise of a greedy row is never read. vllm, param top_k_one: "filter" (default, vLLM
//   9aaf83ef: Sampler.sample is greedy only below the temperature epsilon, and
//   apply_top_k_top_p in v1/sample/ops/topk_topp_sampler.py keeps every tie of top_k = 1, so
//   the race decides among them); "greedy" (a later vLLM, its test
//   tests/v1/sample/test_greedy_topk1_invariance.py @b98c3c8f): a random row with top_k = 1 is
//   a greedy row (the lowest index among tied maxima, as temperature 0 gives).
//   Degenerate rows (docs/spec/pipeline.md "Degenerate rows"): a random row whose logits after
//   temperature hold a NaN or a +inf, or no finite value (an empty allowed set), takes
//   PipelineDegenerateToken without filters or a draw: canonical its first NaN, else its first
//   +inf, else 0; vllm and sglang 0. It enters the filters as a row of -inf, so no filter's
//   input check and no other row sees its values, and its noise is never read. Every token is
//   in [0, V); a healthy row's token never depends on a degenerate neighbour.
// - Canonical tier (softmax, top-p and the f64 logarithm are canonical). No randomness beyond
//   the inputs: the same inputs give the same tokens. canonical and vllm rows depend on their
//   own inputs alone; sglang with sampling_path "auto" depends on the batch, as SGLang does.
// Example: logits {0, -ln2, -2ln2, -2ln2} (probs {1/2, 1/4, 1/8, 1/8}), temperature 1,
//   top_k 1: every profile returns 0 whatever the noise; temperature 0: 0 (greedy). Logits
//   {1, 1}, T 1, top_k 1, q {1, 0.5}: vllm 1 (top_k_one "filter": 0.5 / 0.5 > 0.5 / 1), 0
//   ("greedy").

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/profile.h"
#include "reference/stage_io.h"

namespace sampcheck::reference {

TensorMap RunPipeline(const Case& c, Profile profile);

// One single stage run on a sub-case (its id "<case id> > <stage>", its profile the
// pipeline's): the reference's registered stage, or a gpu backend's kernel
// (gpu/backend/pipeline_glue.cc). The composition below is written once over it.
using PipelineStageRunner = std::function<TensorMap(const std::string& stage, const Case& sub)>;
// The reference's runner: the stage registered under that name (reference/stage_registry.h).
PipelineStageRunner ReferencePipelineStages();

// The distribution a pipeline case defines, row by row, before any noise is read (contract
// block: every step up to the draw). Composed once by ComposePipeline; RunPipeline draws from
// it, and so do the gpu backends' glue, the reference's own draws (reference/count_draws.h) and
// the statistical harness's exact target (statistical/exact_target.h).
struct PipelineDistribution {
  Tensor processed;  // f32 [B, V]: the logits after the steps before temperature
  Tensor scaled;     // f32 [B, V]: temperature's output
  Tensor greedy;     // i64 [B]: the argmax of `processed`, every row's greedy token
  // 1: the row takes its greedy token (temperature below the profile's epsilon, vllm's top_k =
  // 1 rule, SGLang's greedy path); its noise is never read.
  std::vector<std::uint8_t> is_greedy;
  // Per row: the token the row takes without a draw (its greedy token; a degenerate row's
  // token, PipelineDegenerateToken, docs/spec/pipeline.md "Degenerate rows"), or -1 for a row
  // that draws. The reference, the gpu glue, count_draws and the exact target read it (Pinned).
  std::vector<std::int64_t> pinned;
  Tensor masked;  // f32 [B, V]: the filters' logits (-inf: dropped)
  // f32 [B, V]: what a random row draws from: the filters' probabilities, or on SGLang's
  // unfiltered path the full softmax (`full`).
  Tensor probs;
  // sglang with a random row: the softmax of `scaled` (no filter, no renormalisation), which
  // both of SGLang's seeded draws read; empty otherwise.
  Tensor full;
  bool sglang_unfiltered = false;  // SGLang's unfiltered path (sampling_path)
  // Some row is random (degenerate ones included: they are random requests, so the noise
  // tensors are required and SGLang's path counts them).
  bool any_random = false;

  std::int64_t rows() const { return scaled.dim(0); }
  std::int64_t vocab() const { return scaled.dim(1); }
  // Row b's token when it takes one without a draw (`pinned`), else -1.
  std::int64_t Pinned(std::int64_t b) const { return pinned[static_cast<std::size_t>(b)]; }
};

// Every step of the pipeline up to the draw, each the single stage run by `run`, with every
// input check up to the noise in RunPipeline's order and with its messages (errors name the
// case as the pipeline). Noise inputs are not read.
PipelineDistribution ComposePipeline(const Case& c, Profile profile, const PipelineStageRunner& run);

// SGLang's sorted path (contract block): the ids the filters keep (`masked` != -inf) in the
// order of their probability in `full`, descending (ties: the higher scaled logit, then the
// lower id); rank r of a draw is the r-th of them. SglangSortedDraw draws one row: the seeded
// Gumbel keyed by rank over full[order[r]], returned as the id at the drawn rank; -1 when
// nothing survives.
std::vector<std::int32_t> SglangSortedOrder(std::span<const float> full, std::span<const float> scaled,
                                            std::span<const float> masked);
std::int64_t SglangSortedDraw(std::span<const float> full, std::span<const float> scaled,
                              std::span<const float> masked, std::uint64_t seed, std::uint32_t position);

// docs/spec/pipeline.md "Degenerate rows": the token a random row takes without filters or a
// draw when its row entering the filters (after temperature) holds a NaN, a +inf or no finite
// value. canonical: its first NaN, else its first +inf, else kNoDrawToken (0) (the draws'
// order, reference/draw_rows.h); vllm and sglang: 0 (their softmax of such a row is NaN
// everywhere, and the draw's argmax, or on SGLang's sorted path the profile's choice for the
// sort's undefined first id, gives index 0). -1 for a row the filters and the draw take.
// ComposePipeline applies it; gpu-fast (gpu/fast/fast_backend.cc) reads it for its host path.
std::int64_t PipelineDegenerateToken(std::span<const float> scaled_row, Profile profile);

// The pipeline's noise, read after the composition (contract block "Noise"): vllm's q [B, V],
// or the seeds and positions [B] of the seeded draws; nothing when every row is greedy. The
// reference and the gpu glue read it here, so the checks and messages exist once.
struct PipelineNoise {
  Tensor q;                            // vllm: f32 [B, V], seeded rows' generator noise in place; empty otherwise
  const Tensor* seed = nullptr;        // canonical, sglang (vllm with `seeded`): i64 [B]
  const Tensor* positions = nullptr;   // canonical, sglang (vllm with `seeded`): i64 [B]
  // A random row's noise: q finite and > 0, or its position in [0, 2^32); fails through `in`.
  void CheckRow(const StageInputs& in, std::int64_t b) const;
};
PipelineNoise ParsePipelineNoise(const StageInputs& in, const PipelineDistribution& d, Profile profile);
// The error of a random row whose draw found no token.
[[noreturn]] void FailNoToken(const StageInputs& in, std::int64_t b);

// The f32 logits after the steps before temperature (penalties, min_new_tokens, token_bitmask,
// logit_bias, each iff its first tensor is present, in the profile's order), run by the
// reference: what gpu-fast's fused kernel reads (gpu/fast/fast_backend.h).
Tensor PipelineLogitsBeforeTemperature(const Case& c, Profile profile);

}  // namespace sampcheck::reference
