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
#include "reference/profile_rules.h"
#include "reference/reductions.h"
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

}  // namespace

std::vector<std::string> GpuFastBackend::SupportedStages() const {
  if (noise_runner_) return {PipelineStage(), NoiseStageName()};
  return {PipelineStage()};
}

// Canonical cases of its stages only. The fused sampler is distributional; its noise is the
// canonical Philox stream, bit for bit.
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
  if (profile != Profile::kCanonical) {
    throw InputError("backend '" + name_ + "' implements the pipeline's canonical profile only (case '" + c.id +
                     "' has profile '" + std::string(ProfileName(c.profile)) + "')");
  }
  StageInputs in(c, stage);
  if (c.params.contains("order") &&
      (!c.params["order"].is_string() || c.params["order"].get<std::string>() != "top_k_first")) {
    in.Fail("parameter order = " + c.params["order"].dump() + "; the canonical profile's order is 'top_k_first'");
  }
  // The exact steps before temperature, checked and applied by the reference.
  Tensor logits = reference::PipelineLogitsBeforeTemperature(c, profile);
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const Tensor& temp_in = in.Required("temperature", DType::kF32, 1);
  in.ExpectDim("temperature", temp_in, 0, rows);
  Tensor temp = temp_in;
  const FastSamplingOptions options{.greedy_below = reference::kCanonicalSamplingEps, .bug = bug_};
  bool any_random = false;
  // Degenerate rows (docs/spec/pipeline.md "Degenerate rows": a NaN, a +inf, no finite logit)
  // take their token on the host, the reference's rule: a greedy row the argmax of its logits
  // before temperature, a random row PipelineDegenerateToken of its row after temperature (one
  // f32 division per entry, the temperature stage's). The kernel sees such a row as an all -inf
  // greedy row, and its token is replaced.
  std::vector<std::int64_t> degenerate(static_cast<std::size_t>(rows), -1);
  const std::span<float> x_all = logits.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    float& t = temp.data<float>()[static_cast<std::size_t>(b)];
    reference::CheckTemperature(in, b, t);
    const bool random = !(static_cast<double>(t) < options.greedy_below);
    const auto row = x_all.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
    std::vector<float> scaled(row.begin(), row.end());
    if (random) {
      for (float& v : scaled) v = v / t;
    }
    const bool defined = std::none_of(row.begin(), row.end(), [](float v) { return std::isnan(v) || v == INFINITY; });
    std::int64_t token = random ? reference::PipelineDegenerateToken(scaled, profile) : -1;
    if (!random && !defined) token = reference::CanonicalArgmax(row);  // greedy.h: the first NaN, else the first +inf
    if (token < 0) {
      any_random |= random;
      continue;
    }
    degenerate[static_cast<std::size_t>(b)] = token;
    std::fill(row.begin(), row.end(), -INFINITY);
    t = 0.0f;  // greedy in the kernel
  }
  const auto top_k = RowParameter<std::int32_t>(in, "top_k", DType::kI32, rows, 0);
  const auto top_p = RowParameter<float>(in, "top_p", DType::kF32, rows, 1.0f);
  const auto min_p = RowParameter<float>(in, "min_p", DType::kF32, rows, 0.0f);
  std::vector<std::uint64_t> seed(static_cast<std::size_t>(rows), 0), position(static_cast<std::size_t>(rows), 0);
  if (any_random) {
    const Tensor& s = in.Required("seed", DType::kI64, 1);
    const Tensor& pos = in.Required("positions", DType::kI64, 1);
    in.ExpectDim("seed", s, 0, rows);
    in.ExpectDim("positions", pos, 0, rows);
    const std::span<const std::int64_t> pos_all = pos.data<std::int64_t>();
    const std::span<const std::int64_t> seed_all = s.data<std::int64_t>();
    for (std::int64_t b = 0; b < rows; ++b) {
      const std::int64_t p = pos_all[static_cast<std::size_t>(b)];
      if (p < 0 || p > 0xffffffffLL) {
        in.Fail("positions[" + std::to_string(b) + "] = " + std::to_string(p) + " must be in [0, 2^32)");
      }
      seed[static_cast<std::size_t>(b)] = std::bit_cast<std::uint64_t>(seed_all[static_cast<std::size_t>(b)]);
      position[static_cast<std::size_t>(b)] = static_cast<std::uint64_t>(p);
    }
  }
  Tensor token(DType::kI64, {rows});
  FastSamplingLaunch launch;
  launch.logits = logits.data<float>().data();
  launch.temperature = temp.data<float>().data();
  launch.top_k = top_k.data();
  launch.top_p = top_p.data();
  launch.min_p = min_p.data();
  launch.seed = seed.data();
  launch.position = position.data();
  launch.rows = rows;
  launch.vocab = vocab;
  launch.pitch = vocab;
  launch.options = options;
  launch.token = token.data<std::int64_t>().data();
  if (rows > 0) runner_(launch);
  for (std::int64_t b = 0; b < rows; ++b) {
    if (degenerate[static_cast<std::size_t>(b)] >= 0) token.data<std::int64_t>()[static_cast<std::size_t>(b)] = degenerate[static_cast<std::size_t>(b)];
  }
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
