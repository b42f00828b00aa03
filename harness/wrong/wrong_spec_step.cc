// SPDX-License-Identifier: Apache-2.0
// The whole speculative step planted wrong (docs/spec/spec_step.md): a golden case or a
// stats/spec_step/ case of the draw harness rejects each.
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - spec_step_unfiltered_draft   spec_step's draft probabilities are taken from the tempered
//                                logits without the request's filters
//                                -> spec_step/filtered_draft/canonical
// - spec_step_stop_ignored       spec_step never looks for stop ids in the emitted tokens
//                                -> spec_step/edges/canonical
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
// Each registers itself with SAMPCHECK_WRONG_SAMPLER (harness/wrong/wrong_samplers.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/half.h"
#include "core/profile.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "harness/wrong/wrong_backend.h"
#include "harness/wrong/wrong_samplers.h"
#include "reference/decode_steps.h"
#include "reference/pipeline.h"
#include "reference/reference_backend.h"
#include "reference/spec_step.h"
#include "reference/stage_io.h"

namespace sampcheck::statistical {
namespace {

std::unique_ptr<Backend> MakeSpecStepUnfilteredDraft() {
  return std::make_unique<SpecStepFault>("spec_step_unfiltered_draft", reference::SpecStepRules{false, true});
}

std::unique_ptr<Backend> MakeSpecStepStopIgnored() {
  return std::make_unique<SpecStepFault>("spec_step_stop_ignored", reference::SpecStepRules{true, false});
}

std::unique_ptr<Backend> MakeSpecStepVllmMinPVerified() {
  reference::SpecStepRules rules;
  rules.vllm_min_p_verified = true;
  return std::make_unique<SpecStepFault>("spec_step_vllm_min_p_verified", rules);
}

std::unique_ptr<Backend> MakeSpecStepVllmFilteredDraft() {
  reference::SpecStepRules rules;
  rules.vllm_filter_draft = true;
  return std::make_unique<SpecStepFault>("spec_step_vllm_filtered_draft", rules);
}

std::unique_ptr<Backend> MakeSpecStepSglangReusedCoin() {
  reference::SpecStepRules rules;
  rules.sglang_reuse_coin = true;
  return std::make_unique<SpecStepFault>("spec_step_sglang_reused_coin", rules);
}

std::unique_ptr<Backend> MakeSpecStepSglangUnfilteredAcceptance() {
  reference::SpecStepRules rules;
  rules.sglang_unfiltered_acceptance = true;
  return std::make_unique<SpecStepFault>("spec_step_sglang_unfiltered_acceptance", rules);
}

}  // namespace

SAMPCHECK_WRONG_SAMPLER(SpecStepUnfilteredDraft, {{"spec_step_unfiltered_draft", "spec_step verifies against unfiltered draft probabilities",
        "spec_step/filtered_draft/canonical", "golden"},
       MakeSpecStepUnfilteredDraft});
SAMPCHECK_WRONG_SAMPLER(SpecStepStopIgnored, {{"spec_step_stop_ignored", "spec_step ignores stop ids inside the accepted drafts", "spec_step/edges/canonical",
        "golden"},
       MakeSpecStepStopIgnored});
SAMPCHECK_WRONG_SAMPLER(SpecStepVllmMinPVerified, {{"spec_step_vllm_min_p_verified", "spec_step (vllm) applies min-p at the verified positions, not only the bonus",
        "stats/spec_step/min_p_v8/vllm", "L3"},
       MakeSpecStepVllmMinPVerified});
SAMPCHECK_WRONG_SAMPLER(SpecStepVllmFilteredDraft, {{"spec_step_vllm_filtered_draft", "spec_step (vllm) verifies against filtered draft rows the drafter never filtered",
        "stats/spec_step/filtered_v8/vllm", "L3"},
       MakeSpecStepVllmFilteredDraft});
SAMPCHECK_WRONG_SAMPLER(SpecStepSglangReusedCoin, {{"spec_step_sglang_reused_coin", "spec_step (sglang) reuses the rejecting coin for the final draw",
        "stats/spec_step/target_only_v8/sglang", "L3"},
       MakeSpecStepSglangReusedCoin});
SAMPCHECK_WRONG_SAMPLER(SpecStepSglangUnfilteredAcceptance, {{"spec_step_sglang_unfiltered_acceptance",
        "spec_step (sglang) accepts against the target probability before the top-k / top-p renorm",
        "stats/spec_step/target_only_v8/sglang", "L3"},
       MakeSpecStepSglangUnfilteredAcceptance});

}  // namespace sampcheck::statistical
