// SPDX-License-Identifier: Apache-2.0
// pipeline on the gpu backends (gpu/backend/pipeline_glue.h, docs/spec/pipeline.md). The structure,
// the order of the checks and their messages are reference/pipeline.cc's; every step is one
// gpu stage (RunGpuStage: one kernel launch), and the draw and the greedy/drawn choice are
// kernels too.
#include "gpu/backend/pipeline_glue.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gpu/backend/gpu_backend.h"
#include "gpu/kernels/greedy.cuh"
#include "reference/pipeline.h"
#include "reference/stage_io.h"

namespace sampcheck::gpu {

namespace {

using reference::FormatFloat;
using reference::Outputs;
using reference::StageInputs;

// The logits flowing through the steps, and the sub-cases that advance them
// (reference/pipeline.cc's Steps, with the gpu stage of the same name).
class Steps {
 public:
  Steps(const Case& c, Profile profile, KernelRunner& runner, Tensor logits)
      : case_(c), profile_(profile), runner_(runner), logits_(std::move(logits)) {}

  bool Has(const std::string& name) const { return case_.inputs.count(name) != 0; }

  // Runs `stage` when its trigger input is present, on the current logits plus `names`
  // (those present), and keeps its output logits. Returns the stage's outputs.
  TensorMap Apply(const std::string& stage, const std::vector<std::string>& names,
                  nlohmann::json params = nlohmann::json::object()) {
    if (!Has(names.front())) return {};
    TensorMap out = Run(stage, names, std::move(params));
    logits_ = out.at("logits");
    return out;
  }

  // Runs `stage` on the current logits without replacing them.
  TensorMap Run(const std::string& stage, const std::vector<std::string>& names,
                nlohmann::json params = nlohmann::json::object()) const {
    Case sub;
    sub.id = case_.id + " > " + stage;
    sub.stage = stage;
    sub.profile = profile_;
    sub.params = std::move(params);
    sub.inputs.emplace("logits", logits_);
    for (const auto& name : names) {
      if (auto it = case_.inputs.find(name); it != case_.inputs.end()) sub.inputs.emplace(name, it->second);
    }
    return RunGpuStage(stage, sub, profile_, runner_);
  }

  const Tensor& logits() const { return logits_; }
  void SetLogits(Tensor logits) { logits_ = std::move(logits); }

 private:
  const Case& case_;
  Profile profile_;
  KernelRunner& runner_;
  Tensor logits_;
};

const std::vector<std::string> kPenalties = {"output_ids", "prompt_ids", "repetition_penalty", "frequency_penalty",
                                             "presence_penalty"};
const std::vector<std::string> kMinNewTokens = {"stop_ids", "output_len", "min_tokens"};
const std::vector<std::string> kBitmask = {"bitmask"};
const std::vector<std::string> kBias = {"bias"};
const std::vector<std::string> kFilters = {"top_k", "top_p", "min_p"};

// The steps before temperature, in the profile's order (reference/pipeline.h contract block).
void ApplyLogitSteps(Steps& steps, Profile profile) {
  if (profile == Profile::kVllm) {
    steps.Apply("token_bitmask", kBitmask);
    steps.Apply("min_new_tokens", kMinNewTokens);
    steps.Apply("logit_bias", kBias);
    steps.Apply("penalties", kPenalties);
  } else {
    steps.Apply("penalties", kPenalties);
    steps.Apply("min_new_tokens", kMinNewTokens);
    steps.Apply("token_bitmask", kBitmask);
    steps.Apply("logit_bias", kBias);
  }
}

}  // namespace

TensorMap GpuPipeline(const Case& c, Profile profile, KernelRunner& runner) {
  return GpuPipelineWith(c, profile, runner, {});
}

TensorMap GpuPipelineWith(const Case& c, Profile profile, KernelRunner& runner, const GpuPipelineRules& rules) {
  StageInputs in(c, "pipeline");
  if (profile != Profile::kCanonical && profile != Profile::kVllm && profile != Profile::kSglang) {
    in.Fail("profile " + std::string(ProfileName(profile)) + " has no pipeline (canonical, vllm, sglang)");
  }
  for (const auto& [name, t] : c.inputs) {
    if (t.rank() == 0) in.Fail("input '" + name + "' is a scalar; every pipeline input is per row [B, ...]");
  }
  if (c.inputs.count("bias_rows") || c.inputs.count("bias_ids") || c.inputs.count("bias_values")) {
    in.Fail("sparse logit bias lists are not per row; give the pipeline a dense 'bias' [B, V]");
  }
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  Steps steps(c, profile, runner, logits);
  ApplyLogitSteps(steps, profile);
  const TensorMap greedy = steps.Run("greedy", {});
  if (!steps.Has("temperature")) in.Fail("missing input tensor 'temperature' (f32 [B])");
  const TensorMap scaled = steps.Apply("temperature", {"temperature"});
  // Greedy by temperature, or (vllm) by top_k = 1: per-row flags from the inputs, which pick
  // the token in the select kernel.
  std::vector<std::uint8_t> is_greedy(scaled.at("is_greedy").data<std::uint8_t>().begin(),
                                      scaled.at("is_greedy").data<std::uint8_t>().end());
  for (std::int64_t b = 0; b < rows; ++b) {
    if (reference::PipelineTopKOneIsGreedy(c, profile, b)) is_greedy[static_cast<std::size_t>(b)] = 1;
  }
  reference::SglangResolveGreedyRows(in, c, profile, is_greedy, scaled.at("logits"));
  // Degenerate rows take their token without filters or a draw (docs/spec/pipeline.md
  // "Degenerate rows"); they enter the filter kernel as rows of -inf.
  std::vector<std::int64_t> degenerate(static_cast<std::size_t>(rows));
  for (std::int64_t b = 0; b < rows; ++b) {
    degenerate[static_cast<std::size_t>(b)] = reference::PipelineDegenerateToken(
        scaled.at("logits").data<float>().subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab)),
        profile);
  }
  steps.SetLogits(reference::PipelineFilterInput(steps.logits(), profile));

  nlohmann::json filter_params = nlohmann::json::object();
  if (c.params.contains("order")) filter_params["order"] = c.params["order"];
  const bool any_filter = steps.Has("top_k") || steps.Has("top_p") || steps.Has("min_p");
  const TensorMap filtered =
      steps.Run("sampling_filters", any_filter ? kFilters : std::vector<std::string>{"top_k"}, filter_params);
  const float* masked = filtered.at("logits").data<float>().data();
  const float* probs = filtered.at("probs").data<float>().data();
  const float* scaled_logits = scaled.at("logits").data<float>().data();

  const Tensor* seed = nullptr;
  const Tensor* positions = nullptr;
  Tensor q;
  const bool any_random = std::any_of(is_greedy.begin(), is_greedy.end(), [](std::uint8_t g) { return g == 0; });
  if (profile != Profile::kSglang && c.params.contains("sampling_path")) {
    in.Fail("parameter sampling_path is read by the sglang profile only");
  }
  reference::CheckVllmTopKOne(in, c, profile);
  const bool sglang_unfiltered =
      profile == Profile::kSglang && reference::SglangPipelineDrawsUnfiltered(in, c, is_greedy);
  if (any_random && profile == Profile::kVllm) {
    q = in.FloatRows("q", rows, vocab);
  } else if (any_random) {
    seed = &in.Required("seed", DType::kI64, 1);
    positions = &in.Required("positions", DType::kI64, 1);
    in.ExpectDim("seed", *seed, 0, rows);
    in.ExpectDim("positions", *positions, 0, rows);
  }

  // One draw launch for the batch; greedy rows' draws are discarded by the select kernel.
  Tensor drawn(DType::kI64, {rows});
  std::int64_t* const drawn_out = drawn.data<std::int64_t>().data();
  if (any_random) {
    if (profile == Profile::kVllm) {
      runner.Run(ExponentialRaceLaunch(probs, q.data<float>().data(), rows, vocab, vocab, true, drawn_out));
    } else if (profile == Profile::kSglang) {
      // Both SGLang paths draw from the full softmax of the scaled logits (no renormalisation).
      Tensor full = Tensor::Uninitialized(DType::kF32, {rows, vocab});
      runner.Run(SoftmaxLaunch(scaled_logits, nullptr, rows, vocab, vocab, false, full.data<float>().data()));
      const std::int64_t* s = seed->data<std::int64_t>().data();
      const std::int64_t* p = positions->data<std::int64_t>().data();
      if (sglang_unfiltered) {
        // sampling_from_probs_torch: no filter ran, keyed by token id.
        runner.Run(SeededGumbelLaunch(full.data<float>().data(), s, p, nullptr, rows, vocab, vocab, drawn_out));
      } else if (rules.sglang_rank_keys) {
        std::vector<std::uint8_t> draw(is_greedy.size());
        for (std::size_t b = 0; b < draw.size(); ++b) draw[b] = is_greedy[b] == 0 && degenerate[b] < 0;
        runner.Run(SglangRankDrawLaunch(full.data<float>().data(), scaled_logits, masked, draw.data(), s, p, rows,
                                        vocab, vocab, drawn_out));
      } else {
        runner.Run(
            SeededGumbelLaunch(probs, s, p, nullptr, rows, vocab, vocab, drawn_out));  // planted: keyed by token id
      }
    } else {
      runner.Run(SeededGumbelLaunch(probs, seed->data<std::int64_t>().data(), positions->data<std::int64_t>().data(),
                                    nullptr, rows, vocab, vocab, drawn_out));
    }
  }

  // The reference's per-row checks, in its order (the noise of a random row, then its draw).
  for (std::int64_t b = 0; b < rows; ++b) {
    if (is_greedy[static_cast<std::size_t>(b)] != 0) continue;
    if (degenerate[static_cast<std::size_t>(b)] >= 0) {  // no draw: the reference checks no noise either
      drawn_out[b] = degenerate[static_cast<std::size_t>(b)];
      continue;
    }
    const std::string row = "row " + std::to_string(b);
    if (profile == Profile::kVllm) {
      const auto qrow = q.data<float>().subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
      for (float v : qrow) {
        if (!std::isfinite(v) || !(v > 0.0f)) {
          in.Fail(row + ": 'q' holds " + FormatFloat(v) + "; Exp(1) noise must be finite and > 0");
        }
      }
    } else {
      const std::int64_t pos = positions->data<std::int64_t>()[static_cast<std::size_t>(b)];
      if (pos < 0 || pos > 0xffffffffLL)
        in.Fail(row + ": positions = " + std::to_string(pos) + " must be in [0, 2^32)");
    }
    const std::int64_t d = drawn_out[b];
    if (d < 0 || d >= vocab) in.Fail(row + " has no token of positive probability after the filters");
  }

  Tensor token(DType::kI64, {rows});
  runner.Run(PipelineSelectLaunch(is_greedy.data(), greedy.at("token").data<std::int64_t>().data(),
                                  any_random ? drawn_out : nullptr, rows, token.data<std::int64_t>().data()));
  return Outputs("token", std::move(token));
}

std::string ComposedStageStatisticalSkipReason(const std::string& stage, const std::string& backend) {
  if (stage != "pipeline" && stage != "decode_steps") return {};
  return "backend '" + backend +
         "' runs the pipeline's statistical batches (10^4 to 5 x 10^5 replicas of rows up to V = 8193, each step a "
         "kernel launch) too slowly: hours on the emulator, and SGLang's sorted-path rank count is O(V^2) per row "
         "(docs/gpu.md); the pipeline's goldens are checked bitwise, its statistics on the reference";
}

}  // namespace sampcheck::gpu
