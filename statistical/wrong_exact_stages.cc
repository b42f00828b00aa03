// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong backends for exact-tier stages (statistical/wrong_exact_stages.h).
#include "statistical/wrong_exact_stages.h"

#include <string>

#include "core/profile.h"
#include "reference/decode_steps.h"
#include "reference/reference_backend.h"
#include "reference/spec_step.h"

namespace sampcheck::statistical {
namespace {

// The reference with one hook on the case (before Run) and one on the outputs (after).
class ExactFaultBackend : public Backend {
 public:
  explicit ExactFaultBackend(std::string name) : name_("wrong:" + std::move(name)) {}
  std::string Name() const override { return name_; }
  std::vector<std::string> SupportedStages() const override { return ref_.SupportedStages(); }
  TensorMap Run(const std::string& stage, const Case& c) override { return Corrupt(ref_.Run(stage, Transform(c))); }
  // The reference's, but no ranges: CountDraws is the only count this wrapper forwards.
  StageCapabilities Capabilities(const std::string& stage) const override {
    StageCapabilities caps = ref_.Capabilities(stage);
    caps.count_draws_range = false;
    return caps;
  }
  Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override {
    return ref_.CountDraws(stage, c, draws, seed);
  }

 protected:
  virtual Case Transform(const Case& c) { return c; }
  virtual TensorMap Corrupt(TensorMap out) { return out; }

 private:
  reference::ReferenceBackend ref_;
  std::string name_;
};

class LogprobRankOffByOne final : public ExactFaultBackend {
 public:
  LogprobRankOffByOne() : ExactFaultBackend("logprob_rank_off_by_one") {}

 protected:
  TensorMap Corrupt(TensorMap out) override {
    auto it = out.find("token_rank");
    if (it == out.end()) return out;
    for (auto& r : it->second.data<std::int64_t>()) r -= 1;  // #greater, the +1 forgotten
    return out;
  }
};

class LogprobsBeforeTemperature final : public ExactFaultBackend {
 public:
  LogprobsBeforeTemperature() : ExactFaultBackend("logprobs_before_temperature") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("mode") || !c.params["mode"].is_string()) return c;
    if (c.params["mode"].get<std::string>().rfind("processed_", 0) != 0) return c;
    Case wrong = c;
    wrong.inputs.erase("temperature");  // every row at temperature 1
    return wrong;
  }
};

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

class FlashinferNanRowValid final : public ExactFaultBackend {
 public:
  FlashinferNanRowValid() : ExactFaultBackend("flashinfer_nan_row_valid") {}

 protected:
  TensorMap Corrupt(TensorMap out) override {
    auto it = out.find("valid");
    if (it == out.end() || !out.count("rounds")) return out;
    for (auto& v : it->second.data<std::uint8_t>()) v = 1;  // the NaN row's flag forgotten
    return out;
  }
};

class FlashinferIgnoresTopK final : public ExactFaultBackend {
 public:
  FlashinferIgnoresTopK() : ExactFaultBackend("flashinfer_ignores_top_k") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("kernel") || !c.inputs.count("top_k")) return c;
    Case wrong = c;
    for (auto& k : wrong.inputs.at("top_k").data<std::int32_t>()) k = -1;  // uint32 2^32 - 1: no limit
    return wrong;
  }
};

// The top_k_first order asked, the joint kernel run (the filter_apply_order parameter
// dropped: joint is the stage's default).
class FlashinferTopKFirstAsJoint final : public ExactFaultBackend {
 public:
  FlashinferTopKFirstAsJoint() : ExactFaultBackend("flashinfer_top_k_first_as_joint") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("kernel") || !c.params.contains("filter_apply_order")) return c;
    Case wrong = c;
    wrong.params.erase("filter_apply_order");
    return wrong;
  }
};

// The joint order asked (the top_k_top_p kernel without filter_apply_order, or "joint"),
// top_k_first run.
class FlashinferJointAsTopKFirst final : public ExactFaultBackend {
 public:
  FlashinferJointAsTopKFirst() : ExactFaultBackend("flashinfer_joint_as_top_k_first") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("kernel") || c.params["kernel"] != "top_k_top_p") return c;
    Case wrong = c;
    wrong.params["filter_apply_order"] = "top_k_first";
    return wrong;
  }
};

// Runs the speculative step under wrong rules: the only stage with a draft_ids input and
// target logits (not probabilities).
class SpecStepFault final : public ExactFaultBackend {
 public:
  SpecStepFault(std::string name, reference::SpecStepRules rules) : ExactFaultBackend(std::move(name)), rules_(rules) {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    if (!c.inputs.count("draft_ids") || !c.inputs.count("target_logits") || !c.inputs.count("temperature")) {
      return ExactFaultBackend::Run(stage, c);
    }
    return reference::RunSpecStepWith(c, c.profile, rules_);
  }

 private:
  reference::SpecStepRules rules_;
};

}  // namespace

std::unique_ptr<Backend> MakeLogprobRankOffByOne() { return std::make_unique<LogprobRankOffByOne>(); }
std::unique_ptr<Backend> MakeLogprobsBeforeTemperature() { return std::make_unique<LogprobsBeforeTemperature>(); }
std::unique_ptr<Backend> MakeFinishMinTokensIgnored() { return std::make_unique<FinishMinTokensIgnored>(); }
std::unique_ptr<Backend> MakeDecodeOffsetNotAdvanced() {
  return std::make_unique<DecodeStepsFault>("decode_offset_not_advanced", reference::DecodeStepsRules{0, true});
}
std::unique_ptr<Backend> MakeFlashinferNanRowValid() { return std::make_unique<FlashinferNanRowValid>(); }
std::unique_ptr<Backend> MakeFlashinferIgnoresTopK() { return std::make_unique<FlashinferIgnoresTopK>(); }
std::unique_ptr<Backend> MakeSpecStepUnfilteredDraft() {
  return std::make_unique<SpecStepFault>("spec_step_unfiltered_draft", reference::SpecStepRules{false, true});
}
std::unique_ptr<Backend> MakeSpecStepStopIgnored() {
  return std::make_unique<SpecStepFault>("spec_step_stop_ignored", reference::SpecStepRules{true, false});
}
std::unique_ptr<Backend> MakeFlashinferTopKFirstAsJoint() { return std::make_unique<FlashinferTopKFirstAsJoint>(); }
std::unique_ptr<Backend> MakeFlashinferJointAsTopKFirst() { return std::make_unique<FlashinferJointAsTopKFirst>(); }
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
std::unique_ptr<Backend> MakeDecodeSeedFromSlot() { return std::make_unique<DecodeSeedFromSlot>(); }
std::unique_ptr<Backend> MakeDecodeHistoryNotUpdated() {
  return std::make_unique<DecodeStepsFault>("decode_history_not_updated", reference::DecodeStepsRules{1, false});
}

}  // namespace sampcheck::statistical
