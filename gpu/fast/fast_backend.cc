// SPDX-License-Identifier: Apache-2.0
// Stage glue of the gpu-fast backends (gpu/fast/fast_backend.h): input checks, one launch of the
// stage's fast kernel per Run.
#include "gpu/fast/fast_backend.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/profile.h"
#include "core/stage_catalogue.h"
#include "gpu/backend/draws_glue.h"
#include "gpu/backend/flashinfer_sampling_from_probs_glue.h"
#include "gpu/backend/noise_glue.h"
#include "gpu/backend/spec_step_glue.h"
#include "reference/flashinfer_sampling_from_probs.h"
#include "reference/inverse_cdf.h"
#include "reference/pipeline.h"
#include "reference/profile_rules.h"
#include "reference/sampling_filters.h"
#include "reference/stage_io.h"
#include "reference/temperature.h"

namespace sampcheck::gpu {

namespace {

using reference::StageInputs;

// The one stage gpu-fast implements: its catalogue entry is the drawing stage whose exact
// target is the whole pipeline (ExactTargetKind::kPipeline).
const std::string& PipelineStage() {
  static const std::string name = [] {
    for (const StageInfo& s : StageCatalogue()) {
      if (s.draw.target == ExactTargetKind::kPipeline) return s.name;
    }
    throw std::logic_error("stage catalogue: no stage with the pipeline's exact target");
  }();
  return name;
}

// The draw given one uniform per row (docs/spec/draws.md "inverse_cdf"): the catalogue's
// stage whose harness noise is HarnessNoise::kUniform.
const std::string& InverseCdfStage() {
  static const std::string name = [] {
    for (const StageInfo& s : StageCatalogue()) {
      if (s.draw.noise == HarnessNoise::kUniform) return s.name;
    }
    throw std::logic_error("stage catalogue: no draw stage with a uniform per row");
  }();
  return name;
}

// FlashInfer's rejection samplers (docs/spec/flashinfer_sampling_from_probs.md): the catalogue's
// stage whose exact target is the survivors of FlashInfer's rules.
const std::string& FlashinferStage() {
  static const std::string name = [] {
    for (const StageInfo& s : StageCatalogue()) {
      if (s.draw.target == ExactTargetKind::kFlashinferSurvivors) return s.name;
    }
    throw std::logic_error("stage catalogue: no stage with FlashInfer's survivors as its exact target");
  }();
  return name;
}

// Speculative rejection sampling given its noise (docs/spec/speculative.md "spec_random"): the
// catalogue's stage with a drafts input and a probabilities role (spec_step takes logits).
const std::string& SpecRandomStage() {
  static const std::string name = [] {
    for (const StageInfo& s : StageCatalogue()) {
      if (s.InputWithRole(Role::kDrafts) != nullptr && s.InputWithRole(Role::kProbs) != nullptr) return s.name;
    }
    throw std::logic_error("stage catalogue: no verifier of drafts against target probabilities");
  }();
  return name;
}

// The whole speculative step (docs/spec/spec_step.md): the catalogue's drawing stage with a
// drafts input and target logits (spec_greedy has them too but never draws).
const std::string& SpecStepStage() {
  static const std::string name = [] {
    for (const StageInfo& s : StageCatalogue()) {
      if (s.draw.draws() && s.InputWithRole(Role::kDrafts) != nullptr && s.InputWithRole(Role::kLogits) != nullptr)
        return s.name;
    }
    throw std::logic_error("stage catalogue: no drawing verifier of drafts against target logits");
  }();
  return name;
}

// The catalogue's noise stage: the one whose output has the noise role (docs/spec/noise.md).
const std::string& NoiseStageName() {
  static const std::string name = [] {
    for (const StageInfo& s : StageCatalogue()) {
      if (s.OutputWithRole(Role::kNoise) != nullptr) return s.name;
    }
    throw std::logic_error("stage catalogue: no stage with a noise output");
  }();
  return name;
}

// A per-row filter parameter, `fallback` for every row when absent (its dtype, shape and NaN
// checks ran with the filters' in ComposePipeline).
template <class T>
std::vector<T> RowParameter(const StageInputs& in, const char* name, DType dtype, std::int64_t rows, T fallback) {
  std::vector<T> values(static_cast<std::size_t>(rows), fallback);
  if (const Tensor* t = in.Optional(name, dtype, 1)) {
    in.ExpectDim(name, *t, 0, rows);
    const std::span<const T> all = t->data<T>();
    std::copy(all.begin(), all.end(), values.begin());
  }
  return values;
}

// The pipeline's steps for ComposePipeline: the reference's stages, except sampling_filters,
// which the fused kernel applies itself (with the draw, on the scaled logits): its outputs
// here are the unfiltered logits, which the composition only carries along (the fast glue
// reads `processed`, `is_greedy` and the batch's path from it, never `masked` or `probs`).
reference::PipelineStageRunner FusedPipelineStages() {
  return [reference = reference::ReferencePipelineStages()](const std::string& step, const Case& sub) -> TensorMap {
    if (step != "sampling_filters") return reference(step, sub);
    (void)reference::ParseSamplingFilters(sub, sub.profile);  // the filters' input checks, one message each
    TensorMap out;
    out.emplace("logits", sub.inputs.at("logits"));
    out.emplace("probs", sub.inputs.at("logits"));
    return out;
  };
}

FastRunners EmulatedFastRunners() {
  return {.sampling = RunFastSamplingEmulated,
          .inverse_cdf = RunFastInverseCdfEmulated,
          .flashinfer_sampling_from_probs = RunFastFlashinferSamplingFromProbsEmulated,
          .spec_random = RunFastSpecRandomEmulated,
          .reentrant = true};
}

}  // namespace

std::vector<std::string> GpuFastBackend::SupportedStages() const {
  std::vector<std::string> stages = {PipelineStage(), InverseCdfStage(), FlashinferStage(), SpecRandomStage()};
  if (exact_runner_) stages.push_back(SpecStepStage());
  if (exact_runner_ && declares_noise_) stages.push_back(NoiseStageName());
  return stages;
}

// The pipeline under each of its profiles (canonical, vllm, sglang: FastFilterRuleFor), judged
// by its draws; inverse_cdf's canonical profile and flashinfer_sampling_from_probs' flashinfer
// profile (every kernel and order), spec_random's vllm and flashinfer profiles and spec_step's
// canonical and vllm profiles (the composed step with gpu-fast's spec_random verifier), by their
// draws too; noise's canonical profile, its Philox stream bit for bit.
StageCapabilities GpuFastBackend::Capabilities(const std::string& stage) const {
  ProfileSet profiles;
  if (stage == PipelineStage()) {
    profiles.Add(Profile::kCanonical).Add(Profile::kVllm).Add(Profile::kSglang);
  } else if (stage == InverseCdfStage() || (exact_runner_ && declares_noise_ && stage == NoiseStageName())) {
    profiles.Add(Profile::kCanonical);
  } else if (stage == FlashinferStage()) {
    profiles.Add(Profile::kFlashinfer);
  } else if (stage == SpecRandomStage()) {
    profiles.Add(Profile::kVllm).Add(Profile::kFlashinfer);
  } else if (exact_runner_ && stage == SpecStepStage()) {
    profiles.Add(Profile::kCanonical).Add(Profile::kVllm);
  }
  return {.profiles = profiles,
          .claims_bitwise = stage == NoiseStageName(),
          .concurrent_runs = runners_.reentrant && (!exact_runner_ || exact_runner_->Reentrant())};
}

TensorMap GpuFastBackend::Run(const std::string& stage, const Case& c) {
  const StageInfo& info = RequireStage(stage);
  const Profile profile = RequireStageProfile(info, c.profile);
  if (exact_runner_ && declares_noise_ && stage == NoiseStageName()) return RunNoiseStage(c, profile, *exact_runner_);
  if (exact_runner_ && stage == SpecStepStage()) return RunSpecStep(c, profile);
  if (stage == InverseCdfStage()) return RunInverseCdf(c, profile);
  if (stage == FlashinferStage()) return RunFlashinferSamplingFromProbs(c);
  if (stage == SpecRandomStage()) return RunSpecRandom(c, profile);
  if (stage != PipelineStage()) throw InputError("backend '" + name_ + "' has no kernel for stage '" + stage + "'");
  StageInputs in(c, stage);
  // Every step up to the filters, every batch rule (the profile's greedy rows, SGLang's paths,
  // degenerate rows) and every input check up to the noise, as the reference composes them;
  // the filters and the draw are the fused kernel's (FusedPipelineStages).
  const reference::PipelineDistribution d = reference::ComposePipeline(c, profile, FusedPipelineStages());
  const std::int64_t rows = d.rows(), vocab = d.vocab();
  const reference::PipelineNoise noise = reference::ParsePipelineNoise(in, d, profile);
  const reference::TemperatureRule temperature_rule = reference::TemperatureRuleFor(profile);
  FastSamplingOptions options{.greedy_below = temperature_rule.eps,
                              .rule = d.sglang_unfiltered ? FastFilterRule{} : FastFilterRuleFor(profile),
                              .bug = bug_};
  // The kernel's temperatures: 0 for a row the composition pinned (greedy or degenerate), the
  // profile's divisor (vllm's raise) for a random row, which is then >= the greedy threshold.
  // A pinned row keeps the kernel's greedy token when it is the row's argmax on logits free of
  // NaN and +inf (the kernel's input contract); any other pinned row (a degenerate row, SGLang's
  // degenerate greedy row on its sorted path) is a row of -inf to the kernel and takes its
  // pinned token on the host (docs/spec/pipeline.md "Degenerate rows").
  const Tensor& temp = in.Required("temperature", DType::kF32, 1);
  std::vector<float> temperature(static_cast<std::size_t>(rows), 0.0f);
  Tensor logits = d.processed;
  const std::span<float> x_all = logits.data<float>();
  const auto greedy_token = d.greedy.data<std::int64_t>();
  std::vector<std::int64_t> host_token(static_cast<std::size_t>(rows), -1);
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto at = static_cast<std::size_t>(b);
    const auto row = x_all.subspan(at * static_cast<std::size_t>(vocab), static_cast<std::size_t>(vocab));
    if (const std::int64_t pinned = d.Pinned(b); pinned >= 0) {
      const bool clean = std::none_of(row.begin(), row.end(), [](float v) { return std::isnan(v) || v == INFINITY; });
      if (d.is_greedy[at] == 0 || !clean || pinned != greedy_token[at]) {
        host_token[at] = pinned;
        std::fill(row.begin(), row.end(), -INFINITY);
      }
      continue;
    }
    noise.CheckRow(in, b);
    temperature[at] = reference::EffectiveTemperature(temperature_rule, temp.data<float>()[at]).divisor;
  }
  // SGLang's unfiltered path runs no filter (its batch has none to run).
  const auto top_k = RowParameter<std::int32_t>(in, "top_k", DType::kI32, rows, 0);
  const auto top_p = RowParameter<float>(in, "top_p", DType::kF32, rows, 1.0f);
  const auto min_p = RowParameter<float>(in, "min_p", DType::kF32, rows, 0.0f);
  std::vector<std::uint64_t> seed(static_cast<std::size_t>(rows), 0), position(static_cast<std::size_t>(rows), 0);
  if (noise.seed != nullptr) {
    for (std::int64_t b = 0; b < rows; ++b) {
      const auto at = static_cast<std::size_t>(b);
      seed[at] = std::bit_cast<std::uint64_t>(noise.seed->data<std::int64_t>()[at]);
      // Random rows' positions are checked by CheckRow; a greedy row's is never read.
      position[at] = static_cast<std::uint64_t>(noise.positions->data<std::int64_t>()[at]) & 0xffffffffu;
    }
  }
  Tensor token(DType::kI64, {rows});
  FastSamplingLaunch launch;
  launch.logits = x_all.data();
  launch.temperature = temperature.data();
  launch.top_k = top_k.data();
  launch.top_p = top_p.data();
  launch.min_p = min_p.data();
  launch.seed = seed.data();
  launch.position = position.data();
  launch.q = options.rule.race && noise.q.numel() > 0 ? noise.q.data<float>().data() : nullptr;
  launch.rows = rows;
  launch.vocab = vocab;
  launch.pitch = vocab;
  launch.options = options;
  launch.token = token.data<std::int64_t>().data();
  if (options.rule.race && launch.q == nullptr) {
    // Every row greedy: the race never runs, and the kernel never reads q.
    options.rule.race = false;
    launch.options = options;
  }
  if (rows > 0) runners_.sampling(launch);
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto at = static_cast<std::size_t>(b);
    if (host_token[at] >= 0) token.data<std::int64_t>()[at] = host_token[at];
  }
  TensorMap out;
  out.emplace(info.OutputWithRole(Role::kToken)->name, std::move(token));
  return out;
}

// Inputs checked by the reference's parse (reference/inverse_cdf.h), one message each.
TensorMap GpuFastBackend::RunInverseCdf(const Case& c, Profile profile) {
  const reference::InverseCdfArgs a = reference::ParseInverseCdf(c, profile);
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  Tensor token(DType::kI64, {rows});
  FastInverseCdfLaunch launch{.probs = a.probs.data<float>().data(),
                              .u = a.u->data<float>().data(),
                              .rows = rows,
                              .vocab = vocab,
                              .pitch = vocab,
                              .bug = bug_,
                              .token = token.data<std::int64_t>().data()};
  if (rows > 0) runners_.inverse_cdf(launch);
  TensorMap out;
  out.emplace(RequireStage(InverseCdfStage()).OutputWithRole(Role::kToken)->name, std::move(token));
  return out;
}

// Inputs checked by the reference's parse and row parameters (reference/flashinfer_sampling_from_probs.h),
// errors raised in the reference's order (FlashinferRowsOf, FinishFlashinferSampling).
TensorMap GpuFastBackend::RunFlashinferSamplingFromProbs(const Case& c) {
  const reference::FlashinferSamplingArgs a = reference::ParseFlashinferSamplingFromProbs(c);
  const FlashinferRows r = FlashinferRowsOf(c, a.rows);
  Tensor token(DType::kI64, {a.rows});
  Tensor valid(DType::kBool, {a.rows});
  Tensor rounds(DType::kI32, {a.rows});
  const FastFlashinferSamplingFromProbsLaunch launch{.probs = a.probs.data<float>().data(),
                                                     .top_k = r.top_k.data(),
                                                     .top_p = r.top_p.data(),
                                                     .min_p = r.min_p.data(),
                                                     .u = a.u->data<float>().data(),
                                                     .rows = r.drawn(),
                                                     .vocab = a.vocab,
                                                     .pitch = a.vocab,
                                                     .width = a.width,
                                                     .kind = r.kind,
                                                     .top_k_first = r.top_k_first,
                                                     .bug = bug_,
                                                     .token = token.data<std::int64_t>().data(),
                                                     .valid = valid.data<std::uint8_t>().data(),
                                                     .rounds = rounds.data<std::int32_t>().data()};
  if (r.drawn() > 0) runners_.flashinfer_sampling_from_probs(launch);
  return FinishFlashinferSampling(c, r, a.width, std::move(token), std::move(valid), std::move(rounds));
}

// Inputs from the reference's parse (PrepareSpecRandom over reference::ParseSpecRandom);
// typical_acceptance has no fast kernel (not claimed).
TensorMap GpuFastBackend::RunSpecRandom(const Case& c, Profile profile) {
  if (!Capabilities(SpecRandomStage()).profiles.Contains(profile)) {
    throw InputError("backend '" + name_ + "' has no kernel for stage '" + SpecRandomStage() + "' under profile '" +
                     std::string(ProfileName(profile)) + "'");
  }
  const SpecRandomKernelArgs a = PrepareSpecRandom(c, profile);
  Tensor emitted(DType::kI64, {a.shape.rows, a.shape.width + 1});
  Tensor accepted(DType::kI64, {a.shape.rows});
  const FastSpecRandomLaunch launch{.in = a.in,
                                    .shape = a.shape,
                                    .bug = bug_,
                                    .emitted = emitted.data<std::int64_t>().data(),
                                    .accepted = accepted.data<std::int64_t>().data()};
  if (a.shape.rows > 0) runners_.spec_random(launch);
  return SpecOutputs(std::move(emitted), std::move(accepted));
}

// The step composed by the bit-exact glue (GpuSpecStepWith: the min_tokens mask, greedy rows,
// temperature and the filters on the bit-exact kernels) with gpu-fast's spec_random kernel as
// the verifier of the random rows, whose residual draw has free order. Block verification and
// SGLang's chain verifier have no fast kernel (not claimed: docs/gpu.md "Skips").
TensorMap GpuFastBackend::RunSpecStep(const Case& c, Profile profile) {
  if (!Capabilities(SpecStepStage()).profiles.Contains(profile)) {
    throw InputError("backend '" + name_ + "' has no kernel for stage '" + SpecStepStage() + "' under profile '" +
                     std::string(ProfileName(profile)) + "'");
  }
  return GpuSpecStepWith(c, profile, *exact_runner_,
                         [this](const SpecRandomInputs& in, SpecShape shape, std::int64_t* emitted, std::int64_t* accepted) {
                           if (shape.rows == 0) return;
                           runners_.spec_random(
                               {.in = in, .shape = shape, .bug = bug_, .emitted = emitted, .accepted = accepted});
                         });
}

std::unique_ptr<Backend> MakeGpuFastEmulatedBackend() {
  return std::make_unique<GpuFastBackend>("gpu-fast-emulated", EmulatedFastRunners(), FastSamplingBug::kNone,
                                          MakeEmulatedRunner());
}

namespace {
struct WrongVariant {
  const char* name;
  FastSamplingBug bug;
};
constexpr WrongVariant kWrongVariants[] = {
    {"gpu_fast_top_k_keeps_k_plus_one", FastSamplingBug::kTopKKeepsKPlusOne},
    {"gpu_fast_top_p_off_by_one", FastSamplingBug::kTopPOffByOne},
    {"gpu_fast_inverse_cdf_skips_renormalisation", FastSamplingBug::kInverseCdfSkipsRenormalisation},
};
}  // namespace

std::vector<std::string> GpuFastWrongNames() {
  std::vector<std::string> names;
  for (const auto& v : kWrongVariants) names.emplace_back(v.name);
  return names;
}

std::unique_ptr<Backend> MakeGpuFastWrongBackend(const std::string& name) {
  for (const auto& v : kWrongVariants) {
    if (name == v.name) return std::make_unique<GpuFastBackend>("wrong:" + name, EmulatedFastRunners(), v.bug);
  }
  return nullptr;
}

std::unique_ptr<Backend> MakeGpuFastPlantedBackend(const std::string& name, FastSamplingBug bug) {
  return std::make_unique<GpuFastBackend>("wrong:" + name, EmulatedFastRunners(), bug, MakeEmulatedRunner(),
                                          /*declares_noise=*/false);
}

}  // namespace sampcheck::gpu
