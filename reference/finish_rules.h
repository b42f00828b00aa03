// SPDX-License-Identifier: Apache-2.0
#pragma once
// finish_rules: after a token is sampled, whether the request finishes, why, whether the token
// reaches the text, and which ids the min-tokens mask bans at the next step
// (docs/spec/finish_rules.md).
//
// Contract:
// - Inputs, one row per request: token [B] i64 >= 0 (this step's sampled id); output_len [B]
//   i32 >= 1 (output tokens including this one); max_tokens [B] i32 >= 1; min_tokens [B] i32 in
//   [0, max_tokens]; ignore_eos [B] bool; eos_ids [B, E] i32 (the model's EOS ids, primary
//   first, then generation-config extras; -1 padded, others >= 0); stop_ids [B, S] i32 (the
//   request's stop_token_ids, -1 padded, others >= 0); optional keep_stop [B] bool (vLLM
//   include_stop_str_in_output, SGLang no_stop_trim; absent: false).
// - Outputs: finish_reason [B] i32 (0 running, 1 stop, 2 length); stop_reason [B] i64 (the
//   matched id, or -1); text_keep [B] bool (the token reaches the detokenized text); next_banned
//   [B, E + S] i32 (ascending distinct ids set to -inf at the next step, -1 padded).
// - Let primary = eos_ids[b, 0] (absent when -1), extras = the other eos ids.
//   canonical and vllm (vllm/v1/core/sched/utils.py check_stop; vllm/sampling_params.py
//   update_from_generation_config):
//     output_len < min_tokens            -> running (no stop and no length check)
//     !ignore_eos and token == primary   -> stop; stop_reason -1 (vllm), token (canonical)
//     token in stop_ids, or !ignore_eos and token in extras -> stop, stop_reason token
//     output_len >= max_tokens           -> length
//   sglang (python/sglang/srt/managers/schedule_batch.py Req.update_finish_state @d55f1c28):
//     !ignore_eos and token in stop_ids or eos_ids -> stop, stop_reason token (checked first:
//                                           _check_token_based_finish)
//     output_len >= max_tokens           -> length
//     (min_tokens is not checked; ignore_eos disables the stop ids too)
//   text_keep: a length-finished or running token is kept. A stop-finished token: vllm and
//   canonical keep it iff keep_stop (vllm/v1/engine/detokenizer.py update); sglang iff
//   keep_stop or token == 0 (detokenizer_manager.py trim_matched_stop: `if not matched` treats
//   id 0 as no match).
//   next_banned: empty when output_len >= min_tokens; else, ignore_eos or not, canonical and
//   vllm eos_ids ∪ stop_ids (vllm _all_stop_token_ids); sglang primary ∪ stop_ids
//   (penaltylib/min_new_tokens.py BatchedMinNewTokensPenalizer._prepare @d55f1c28 reads the
//   tokenizer's EOS and stop ids, not req.eos_token_ids).
// - Peer commits: vLLM 9aaf83ef, SGLang d55f1c28 (docs/peers.md).
// - Exact tier, integers only, no randomness.
// Example: token 7 = eos_ids[0], output_len = max_tokens = 4, min_tokens 0: stop in every
//   profile (the token checks come before the length check); stop_reason -1 (vllm), 7 (sglang).

#include <cstdint>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The checked inputs (contract block), read once for the reference and the gpu glue
// (gpu/backend/draws_glue.cc); every row's checks run before any output, in row order, so the
// first failure is the same whoever computes the outputs. Pointers into the case.
struct FinishRulesArgs {
  const Tensor* token = nullptr;       // [B] i64
  const Tensor* output_len = nullptr;  // [B] i32
  const Tensor* max_tokens = nullptr;  // [B] i32
  const Tensor* min_tokens = nullptr;  // [B] i32
  const Tensor* ignore_eos = nullptr;  // [B] bool
  const Tensor* eos_ids = nullptr;     // [B, E] i32
  const Tensor* stop_ids = nullptr;    // [B, S] i32
  const Tensor* keep_stop = nullptr;   // [B] bool, or null (false)
  std::int64_t rows = 0;
};
FinishRulesArgs ParseFinishRules(const Case& c);

TensorMap RunFinishRules(const Case& c, Profile profile);

}  // namespace sampcheck::reference
