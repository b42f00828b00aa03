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
//   draw, seeded_gumbel.h); vllm takes q [B, V] f32 (Exp(1) noise, read on random rows only).
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
//              Sampler.forward): when every row is greedy or has top_k = 1 (is_all_greedy),
//              every row takes the argmax of the logits; otherwise a greedy row is drawn as
//              top_k = 1 at temperature 1 on the sorted path: its argmax as well, but a row with
//              no finite logit (or a +inf or NaN) has no defined token there: an input error.
//   Greedy rows: the argmax (greedy.h) of the logits after the steps before temperature; the
//   noise of a greedy row is never read. vllm, param top_k_one: "filter" (default, vLLM
//   9aaf83ef: Sampler.sample is greedy only below the temperature epsilon, and
//   apply_top_k_top_p in v1/sample/ops/topk_topp_sampler.py keeps every tie of top_k = 1, so
//   the race decides among them); "greedy" (a later vLLM, its test
//   tests/v1/sample/test_greedy_topk1_invariance.py @b98c3c8f): a random row with top_k = 1 is
//   a greedy row (the lowest index among tied maxima, as temperature 0 gives).
// - Canonical tier (softmax, top-p and the f64 logarithm are canonical). No randomness beyond
//   the inputs: the same inputs give the same tokens. canonical and vllm rows depend on their
//   own inputs alone; sglang with sampling_path "auto" depends on the batch, as SGLang does.
// Example: logits {0, -ln2, -2ln2, -2ln2} (probs {1/2, 1/4, 1/8, 1/8}), temperature 1,
//   top_k 1: every profile returns 0 whatever the noise; temperature 0: 0 (greedy). Logits
//   {1, 1}, T 1, top_k 1, q {1, 0.5}: vllm 1 (top_k_one "filter": 0.5 / 0.5 > 0.5 / 1), 0
//   ("greedy").

#include <string>
#include <vector>

#include "core/case.h"
#include "core/profile.h"
#include "reference/stage_io.h"

namespace sampcheck::reference {

TensorMap RunPipeline(const Case& c, Profile profile);

// The f32 logits after the steps before temperature (penalties, min_new_tokens, token_bitmask,
// logit_bias, each iff its first tensor is present, in the profile's order): what greedy rows
// take the argmax of and what temperature divides. For the statistical harness's exact
// targets and the reference's own draws (reference/count_draws.h).
Tensor PipelineLogitsBeforeTemperature(const Case& c, Profile profile);

// True when row b of a vllm pipeline case takes the greedy token although its temperature is
// random: param top_k_one = "greedy" and top_k[b] == 1 (contract block). False for every other
// profile, rule and row.
bool PipelineTopKOneIsGreedy(const Case& c, Profile profile, std::int64_t b);
// The sglang profile's greedy rows, which depend on the batch (param greedy_path: "auto"
// default, "argmax", "sorted"; contract block): on SGLang's all-greedy path every row,
// top_k = 1 rows included, becomes greedy; on its mixed path a greedy row is a top_k = 1
// row of the sorted path, so one whose `scaled` row (after temperature) is degenerate
// (PipelineDegenerateToken) is drawn as a random row: token 0. Fails through `in` on a bad
// param or a param under another profile. Shared with gpu/backend/pipeline_glue.cc.
void SglangResolveGreedyRows(const StageInputs& in, const Case& c, Profile profile, std::vector<std::uint8_t>& is_greedy,
                             const Tensor& scaled);
// docs/spec/pipeline.md "Degenerate rows": the token a random row takes without filters or a
// draw when its row entering the filters (after temperature) holds a NaN, a +inf or no finite
// value. canonical: its first NaN, else its first +inf, else 0 (the draws' rule,
// reference/draw_rows.h); vllm and sglang: 0 (their softmax of such a row is NaN everywhere
// and the draw's argmax, or the sort, puts index 0 first). -1 for a row the filters and the
// draw take. Shared with the gpu backends (gpu/backend/pipeline_glue.cc, gpu/fast/fast_backend.cc).
std::int64_t PipelineDegenerateToken(std::span<const float> scaled_row, Profile profile);
// `scaled` [B, V] with every row that PipelineDegenerateToken decides set to -inf: such a row
// enters the filters as a row without a finite logit, which every filter returns unchanged,
// so the filters' input checks and its neighbours never see its NaN or +inf.
Tensor PipelineFilterInput(const Tensor& scaled, Profile profile);

// The vllm param top_k_one ("filter", the default, or "greedy"), unchecked; and its check
// (fails through `in` on another profile or value), shared with gpu/backend/pipeline_glue.cc.
std::string VllmTopKOneRule(const Case& c);
void CheckVllmTopKOne(const StageInputs& in, const Case& c, Profile profile);

// True when the sglang pipeline draws the batch on SGLang's unfiltered path (contract block:
// the full softmax, no filter); false for every other profile and for the sorted path. For
// the same callers, whose probabilities must then skip the filters.
bool PipelineDrawsUnfiltered(const Case& c, Profile profile);

// The sglang profile's batch checks and path choice, given each row's greedy flag (after
// temperature): fails through `in` on a seeded batch with min_p > 0 or a bad `sampling_path`;
// returns true for the unfiltered path. Shared with the gpu backends' pipeline glue
// (gpu/backend/pipeline_glue.cc) so both report the same errors.
bool SglangPipelineDrawsUnfiltered(const StageInputs& in, const Case& c, std::span<const std::uint8_t> is_greedy);

}  // namespace sampcheck::reference
