// SPDX-License-Identifier: Apache-2.0
#pragma once
// Deliberately wrong backends for the exact-tier stage families (docs/spec/logprobs.md
// "Planted faults"): each wraps the reference and plants one bug that a golden case must
// reject (a bitwise mismatch), registered beside the statistical ones in
// harness/wrong/wrong_samplers.h with layer "golden".
//
// Contract:
// - Stages the bug does not touch behave exactly as the reference (Run and CountDraws
//   delegate). No stage name is compared: each bug keys on the outputs or parameters it
//   corrupts.
// - logprob_rank_off_by_one      every token_rank output is one less (the rank as the count
//                                of strictly greater entries, without the +1)
//                                -> logprobs/edges_n3_raw_logprobs/canonical
// - logprob_top_ranks_dedup      every top_ranks entry listed after the sampled token is one
//                                less (the sampled token deduplicated out of the alternatives'
//                                ranking; top_ids and top_values unchanged)
//                                -> logprobs/random_v33_f32_raw_logprobs/ (row 0's token is
//                                its argmax, listed first)
// - logprobs_before_temperature  cases with a processed_* mode lose their temperature input:
//                                the processed values are taken before the division (and
//                                the filters read unscaled logits)
//                                -> logprobs/random_v33_f32_processed_logprobs/
// - finish_min_tokens_ignored    cases with both min_tokens and max_tokens inputs (the finish
//                                rules) run with min_tokens 0: a stop token below the minimum
//                                finishes, and nothing is banned at the next step
//                                -> finish_rules/edges/vllm
// - decode_offset_not_advanced   cases with rank-3 logits (the decode steps) reuse step 0's
//                                noise offset at every step (positions + 0, q[:, 0])
//                                -> decode_steps/fresh_noise_v64/
// - decode_history_not_updated   the same cases never append the drawn tokens to the history
//                                (penalties and min_tokens see step 0's history throughout)
//                                -> decode_steps/greedy_history/
// - decode_seed_from_slot       the same cases with a seed input run each row with seed + its
//                                slot in the batch (canonical, sglang; vllm's seeded rows)
//                                -> decode_steps/random_v16_ goldens, and the "seeds" check
//                                of harness/decode_steps_check.h
// - flashinfer_nan_row_valid     outputs with a `rounds` beside `valid` (FlashInfer's
//                                rejection samplers) flag every row valid: a NaN row's token
//                                0 passes as a draw
//                                -> flashinfer_sampling_from_probs/edges_top_p/flashinfer
// - flashinfer_ignores_top_k     cases with a `kernel` parameter and a top_k input run with
//                                top_k -1 (no limit): the joint kernel filters by top-p only
//                                -> stats/flashinfer_sampling_from_probs/joint_v16/ (L1)
// - spec_step_unfiltered_draft   spec_step's draft probabilities are taken from the tempered
//                                logits without the request's filters
//                                -> spec_step/filtered_draft/canonical
// - spec_step_stop_ignored       spec_step never looks for stop ids in the emitted tokens
//                                -> spec_step/edges/canonical
// The grammar side of the token bitmask (docs/spec/token_bitmask_fill.md "Planted faults"):
// - bitmask_fill_stale_tail      token_bitmask_fill's guided rows keep the reused buffer's
//                                bits at and past vocab_size -> token_bitmask_fill/mixed_batch_v100/
// - bitmask_fill_unguided_zero   token_bitmask_fill's unguided rows are all 0 (ban every
//                                token) instead of -1 -> token_bitmask_fill/mixed_batch_v100/
// - bitmask_fill_row_stride      token_bitmask_fill writes rows ceil(vocab_size / 32) words
//                                apart into a buffer read `words` apart
//                                -> token_bitmask_fill/padded_stride_v100_w8/
// - bitmask_id_narrowed_i32      token_bitmask_allowed narrows each id to int32 before the
//                                test (2^32 + t aliases t) -> token_bitmask_allowed/wide_ids/
// - bitmask_stop_never_cleared   token_bitmask_stop_tokens sets stop bits where the grammar can
//                                end and never clears them where it cannot
//                                -> token_bitmask_stop_tokens/stale_stop_bits/
// Degenerate rows (docs/spec/draws.md "Degenerate rows"), the draws given their noise (a
// `logprobs` or `probs` input beside a rank-2 `gumbel` or `q`):
// - draw_empty_row_pad_lane      a row with nothing drawable (every score -inf, every
//                                probability 0) returns the reduction's identity lane: V
//                                rounded up to a 32-lane tile, an id >= V
//                                -> gumbel_max/degenerate_rows_v33/, exponential_race/degenerate_rows_v33/
// - draw_nan_as_constant         a row holding a NaN has its NaN replaced by a constant and is
//                                drawn uniformly, by the noise alone (argmax of the Gumbel
//                                noise, argmin of the Exp(1) noise)
//                                -> the same goldens
// Degenerate rows of the pipeline (docs/spec/pipeline.md "Degenerate rows"; cases with
// `logits` [B, V] and `temperature` [B]):
// - pipeline_inf_softmax_token_zero  a random row whose logits hold a +inf (and no NaN)
//                                returns token 0, as when the softmax turns +inf into NaN and
//                                the argmax falls back to the first entry
//                                -> pipeline/degenerate_rows_v33/canonical
// - pipeline_degenerate_row_aborts_batch  a row holding a NaN or a +inf, or no finite logit,
//                                makes the whole batch an error (a device assert)
//                                -> pipeline/degenerate_rows_v33/
// Caller ids past the vocabulary (docs/spec/penalties.md "Prompt ids past the vocabulary"):
// - penalties_prompt_id_clamped  a prompt id >= V clamped to V - 1 (a bounds "fix") instead of
//                                ignored: the last token is penalised
//                                -> penalties/prompt_id_past_vocab_v33/canonical
// Half-precision rows beside noise narrowed to f16 (docs/spec/draws.md "Half-precision rows and
// narrowed noise"):
// - race_noise_f16               exponential_race's q rounded to f16 before the division (q below
//                                2^-25 becomes 0: +inf ratios tie to the lower index, 0 / 0 =
//                                NaN wins torch's argmax under vllm)
//                                -> exponential_race/narrow_noise_v8_f16/
// - gumbel_noise_f16             gumbel_max's g rounded to f16 before the addition (step 2^-6
//                                near 17) -> gumbel_max/narrow_noise_v8_f16/
// Statistical faults of the same stages (layers L1 / L3 of the draw harness, not a golden):
// - flashinfer_top_k_first_as_joint  cases with a `kernel` and a filter_apply_order parameter
//                                run without it: top_k_first asked, the joint kernel run
//                                -> stats/flashinfer_sampling_from_probs/top_k_first_v16/ L1
// - flashinfer_joint_as_top_k_first  cases with kernel top_k_top_p run with filter_apply_order
//                                "top_k_first": joint asked, top_k_first run
//                                -> stats/flashinfer_sampling_from_probs/joint_order_v16/ L3
// - spec_step_vllm_min_p_verified  spec_step's vllm profile applies min-p at the verified
//                                positions too (canonical's rule)
//                                -> stats/spec_step/min_p_v8/vllm L3
// - spec_step_vllm_filtered_draft  spec_step's vllm profile filters the draft rows (the
//                                canonical rule) while its drafter's probabilities are
//                                unfiltered -> stats/spec_step/filtered_v8/vllm L3
// - spec_step_sglang_reused_coin spec_step's sglang final draw after a rejection reuses the
//                                rejecting coin instead of final_u
//                                -> stats/spec_step/target_only_v8/sglang L3
// - spec_step_sglang_unfiltered_acceptance  spec_step's sglang acceptance compares the coin
//                                with the softmax probability before the top-k / top-p renorm
//                                -> stats/spec_step/target_only_v8/sglang L3
// Seeded draws a backend makes with its own noise (layer "harness": a result of conform's
// checks whose id is caught_by must fail, and the reference's must pass):
// - vllm_generator_seed_row0     vllm rows with their own generator (`seeded`) all read seed[0]
//                                -> decode_steps_check/vllm/seeds (a row alone draws with its
//                                own seed, in the batch with row 0's)
// - vllm_generator_global_noise  when a vllm batch holds a random row without a seed, the seeded
//                                rows draw from the global q too (random_sample's per-request
//                                overwrite skipped) -> decode_steps_check/vllm/seeds
// - vllm_generator_offset_stuck  decode_steps under vllm: a seeded row's generator does not
//                                advance across steps (positions + 0; q[:, t] still advances)
//                                -> decode_steps_check/vllm/fresh_noise (and history)
// - tp_rank_keyed_noise          the pipeline's seeded rows on tensor-parallel rank r draw with
//                                seed + r (noise keyed by rank) -> tp_consensus_check/<profile>/ranks
// - tp_unseeded_rank_uniforms    the pipeline's seeded rows on a rank draw from uniforms that
//                                no seed keys (a per-rank stream, fresh at every call)
//                                -> tp_consensus_check/<profile>/ranks
//                                (both only when the case names its rank: param tp_rank)
// Example: MakeLogprobRankOffByOne()->Name() == "wrong:logprob_rank_off_by_one".

#include <memory>

#include "core/backend.h"

namespace sampcheck::statistical {

std::unique_ptr<Backend> MakeLogprobRankOffByOne();
std::unique_ptr<Backend> MakeLogprobTopRanksDedup();
std::unique_ptr<Backend> MakeLogprobsBeforeTemperature();
std::unique_ptr<Backend> MakeFinishMinTokensIgnored();
std::unique_ptr<Backend> MakeDecodeOffsetNotAdvanced();
std::unique_ptr<Backend> MakeDecodeHistoryNotUpdated();
std::unique_ptr<Backend> MakeDecodeSeedFromSlot();
std::unique_ptr<Backend> MakeFlashinferNanRowValid();
std::unique_ptr<Backend> MakeFlashinferIgnoresTopK();
std::unique_ptr<Backend> MakeSpecStepUnfilteredDraft();
std::unique_ptr<Backend> MakeSpecStepStopIgnored();
std::unique_ptr<Backend> MakeFlashinferTopKFirstAsJoint();
std::unique_ptr<Backend> MakeFlashinferJointAsTopKFirst();
std::unique_ptr<Backend> MakeSpecStepVllmMinPVerified();
std::unique_ptr<Backend> MakeSpecStepVllmFilteredDraft();
std::unique_ptr<Backend> MakeSpecStepSglangReusedCoin();
std::unique_ptr<Backend> MakeSpecStepSglangUnfilteredAcceptance();
std::unique_ptr<Backend> MakeBitmaskFillStaleTail();
std::unique_ptr<Backend> MakeBitmaskFillUnguidedZero();
std::unique_ptr<Backend> MakeBitmaskFillRowStride();
std::unique_ptr<Backend> MakeBitmaskIdNarrowedI32();
std::unique_ptr<Backend> MakeBitmaskStopNeverCleared();
std::unique_ptr<Backend> MakeDrawEmptyRowPadLane();
std::unique_ptr<Backend> MakeDrawNanAsConstant();
std::unique_ptr<Backend> MakePipelineInfSoftmaxTokenZero();
std::unique_ptr<Backend> MakePipelineDegenerateRowAbortsBatch();
std::unique_ptr<Backend> MakePenaltiesPromptIdClamped();
std::unique_ptr<Backend> MakeRaceNoiseF16();
std::unique_ptr<Backend> MakeGumbelNoiseF16();
std::unique_ptr<Backend> MakeVllmGeneratorSeedRow0();
std::unique_ptr<Backend> MakeVllmGeneratorGlobalNoise();
std::unique_ptr<Backend> MakeVllmGeneratorOffsetStuck();
std::unique_ptr<Backend> MakeTpRankKeyedNoise();
std::unique_ptr<Backend> MakeTpUnseededRankUniforms();

}  // namespace sampcheck::statistical
