// SPDX-License-Identifier: Apache-2.0
// The decode steps planted wrong: rejected by golden cases (and decode_seed_from_slot by
// harness/decode_steps_check.h's "seeds" check too).
//
// Contract (what each planted bug changes -> the case or check that must reject it):
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

// Runs the decode steps under wrong rules: the only stage whose logits are rank 3.
class DecodeStepsFault final : public ExactFaultBackend {
 public:
  DecodeStepsFault(std::string name, reference::DecodeStepsRules rules)
      : ExactFaultBackend(std::move(name)), rules_(rules) {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    auto it = c.inputs.find("logits");
    if (it == c.inputs.end() || it->second.rank() != 3) return ExactFaultBackend::Run(stage, c);
    return reference::RunDecodeStepsWith(c, c.profile, rules_);
  }

 private:
  reference::DecodeStepsRules rules_;
};

// A decode-steps row's seed depends on its batch slot (seed + slot), as when a per-request
// generator is looked up by slot instead of by request: the only stage whose logits are rank 3.
class DecodeSeedFromSlot final : public ExactFaultBackend {
 public:
  DecodeSeedFromSlot() : ExactFaultBackend("decode_seed_from_slot") {}

 protected:
  Case Transform(const Case& c) override {
    auto it = c.inputs.find("logits");
    if (it == c.inputs.end() || it->second.rank() != 3 || !c.inputs.count("seed")) return c;
    Case wrong = c;
    auto seeds = wrong.inputs.at("seed").data<std::int64_t>();
    for (std::size_t b = 0; b < seeds.size(); ++b) {
      seeds[b] = static_cast<std::int64_t>(static_cast<std::uint64_t>(seeds[b]) + b);
    }
    return wrong;
  }
};

std::unique_ptr<Backend> MakeDecodeOffsetNotAdvanced() {
  return std::make_unique<DecodeStepsFault>("decode_offset_not_advanced", reference::DecodeStepsRules{0, true});
}

std::unique_ptr<Backend> MakeDecodeHistoryNotUpdated() {
  return std::make_unique<DecodeStepsFault>("decode_history_not_updated", reference::DecodeStepsRules{1, false});
}

std::unique_ptr<Backend> MakeDecodeSeedFromSlot() { return std::make_unique<DecodeSeedFromSlot>(); }

}  // namespace

SAMPCHECK_WRONG_SAMPLER(DecodeOffsetNotAdvanced, {{"decode_offset_not_advanced", "decode steps reuse step 0's noise offset", "decode_steps/fresh_noise_v64/", "golden"},
       MakeDecodeOffsetNotAdvanced});
SAMPCHECK_WRONG_SAMPLER(DecodeHistoryNotUpdated, {{"decode_history_not_updated", "decode steps never add drawn tokens to the penalty history",
        "decode_steps/greedy_history/", "golden"},
       MakeDecodeHistoryNotUpdated});
SAMPCHECK_WRONG_SAMPLER(DecodeSeedFromSlot, {{"decode_seed_from_slot", "a decode-steps row's seed depends on its batch slot", "decode_steps/random_v16_", "golden"},
       MakeDecodeSeedFromSlot});

}  // namespace sampcheck::statistical
