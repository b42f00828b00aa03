// SPDX-License-Identifier: Apache-2.0
// Stage glue of the gpu-fast backends (gpu/fast/fast_backend.h): input checks, one launch of the
// fused sampling kernel per Run.
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
#include "gpu/backend/noise_glue.h"
#include "reference/pipeline.h"
#include "reference/sampling_filters.h"
#include "reference/profile_rules.h"
#include "reference/stage_io.h"
#include "reference/temperature.h"

namespace sampcheck::gpu {

namespace {

using reference::FormatFloat;
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

// A per-row filter parameter, `fallback` for every row when absent; NaN is an error.
template <class T>
std::vector<T> RowParameter(const StageInputs& in, const char* name, DType dtype, std::int64_t rows, T fallback) {
  std::vector<T> values(static_cast<std::size_t>(rows), fallback);
  if (const Tensor* t = in.Optional(name, dtype, 1)) {
    in.ExpectDim(name, *t, 0, rows);
    for (std::int64_t b = 0; b < rows; ++b) {
      const T v = t->data<T>()[static_cast<std::size_t>(b)];
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(v)) in.Fail(std::string(name) + "[" + std::to_string(b) + "] is NaN");
      }
      values[static_cast<std::size_t>(b)] = v;
    }
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
    TensorMap out;
    out.emplace("logits", sub.inputs.at("logits"));
    out.emplace("probs", sub.inputs.at("logits"));
    return out;
  };
}

}  // namespace

std::vector<std::string> GpuFastBackend::SupportedStages() const {
  if (noise_runner_) return {PipelineStage(), NoiseStageName()};
  return {PipelineStage()};
}

// The pipeline's canonical profile, judged by its draws; noise's canonical profile, its Philox
// stream bit for bit. Run follows the vllm and sglang rules too (FastFilterRuleFor; their
// known-answer tests in tests/gpu_fast_sampling_test.cc), but they are declared only once their
// statistical cases have been seen passing (docs/gpu.md "Skips").
StageCapabilities GpuFastBackend::Capabilities(const std::string& stage) const {
  const bool stage_ok = stage == PipelineStage() || (noise_runner_ && stage == NoiseStageName());
  return {.profiles = stage_ok ? ProfileSet{}.Add(Profile::kCanonical) : ProfileSet{},
          .claims_bitwise = stage == NoiseStageName()};
}

TensorMap GpuFastBackend::Run(const std::string& stage, const Case& c) {
  const StageInfo& info = RequireStage(stage);
  const Profile profile = RequireStageProfile(info, c.profile);
  if (noise_runner_ && stage == NoiseStageName()) return RunNoiseStage(c, profile, *noise_runner_);
  if (stage != PipelineStage()) throw InputError("backend '" + name_ + "' has no kernel for stage '" + stage + "'");
  StageInputs in(c, stage);
  // The filters' parameter checks, which the deferred filter step does not run.
  if (c.params.contains("order")) {
    if (!c.params["order"].is_string()) in.Fail("parameter order = " + c.params["order"].dump() + " must be a string");
    reference::ValidateFilterParams(in, profile, c.params["order"].get<std::string>(), reference::FilterParams{}.ks_max);
  }
  // Every step up to the filters, every batch rule (the profile's greedy rows, SGLang's paths)
  // and every input check up to the noise, as the reference composes them; the filters and
  // the draw are the fused kernel's (DeferredFilters).
  const reference::PipelineDistribution d = reference::ComposePipeline(c, profile, FusedPipelineStages());
  const std::int64_t rows = d.rows(), vocab = d.vocab();
  const reference::PipelineNoise noise = reference::ParsePipelineNoise(in, d, profile);
  const reference::TemperatureRule temperature_rule = reference::TemperatureRuleFor(profile);
  FastSamplingOptions options{.greedy_below = temperature_rule.eps,
                              .rule = d.sglang_unfiltered ? FastFilterRule{} : FastFilterRuleFor(profile),
                              .bug = bug_};
  // The kernel's temperatures: 0 for a greedy row (the profile's rule, decided above), the
  // profile's divisor (vllm's raise) for a random row, which is then >= the greedy threshold.
  const Tensor& temp = in.Required("temperature", DType::kF32, 1);
  std::vector<float> temperature(static_cast<std::size_t>(rows), 0.0f);
  const std::span<const float> x_all = d.processed.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    if (d.is_greedy[static_cast<std::size_t>(b)] != 0) continue;
    noise.CheckRow(in, b);
    temperature[static_cast<std::size_t>(b)] =
        reference::EffectiveTemperature(temperature_rule, temp.data<float>()[static_cast<std::size_t>(b)]).divisor;
  }
  for (std::int64_t b = 0; b < rows; ++b) {
    bool finite = false;
    for (std::int64_t i = 0; i < vocab; ++i) {
      const float x = x_all[static_cast<std::size_t>(b * vocab + i)];
      if (std::isnan(x) || x == INFINITY) {
        in.Fail("row " + std::to_string(b) + " holds " + FormatFloat(x) + " at column " + std::to_string(i) +
                " after the steps before temperature; gpu-fast needs finite or -inf logits (apply nan_handling first)");
      }
      finite |= std::isfinite(x);
    }
    if (d.is_greedy[static_cast<std::size_t>(b)] == 0 && !finite) {
      in.Fail("random row " + std::to_string(b) + " has no finite logit to draw from");
    }
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
  if (rows > 0) runner_(launch);
  TensorMap out;
  out.emplace(info.OutputWithRole(Role::kToken)->name, std::move(token));
  return out;
}

std::unique_ptr<Backend> MakeGpuFastEmulatedBackend() {
  return std::make_unique<GpuFastBackend>("gpu-fast-emulated", RunFastSamplingEmulated, FastSamplingBug::kNone,
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
};
}  // namespace

std::vector<std::string> GpuFastWrongNames() {
  std::vector<std::string> names;
  for (const auto& v : kWrongVariants) names.emplace_back(v.name);
  return names;
}

std::unique_ptr<Backend> MakeGpuFastWrongBackend(const std::string& name) {
  for (const auto& v : kWrongVariants) {
    if (name == v.name) return std::make_unique<GpuFastBackend>("wrong:" + name, RunFastSamplingEmulated, v.bug);
  }
  return nullptr;
}

}  // namespace sampcheck::gpu
