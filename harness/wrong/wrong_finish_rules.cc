// SPDX-License-Identifier: Apache-2.0
// The finish rules planted wrong: rejected by a golden case.
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - finish_min_tokens_ignored    cases with both min_tokens and max_tokens inputs (the finish
//                                rules) run with min_tokens 0: a stop token below the minimum
//                                finishes, and nothing is banned at the next step
//                                -> finish_rules/edges/vllm
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

class FinishMinTokensIgnored final : public ExactFaultBackend {
 public:
  FinishMinTokensIgnored() : ExactFaultBackend("finish_min_tokens_ignored") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.inputs.count("min_tokens") || !c.inputs.count("max_tokens")) return c;
    Case wrong = c;
    for (auto& m : wrong.inputs.at("min_tokens").data<std::int32_t>()) m = 0;
    return wrong;
  }
};

std::unique_ptr<Backend> MakeFinishMinTokensIgnored() { return std::make_unique<FinishMinTokensIgnored>(); }

}  // namespace

SAMPCHECK_WRONG_SAMPLER(FinishMinTokensIgnored, {{"finish_min_tokens_ignored", "the finish rules ignore min_tokens", "finish_rules/edges/vllm", "golden"},
       MakeFinishMinTokensIgnored});

}  // namespace sampcheck::statistical
