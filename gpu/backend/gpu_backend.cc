// SPDX-License-Identifier: Apache-2.0
// Stage glue of the gpu backends (gpu/backend/gpu_backend.h): inputs from each stage's reference
// parse function (reference/<stem>.h), output tensors, one kernel launch per stage.
#include "gpu/backend/gpu_backend.h"

#include <map>
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
#include "reference/allowed_token_ids.h"
#include "reference/bad_words.h"
#include "reference/logit_bias.h"
#include "reference/min_new_tokens.h"
#include "reference/nan_handling.h"
#include "reference/penalties.h"
#include "reference/softmax.h"
#include "reference/temperature.h"
#include "reference/token_bitmask.h"
#include "reference/stage_io.h"

namespace sampcheck::gpu {

namespace {

using reference::Outputs;
using reference::StageInputs;
using StageFn = TensorMap (*)(const Case&, Profile, KernelRunner&);
// A stage's glue and the profiles its kernels implement (all of the catalogue's unless a glue
// header says otherwise).
struct StageKernel {
  StageKernel(StageFn r, ProfileSet p = ProfileSet::All()) : run(r), profiles(p) {}  // NOLINT: implicit from a glue
  StageFn run;
  ProfileSet profiles;
};

TensorMap RunGreedy(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  StageInputs in(c, "greedy");
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0);
  const std::int64_t vocab = logits.dim(1);
  Tensor token(DType::kI64, {rows});
  runner.Run(GreedyLaunch(logits.data<float>().data(), rows, vocab, vocab, token.data<std::int64_t>().data()));
  return Outputs("token", std::move(token));
}

// Inputs from reference/softmax.h's ParseSoftmax.
template <bool kLog>
TensorMap RunSoftmax(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  const reference::SoftmaxArgs a = reference::ParseSoftmax(c, kLog);
  const std::int64_t rows = a.logits.dim(0);
  const std::int64_t vocab = a.logits.dim(1);
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  runner.Run(SoftmaxLaunch(a.logits.data<float>().data(), a.temperature, rows, vocab, vocab, kLog,
                           out.data<float>().data()));
  return Outputs(kLog ? "logprobs" : "probs", std::move(out));
}

// Inputs and the profile's rule from reference/temperature.h's ParseTemperature.
TensorMap RunTemperature(const Case& c, Profile profile, KernelRunner& runner) {
  const reference::TemperatureArgs a = reference::ParseTemperature(c, profile);
  const std::int64_t rows = a.logits.dim(0);
  const std::int64_t vocab = a.logits.dim(1);
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  Tensor greedy(DType::kBool, {rows});
  runner.Run(TemperatureLaunch(a.logits.data<float>().data(), a.temperature->data<float>().data(), rows, vocab, vocab,
                               a.rule, out.data<float>().data(), greedy.data<std::uint8_t>().data(), false));
  TensorMap result = Outputs("logits", std::move(out));
  result.emplace("is_greedy", std::move(greedy));
  return result;
}

// Inputs and the profile's rule from reference/nan_handling.h's ParseNanHandling.
TensorMap RunNanHandling(const Case& c, Profile profile, KernelRunner& runner) {
  const reference::NanHandlingArgs a = reference::ParseNanHandling(c, profile);
  const std::int64_t rows = a.logits.dim(0);
  const std::int64_t vocab = a.logits.dim(1);
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  runner.Run(NanHandlingLaunch(a.logits.data<float>().data(), rows, vocab, vocab, a.rule, out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

// Inputs and the rows to mask from reference/token_bitmask.h's ParseTokenBitmask.
TensorMap RunTokenBitmask(const Case& c, Profile profile, KernelRunner& runner) {
  const reference::TokenBitmaskArgs a = reference::ParseTokenBitmask(c, profile);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  const Tensor& mask = *a.bitmask;
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  runner.Run(TokenBitmaskLaunch(a.logits.data<float>().data(), mask.data<std::int32_t>().data(), a.masked.data(), rows,
                                vocab, vocab, mask.dim(0), mask.dim(1), a.vocab_size, out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

// Inputs and the profile's rule from reference/logit_bias.h's ParseLogitBias.
TensorMap RunLogitBias(const Case& c, Profile profile, KernelRunner& runner) {
  const reference::LogitBiasArgs a = reference::ParseLogitBias(c, profile);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  const bool listed = a.n > 0;
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  runner.Run(LogitBiasLaunch(a.logits.data<float>().data(), a.dense ? a.dense->data<float>().data() : nullptr,
                             listed ? a.rows : nullptr, listed ? a.ids : nullptr, listed ? a.values : nullptr, a.n,
                             rows, vocab, vocab, a.rule, out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

// Inputs from reference/allowed_token_ids.h's ParseAllowedTokenIds.
TensorMap RunAllowedTokenIds(const Case& c, Profile profile, KernelRunner& runner) {
  const reference::AllowedTokenIdsArgs a = reference::ParseAllowedTokenIds(c, profile);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  runner.Run(AllowedTokenIdsLaunch(a.logits.data<float>().data(), a.allowed_ids->data<std::int32_t>().data(),
                                   a.allowed_ids->dim(1), rows, vocab, vocab, out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

// Inputs, SGLang's gate and the profile's rule from reference/min_new_tokens.h's ParseMinNewTokens.
TensorMap RunMinNewTokens(const Case& c, Profile profile, KernelRunner& runner) {
  reference::MinNewTokensArgs a = reference::ParseMinNewTokens(c, profile);
  // Without the penalizer SGLang adds no tensor at all: every bit stays (-0.0 included).
  if (a.identity) return Outputs("logits", std::move(a.logits));
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  runner.Run(MinNewTokensLaunch(a.logits.data<float>().data(), a.output_len->data<std::int32_t>().data(),
                                a.min_tokens->data<std::int32_t>().data(), a.stop_ids->data<std::int32_t>().data(),
                                a.stop_ids->dim(1), rows, vocab, vocab, a.sglang, out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

// Inputs from reference/bad_words.h's ParseBadWords.
TensorMap RunBadWords(const Case& c, Profile profile, KernelRunner& runner) {
  const reference::BadWordsArgs a = reference::ParseBadWords(c, profile);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  const Tensor& output = *a.output_ids;
  const Tensor& words = *a.bad_words;
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  runner.Run(BadWordsLaunch(a.logits.data<float>().data(), output.data<std::int32_t>().data(), output.dim(1),
                            words.data<std::int32_t>().data(), words.dim(1), words.dim(2), rows, vocab, vocab,
                            out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

// Inputs, SGLang's gate and the profile's rule from reference/penalties.h's ParsePenalties.
TensorMap RunPenalties(const Case& c, Profile profile, KernelRunner& runner) {
  reference::PenaltiesArgs a = reference::ParsePenalties(c, profile);
  // Without a penalty in the batch SGLang adds nothing: every bit stays (-0.0 included).
  if (a.identity) return Outputs("logits", std::move(a.logits));
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  const Tensor* prompt = a.prompt_ids;
  const Tensor* output = a.output_ids;
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  runner.Run(PenaltiesLaunch(a.logits.data<float>().data(), prompt ? prompt->data<std::int32_t>().data() : nullptr,
                             prompt ? prompt->dim(1) : 0, output ? output->data<std::int32_t>().data() : nullptr,
                             output ? output->dim(1) : 0, a.repetition.data(), a.frequency.data(), a.presence.data(),
                             rows, vocab, vocab, a.sglang, out.data<float>().data()));
  return Outputs("logits", std::move(out));
}

const std::map<std::string, StageKernel>& Stages() {
  static const std::map<std::string, StageKernel> stages = {
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
      {"spec_step", {GpuSpecStep, kGpuSpecStepProfiles}},
  };
  return stages;
}

}  // namespace

std::vector<std::string> GpuBackend::SupportedStages() const {
  std::vector<std::string> names;
  for (const auto& [name, kernel] : Stages()) names.push_back(name);
  return names;
}

TensorMap GpuBackend::Run(const std::string& stage, const Case& c) {
  const StageInfo& info = RequireStage(stage);
  RequireStageProfile(info, c.profile);
  auto it = Stages().find(stage);
  if (it == Stages().end()) {
    throw InputError("backend '" + Name() + "' has no kernel for stage '" + stage + "'");
  }
  return it->second.run(c, c.profile, *runner_);
}

StageCapabilities GpuBackend::Capabilities(const std::string& stage) const {
  StageCapabilities caps;
  if (auto it = Stages().find(stage); it != Stages().end()) caps.profiles = it->second.profiles;
  // The pipeline's statistical batches (10^4 to 2 x 10^6 replicas) are drawn from each row's
  // distribution composed once (gpu/backend/pipeline_glue.h, GpuPipelineCountDraws).
  const StageInfo* info = FindStage(stage);
  const bool own_draws = info != nullptr && info->draw.target == ExactTargetKind::kPipeline;
  caps.count_draws = own_draws;
  caps.count_draws_range = own_draws;
  caps.concurrent_runs = runner_->Reentrant();
  return caps;
}

Tensor GpuBackend::CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) {
  return CountDrawsRange(stage, c, 0, draws, seed);
}

Tensor GpuBackend::CountDrawsRange(const std::string& stage, const Case& c, std::int64_t first_draw, std::int64_t draws,
                                   std::uint64_t seed) {
  if (!Capabilities(stage).count_draws) return Backend::CountDrawsRange(stage, c, first_draw, draws, seed);
  RequireStageProfile(RequireStage(stage), c.profile);
  Case named = c;
  named.stage = stage;
  return GpuPipelineCountDraws(named, first_draw, draws, seed, *runner_);
}

TensorMap RunGpuStage(const std::string& stage, const Case& c, Profile profile, KernelRunner& runner) {
  auto it = Stages().find(stage);
  if (it == Stages().end()) throw InputError("backend '" + runner.Name() + "' has no kernel for stage '" + stage + "'");
  return it->second.run(c, profile, runner);
}

std::unique_ptr<Backend> MakeGpuEmulatedBackend() { return std::make_unique<GpuBackend>(MakeEmulatedRunner()); }

}  // namespace sampcheck::gpu
