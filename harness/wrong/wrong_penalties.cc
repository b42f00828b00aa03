// SPDX-License-Identifier: Apache-2.0
// Caller ids past the vocabulary planted wrong (docs/spec/penalties.md "Prompt ids past the
// vocabulary"): rejected by a golden case.
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - penalties_prompt_id_clamped  a prompt id >= V clamped to V - 1 (a bounds "fix") instead of
//                                ignored: the last token is penalised
//                                -> penalties/prompt_id_past_vocab_v33/canonical
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

// A penalties kernel that clamps a prompt id into the row (min(id, V - 1)) instead of
// ignoring an id past the vocabulary: the last token is penalised as if it were in the prompt.
class PenaltiesPromptIdClamped final : public ExactFaultBackend {
 public:
  PenaltiesPromptIdClamped() : ExactFaultBackend("penalties_prompt_id_clamped") {}

 protected:
  Case Transform(const Case& c) override {
    auto logits = c.inputs.find("logits");
    auto prompt = c.inputs.find("prompt_ids");
    // Every case with a penalties step (the stage, the pipeline): logits [B, V] and prompt ids.
    if (logits == c.inputs.end() || prompt == c.inputs.end() || logits->second.rank() != 2 ||
        prompt->second.dtype() != DType::kI32) {
      return c;
    }
    Case clamped = c;
    const auto last = static_cast<std::int32_t>(logits->second.dim(1) - 1);
    for (std::int32_t& id : clamped.inputs.at("prompt_ids").data<std::int32_t>()) id = id > last ? last : id;  // the bug
    return clamped;
  }
};

std::unique_ptr<Backend> MakePenaltiesPromptIdClamped() { return std::make_unique<PenaltiesPromptIdClamped>(); }

}  // namespace

SAMPCHECK_WRONG_SAMPLER(PenaltiesPromptIdClamped, {{"penalties_prompt_id_clamped", "a prompt id >= V is clamped to V - 1 and penalises the last token",
        "penalties/prompt_id_past_vocab_v33/canonical", "golden"},
       MakePenaltiesPromptIdClamped});

}  // namespace sampcheck::statistical
