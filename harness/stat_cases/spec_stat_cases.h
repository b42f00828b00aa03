// SPDX-License-Identifier: Apache-2.0
#pragma once
// The draw harness's case families for spec_random (docs/spec/harness.md "Speculative
// decoding"): target and draft rows WITHOUT noise, under the vllm and
// flashinfer profiles, with declared MDEs as in stat_cases.h.
//
// Contract:
// - Ids "stats/spec_random/<family>/<profile>". Each case holds draft_ids i32 [B, K] (the
//   tokens are placeholders, redrawn from draft_probs by the harness — spec_draws.h; only
//   n_b and the -1 padding count), target_probs f32 [B, K + 1, V] and draft_probs f32
//   [B, K, V], every row normalised in binary64 and rounded to f32. The n-gram family (vllm
//   only) has no draft_probs and fixed draft_ids.
// - Families: small_v4 (V = 4, K = 2, overlapping rows, TV(p_0, q_0) = 0.4), draft_zero_v8
//   (V = 8: the draft never proposes four tokens the target holds, and proposes one token the
//   target forbids, which must never be emitted), v100 (two rows, n = 3 and n = 1 of K = 3),
//   v1023 (flat draft, decaying target), ngram_v8 (vllm, two rows, n = 2 and n = 1); and
//   "<family>_accept" for every family but v100: the same inputs counting the acceptance of
//   draft 0 (spec_draws.h, kSpecCountParam), targeted_ratio 0.8.
// - stats/spec_random/recovered_v8/vllm (one draft per request over V = 8, acceptance 0.65; its
//   own family at position 500, before the pipeline's, where the list has always had it).
// - Registered from spec_stat_cases.cc with SAMPCHECK_STAT_FAMILY (stat_cases.h): spec_random
//   at position 700, spec_step at 800.
// - typical_acceptance is not in the list: it is not distribution preserving (its first
//   token is the draft whenever the target gives it more than the threshold), so a case for
//   it would fail every run by design.
// - Deterministic: fixed numbers.
#include <vector>

#include "harness/stat_cases/stat_cases.h"

namespace sampcheck::statistical {

std::vector<StatCase> SpecStatCases();

// spec_step's families (docs/spec/spec_step.md "Draw harness"): "stats/spec_step/filtered_v8/
// <canonical|block_verification|vllm|sglang>" (two random rows, V = 8, K = 2: top-k 4 on row
// 0, top-p 0.9 and a min_tokens-masked stop id on row 1, both applied to the target and the
// draft logits; the counted first token follows target row 0 as the profile filters it, the
// drafts are drawn from the verifier's draft rows: vllm's are unfiltered, sglang's verifier
// reads none and gets the draft under its own renorms), "stats/spec_step/filtered_v8_accept/
// <canonical|vllm|sglang>" (draft 0's acceptance: Bernoulli(1 - TV) of those rows
// token-wise, Bernoulli(sum_x q(x) p(x)) under sglang) and
// "stats/spec_step/target_only_v8/sglang" (rows where SGLang's planted faults move the first
// token by TV >= 0.06: a draft concentrated on a token of renormalised target probability
// 0.55 / 0.63) and "stats/spec_step/min_p_v8/vllm" (vLLM's min-p only at the bonus: a row
// with one draft follows the target row without min-p, a row without drafts the bonus with
// it). MDE TV 0.05 / 0.01.
std::vector<StatCase> SpecStepStatCases();

}  // namespace sampcheck::statistical
