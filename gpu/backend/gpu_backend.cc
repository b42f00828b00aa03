// SPDX-License-Identifier: Apache-2.0
// Stage glue of the gpu backends (gpu/backend/gpu_backend.h): input checks, output tensors, one
// kernel launch per stage.
#include "gpu/backend/gpu_backend.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/profile.h"
#include "core/stage_catalogue.h"
#include "gpu/backend/draws_glue.h"
#include "gpu/backend/noise_glue.h"
#include "gpu/backend/filters_glue.h"
#include "gpu/backend/flashinfer_sampling_from_probs_glue.h"
#include "gpu/backend/decode_steps_glue.h"
#include "gpu/backend/pipeline_glue.h"
#include "gpu/backend/spec_step_glue.h"
#include "reference/sglang_penalizer_gate.h"
#include "reference/stage_io.h"

namespace sampcheck::gpu {

namespace {

using reference::FormatFloat;
using reference::Outputs;
using reference::SglangPenalizerApplies;
using reference::StageInputs;
using StageFn = TensorMap (*)(const Case&, Profile, KernelRunner&);

TensorMap RunGreedy(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  StageInputs in(c, "greedy");
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0);
  const std::int64_t vocab = logits.dim(1);
  Tensor token(DType::kI64, {rows});
  runner.Run(GreedyLaunch(logits.data<float>().data(), rows, vocab, vocab, token.data<std::int64_t>().data()));
  return Outputs("token", std::move(token));
}

// The optional temperature of softmax, validated as reference/softmax.cc does.
const float* SoftmaxTemperature(const StageInputs& in, std::int64_t rows) {
  const Tensor* temp = in.Optional("temperature", DType::kF32, 1);
  if (!temp) return nullptr;
  in.ExpectDim("temperature", *temp, 0, rows);
  for (std::int64_t b = 0; b < rows; ++b) {
    const float t = temp->data<float>()[static_cast<std::size_t>(b)];
    if (!std::isfinite(t) || !(t > 0.0f)) {
      in.Fail("temperature[" + std::to_string(b) + "] = " + FormatFloat(t) + " must be finite and > 0");
    }
  }
  return temp->data<float>().data();
}

template <bool kLog>
TensorMap RunSoftmax(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  StageInputs in(c, kLog ? "log_softmax" : "softmax");
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0);
  const std::int64_t vocab = logits.dim(1);
  const float* temperature = SoftmaxTemperature(in, rows);
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.Run(
      SoftmaxLaunch(logits.data<float>().data(), temperature, rows, vocab, vocab, kLog, out.data<float>().data()));
  return Outputs(kLog ? "logprobs" : "probs", std::move(out));
}

// docs/spec/temperature.md: vLLM's _SAMPLING_EPS = 1e-5 and _MAX_TEMP = 1e-2
// (vllm/sampling_params.py), SGLang's _SAMPLING_EPS = 1e-6
// (python/sglang/srt/sampling/sampling_params.py); canonical takes vLLM's epsilon, no raise.
TemperatureRule TemperatureRuleFor(Profile profile) {
  switch (profile) {
    case Profile::kVllm: return {1e-5, 1e-2};
    case Profile::kSglang: return {1e-6, 0.0};
    default: return {1e-5, 0.0};
  }
}

TensorMap RunTemperature(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "temperature");
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0);
  const std::int64_t vocab = logits.dim(1);
  const Tensor& temp = in.Required("temperature", DType::kF32, 1);
  in.ExpectDim("temperature", temp, 0, rows);
  for (std::int64_t b = 0; b < rows; ++b) {
    const float t = temp.data<float>()[static_cast<std::size_t>(b)];
    if (!std::isfinite(t) || t < 0.0f) {
      in.Fail("temperature[" + std::to_string(b) + "] = " + FormatFloat(t) + " must be finite and >= 0");
    }
  }
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  Tensor greedy(DType::kBool, {rows});
  runner.Run(TemperatureLaunch(logits.data<float>().data(), temp.data<float>().data(), rows, vocab, vocab,
                               TemperatureRuleFor(profile), out.data<float>().data(),
                               greedy.data<std::uint8_t>().data()));
  TensorMap result = Outputs("logits", std::move(out));
  result.emplace("is_greedy", std::move(greedy));
  return result;
}

// docs/spec/nan_handling.md, sglang's `nan_mode` (checked as reference/nan_handling.cc does):
// keep (default) replaces nothing; detect_1e5 (older SGLang) NaN -> f32(-1e5); sanitize
// (SGLANG_SANITIZE_NAN_LOGITS) NaN and -inf -> f32(-1e30), +inf -> f32(1e30).
NanRule NanHandlingRule(const StageInputs& in, const Case& c, Profile profile) {
  std::string mode = "keep";
  if (c.params.contains("nan_mode")) {
    if (profile != Profile::kSglang) in.Fail("parameter nan_mode is read by the sglang profile only");
    if (!c.params["nan_mode"].is_string()) in.Fail("parameter nan_mode must be a string");
    mode = c.params["nan_mode"].get<std::string>();
    if (mode != "keep" && mode != "sanitize" && mode != "detect_1e5") {
      in.Fail("parameter nan_mode = '" + mode + "'; valid: keep, sanitize, detect_1e5");
    }
  }
  if (profile != Profile::kSglang || mode == "keep") return {};
  if (mode == "detect_1e5") return {.nan = true, .nan_value = -1e5f};
  return {true, -1e30f, true, -1e30f, true, 1e30f};
}

TensorMap RunNanHandling(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "nan_handling");
  const NanRule rule = NanHandlingRule(in, c, profile);
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0);
  const std::int64_t vocab = logits.dim(1);
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.Run(NanHandlingLaunch(logits.data<float>().data(), rows, vocab, vocab, rule, out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

// Inputs checked as reference/token_bitmask.cc checks them (same messages); the kernel then
// masks the rows marked here.
TensorMap RunTokenBitmask(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  StageInputs in(c, "token_bitmask");
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const Tensor& mask = in.Required("bitmask", DType::kI32, 2);
  const std::int64_t mask_rows = mask.dim(0), words = mask.dim(1);
  const std::int64_t limit = std::min(vocab, words * 32);
  std::int64_t vocab_size = limit;
  if (c.params.contains("vocab_size")) {
    const auto& v = c.params["vocab_size"];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > limit) {
      in.Fail("parameter vocab_size = " + v.dump() + " must be an integer in [0, min(V, 32 W)] = [0, " +
              std::to_string(limit) + "]");
    }
    vocab_size = v.get<std::int64_t>();
  }
  std::vector<std::uint8_t> masked(static_cast<std::size_t>(rows), 0);
  if (const Tensor* idx = in.Optional("indices", DType::kI32, 1)) {
    for (std::int32_t r : idx->data<std::int32_t>()) {
      if (r < 0 || r >= rows || r >= mask_rows) {
        in.Fail("indices entry " + std::to_string(r) + " is outside the logits rows [0, " + std::to_string(rows) +
                ") or the bitmask rows [0, " + std::to_string(mask_rows) + ")");
      }
      masked[static_cast<std::size_t>(r)] = 1;
    }
  } else {
    in.ExpectDim("bitmask", mask, 0, rows);
    std::fill(masked.begin(), masked.end(), std::uint8_t{1});
  }
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.Run(TokenBitmaskLaunch(logits.data<float>().data(), mask.data<std::int32_t>().data(), masked.data(), rows,
                                vocab, vocab, mask_rows, words, vocab_size, out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

// Inputs checked as reference/logit_bias.cc checks them (same messages, same order).
TensorMap RunLogitBias(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "logit_bias");
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const Tensor* dense = in.Optional("bias", DType::kF32, 2);
  if (dense) {
    in.ExpectDim("bias", *dense, 0, rows);
    in.ExpectDim("bias", *dense, 1, vocab);
  }
  const Tensor* sr = in.Optional("bias_rows", DType::kI32, 1);
  const Tensor* si = in.Optional("bias_ids", DType::kI32, 1);
  const Tensor* sv = in.Optional("bias_values", DType::kF32, 1);
  std::int64_t n = 0;
  if (sr || si || sv) {
    if (!sr || !si || !sv) in.Fail("sparse bias needs all of bias_rows, bias_ids and bias_values");
    n = sr->dim(0);
    in.ExpectDim("bias_ids", *si, 0, n);
    in.ExpectDim("bias_values", *sv, 0, n);
    auto r = sr->data<std::int32_t>();
    auto id = si->data<std::int32_t>();
    std::set<std::pair<std::int32_t, std::int32_t>> seen;
    for (std::int64_t k = 0; k < n; ++k) {
      if (r[k] < 0 || r[k] >= rows) {
        in.Fail("bias_rows[" + std::to_string(k) + "] = " + std::to_string(r[k]) + " is outside [0, " +
                std::to_string(rows) + ")");
      }
      if (id[k] < 0 || id[k] >= vocab) {
        in.Fail("bias_ids[" + std::to_string(k) + "] = " + std::to_string(id[k]) + " is outside the vocabulary [0, " +
                std::to_string(vocab) + ")");
      }
      if (!seen.emplace(r[k], id[k]).second) {
        in.Fail("bias entry (row " + std::to_string(r[k]) + ", token " + std::to_string(id[k]) + ") is listed twice");
      }
    }
  }
  // sglang densifies a sparse list (even an empty one: unlisted entries + 0.0f), vllm clamps
  // it; a dense bias alone is the same everywhere (docs/spec/logit_bias.md).
  const LogitBiasRule rule{profile == Profile::kSglang && sr != nullptr, profile == Profile::kVllm};
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.Run(LogitBiasLaunch(
      logits.data<float>().data(), dense ? dense->data<float>().data() : nullptr,
      n > 0 ? sr->data<std::int32_t>().data() : nullptr, n > 0 ? si->data<std::int32_t>().data() : nullptr,
      n > 0 ? sv->data<float>().data() : nullptr, n, rows, vocab, vocab, rule, out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

// Inputs checked as reference/allowed_token_ids.cc checks them.
TensorMap RunAllowedTokenIds(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  StageInputs in(c, "allowed_token_ids");
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const Tensor& allowed = in.Required("allowed_ids", DType::kI32, 2);
  in.ExpectDim("allowed_ids", allowed, 0, rows);
  in.ExpectIdsOrPadding("allowed_ids", allowed, vocab);
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.Run(AllowedTokenIdsLaunch(logits.data<float>().data(), allowed.data<std::int32_t>().data(), allowed.dim(1),
                                   rows, vocab, vocab, out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

// Inputs checked as reference/min_new_tokens.cc checks them.
TensorMap RunMinNewTokens(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "min_new_tokens");
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const Tensor& out_len = in.Required("output_len", DType::kI32, 1);
  const Tensor& min_tok = in.Required("min_tokens", DType::kI32, 1);
  const Tensor& stop = in.Required("stop_ids", DType::kI32, 2);
  in.ExpectDim("output_len", out_len, 0, rows);
  in.ExpectDim("min_tokens", min_tok, 0, rows);
  in.ExpectDim("stop_ids", stop, 0, rows);
  in.ExpectIdsOrPadding("stop_ids", stop, vocab);
  auto len = out_len.data<std::int32_t>();
  auto minimum = min_tok.data<std::int32_t>();
  const bool sglang = profile == Profile::kSglang;
  if (!sglang && c.params.contains("penalizers")) in.Fail("parameter penalizers is read by the sglang profile only");
  bool any = false;
  for (std::int32_t m : minimum) any |= m > 0;
  const bool applies = !sglang || SglangPenalizerApplies(in, c, any, "min_tokens > 0");
  for (std::int64_t b = 0; b < rows; ++b) {
    if (len[static_cast<std::size_t>(b)] < 0 || minimum[static_cast<std::size_t>(b)] < 0) {
      in.Fail("row " + std::to_string(b) + ": output_len and min_tokens must be >= 0");
    }
  }
  // Without the penalizer SGLang adds no tensor at all: every bit stays (-0.0 included).
  if (!applies) return Outputs("logits", Tensor(logits));
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.Run(MinNewTokensLaunch(logits.data<float>().data(), len.data(), minimum.data(),
                                stop.data<std::int32_t>().data(), stop.dim(1), rows, vocab, vocab,
                                profile == Profile::kSglang, out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

// Inputs checked as reference/bad_words.cc checks them.
TensorMap RunBadWords(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  StageInputs in(c, "bad_words");
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const Tensor& output = in.Required("output_ids", DType::kI32, 2);
  const Tensor& words = in.Required("bad_words", DType::kI32, 3);
  in.ExpectDim("output_ids", output, 0, rows);
  in.ExpectDim("bad_words", words, 0, rows);
  in.ExpectIdsOrPadding("output_ids", output, vocab);
  in.ExpectIdsOrPadding("bad_words", words, vocab);
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.Run(BadWordsLaunch(logits.data<float>().data(), output.data<std::int32_t>().data(), output.dim(1),
                            words.data<std::int32_t>().data(), words.dim(1), words.dim(2), rows, vocab, vocab,
                            out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

// A per-row penalty coefficient, `fallback` for every row when absent; checked as
// reference/penalties.cc checks it.
std::vector<float> PenaltyCoefficients(const StageInputs& in, const std::string& name, std::int64_t rows,
                                       float fallback, bool positive) {
  std::vector<float> values(static_cast<std::size_t>(rows), fallback);
  if (const Tensor* t = in.Optional(name, DType::kF32, 1)) {
    in.ExpectDim(name, *t, 0, rows);
    for (std::int64_t b = 0; b < rows; ++b) {
      const float v = t->data<float>()[static_cast<std::size_t>(b)];
      if (!std::isfinite(v) || (positive && !(v > 0.0f))) {
        in.Fail("'" + name + "'[" + std::to_string(b) + "] = " + FormatFloat(v) +
                (positive ? " must be finite and > 0" : " must be finite"));
      }
      values[static_cast<std::size_t>(b)] = v;
    }
  }
  return values;
}

const Tensor* PenaltyIds(const StageInputs& in, const std::string& name, std::int64_t rows, std::int64_t vocab) {
  const Tensor* t = in.Optional(name, DType::kI32, 2);
  if (t) {
    in.ExpectDim(name, *t, 0, rows);
    in.ExpectIdsOrPadding(name, *t, vocab);
  }
  return t;
}

// Inputs checked as reference/penalties.cc checks them (same order, same messages).
TensorMap RunPenalties(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "penalties");
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const Tensor* prompt = PenaltyIds(in, "prompt_ids", rows, vocab);
  const Tensor* output = PenaltyIds(in, "output_ids", rows, vocab);
  const std::vector<float> rep = PenaltyCoefficients(in, "repetition_penalty", rows, 1.0f, true);
  const std::vector<float> freq = PenaltyCoefficients(in, "frequency_penalty", rows, 0.0f, false);
  const std::vector<float> pres = PenaltyCoefficients(in, "presence_penalty", rows, 0.0f, false);
  const bool sglang = profile == Profile::kSglang;
  if (!sglang && c.params.contains("penalizers")) in.Fail("parameter penalizers is read by the sglang profile only");
  bool any = false;  // -0.0 counts as 0.0, as in Python
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto i = static_cast<std::size_t>(b);
    any |= rep[i] != 1.0f || freq[i] != 0.0f || pres[i] != 0.0f;
  }
  // Without a penalty in the batch SGLang adds nothing: every bit stays (-0.0 included).
  const char* what = "a repetition, frequency or presence penalty";
  if (sglang && !SglangPenalizerApplies(in, c, any, what)) return Outputs("logits", Tensor(logits));
  Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
  runner.Run(PenaltiesLaunch(logits.data<float>().data(), prompt ? prompt->data<std::int32_t>().data() : nullptr,
                             prompt ? prompt->dim(1) : 0, output ? output->data<std::int32_t>().data() : nullptr,
                             output ? output->dim(1) : 0, rep.data(), freq.data(), pres.data(), rows, vocab, vocab,
                             profile == Profile::kSglang, out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

const std::map<std::string, StageFn>& Stages() {
  static const std::map<std::string, StageFn> stages = {
      {"allowed_token_ids", RunAllowedTokenIds},
      {"bad_words", RunBadWords},
      {"greedy", RunGreedy},
      {"log_softmax", RunSoftmax<true>},
      {"logit_bias", RunLogitBias},
      {"min_new_tokens", RunMinNewTokens},
      {"nan_handling", RunNanHandling},
      {"penalties", RunPenalties},
      {"softmax", RunSoftmax<false>},
      {"temperature", RunTemperature},
      {"token_bitmask", RunTokenBitmask},
      // Draws, seeded draws, speculative verification, finish rules,
      // tp_consensus (gpu/backend/draws_glue.h).
      {"exponential_race", GpuExponentialRace},
      {"gumbel_max", GpuGumbelMax},
      {"inverse_cdf", GpuInverseCdf},
      {"multinomial_with_seed", GpuMultinomialWithSeed},
      {"multinomial_with_seed_token_ids", GpuMultinomialWithSeedTokenIds},
      {"qsample", GpuQSample},
      {"spec_greedy", GpuSpecGreedy},
      {"spec_random", GpuSpecRandom},
      {"finish_rules", GpuFinishRules},
      {"tp_consensus", GpuTpConsensus},
      // gpu/backend/flashinfer_sampling_from_probs_glue.h
      {"flashinfer_sampling_from_probs", GpuFlashinferSamplingFromProbs},
      // The noise stage (gpu/backend/noise_glue.cc).
      {"noise", RunNoiseStage},
      // filters (gpu/backend/filters_glue.cc)
      {"min_p", RunMinPKernel},
      {"sampling_filters", RunSamplingFiltersKernel},
      {"top_k", RunTopKKernel},
      {"top_p", RunTopPKernel},
      {"ascend_top_k_top_p_sample_v2", RunAscendTopKTopPSampleV2Kernel},
      {"logprobs", RunLogprobsKernel},
      // The pipeline and decode_steps: composed from the stages above (gpu/backend/pipeline_glue.h, gpu/backend/decode_steps_glue.h).
      {"pipeline", GpuPipeline},
      {"decode_steps", GpuDecodeSteps},
      // spec_step: composed likewise (gpu/backend/spec_step_glue.h).
      {"spec_step", GpuSpecStep},
  };
  return stages;
}

}  // namespace

std::vector<std::string> GpuBackend::SupportedStages() const {
  std::vector<std::string> names;
  for (const auto& [name, fn] : Stages()) names.push_back(name);
  return names;
}

TensorMap GpuBackend::Run(const std::string& stage, const Case& c) {
  const StageInfo& info = RequireStage(stage);
  RequireStageProfile(info, c.profile);
  auto it = Stages().find(stage);
  if (it == Stages().end()) {
    throw InputError("backend '" + Name() + "' has no kernel for stage '" + stage + "'");
  }
  return it->second(c, c.profile, *runner_);
}

StageCapabilities GpuBackend::Capabilities(const std::string& stage) const {
  StageCapabilities caps{.statistical_skip_reason = ComposedStageStatisticalSkipReason(stage, Name())};
  // spec_step (gpu/backend/spec_step_glue.h): sglang's chain has no kernel yet (docs/gpu.md "Skips").
  if (stage == "spec_step") {
    caps.profiles = ProfileSet{}.Add(Profile::kCanonical).Add(Profile::kVllm).Add(Profile::kBlockVerification);
  }
  return caps;
}

TensorMap RunGpuStage(const std::string& stage, const Case& c, Profile profile, KernelRunner& runner) {
  auto it = Stages().find(stage);
  if (it == Stages().end()) throw InputError("backend '" + runner.Name() + "' has no kernel for stage '" + stage + "'");
  return it->second(c, profile, runner);
}

std::unique_ptr<Backend> MakeGpuEmulatedBackend() { return std::make_unique<GpuBackend>(MakeEmulatedRunner()); }

}  // namespace sampcheck::gpu
