// SPDX-License-Identifier: Apache-2.0
// The draws given their noise planted wrong (docs/spec/draws.md "Degenerate rows",
// "Half-precision rows and narrowed noise"): each rejected by a golden case.
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - draw_empty_row_pad_lane      a row with nothing drawable (every score -inf, every
//                                probability 0) returns the reduction's identity lane: V
//                                rounded up to a 32-lane tile, an id >= V
//                                -> gumbel_max/degenerate_rows_v33/, exponential_race/degenerate_rows_v33/
// - draw_nan_as_constant         a row holding a NaN has its NaN replaced by a constant and is
//                                drawn uniformly, by the noise alone (argmax of the Gumbel
//                                noise, argmin of the Exp(1) noise)
//                                -> the same goldens
// - race_noise_f16               exponential_race's q rounded to f16 before the division (q below
//                                2^-25 becomes 0: +inf ratios tie to the lower index, 0 / 0 =
//                                NaN wins torch's argmax under vllm)
//                                -> exponential_race/narrow_noise_v8_f16/
// - gumbel_noise_f16             gumbel_max's g rounded to f16 before the addition (step 2^-6
//                                near 17) -> gumbel_max/narrow_noise_v8_f16/
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

// The draws given their noise whose row is degenerate (docs/spec/draws.md "Degenerate rows"):
// the distribution (`logprobs` scores or `probs`) and its rank-2 noise (`gumbel` or `q`), or
// null pointers when the case is not such a draw.
struct DrawRows {
  const Tensor* dist = nullptr;
  const Tensor* noise = nullptr;
  bool scores = false;  // logprobs (-inf = nothing) rather than probs (0 = nothing)
};

DrawRows FindDrawRows(const Case& c) {
  DrawRows d;
  for (const char* name : {"gumbel", "q"}) {
    auto it = c.inputs.find(name);
    if (it != c.inputs.end() && it->second.rank() == 2) d.noise = &it->second;
  }
  for (const char* name : {"logprobs", "probs"}) {
    auto it = c.inputs.find(name);
    if (it != c.inputs.end() && it->second.rank() == 2) d.dist = &it->second, d.scores = std::string(name) == "logprobs";
  }
  // f32 rows only (the degenerate-row goldens are f32).
  if (!d.noise || !d.dist || d.dist->dtype() != DType::kF32 || d.dist->shape() != d.noise->shape()) return {};
  return d;
}

// A row with nothing drawable returns the identity lane of a 32-wide tiled reduction.
class DrawEmptyRowPadLane final : public ExactFaultBackend {
 public:
  DrawEmptyRowPadLane() : ExactFaultBackend("draw_empty_row_pad_lane") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    const DrawRows d = FindDrawRows(c);
    auto token = out.find("token");
    if (!d.dist || token == out.end()) return out;
    const std::int64_t rows = d.dist->dim(0), vocab = d.dist->dim(1);
    for (std::int64_t b = 0; b < rows; ++b) {
      bool empty = true;
      for (std::int64_t i = 0; i < vocab; ++i) {
        const float x = d.dist->data<float>()[static_cast<std::size_t>(b * vocab + i)];
        empty = empty && (d.scores ? x == -std::numeric_limits<float>::infinity() : x == 0.0f);
      }
      if (empty) token->second.data<std::int64_t>()[static_cast<std::size_t>(b)] = (vocab + 31) / 32 * 32;
    }
    return out;
  }
};

// A row holding a NaN: the NaN replaced by a constant and the row drawn uniformly, which for
// a race is the token of the best noise alone.
class DrawNanAsConstant final : public ExactFaultBackend {
 public:
  DrawNanAsConstant() : ExactFaultBackend("draw_nan_as_constant") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    const DrawRows d = FindDrawRows(c);
    auto token = out.find("token");
    if (!d.dist || token == out.end()) return out;
    const std::int64_t rows = d.dist->dim(0), vocab = d.dist->dim(1);
    const auto noise = d.noise->data<float>();
    for (std::int64_t b = 0; b < rows; ++b) {
      bool nan = false;
      for (std::int64_t i = 0; i < vocab; ++i) nan = nan || std::isnan(d.dist->data<float>()[static_cast<std::size_t>(b * vocab + i)]);
      if (!nan) continue;
      std::int64_t best = 0;
      for (std::int64_t i = 1; i < vocab; ++i) {
        const float x = noise[static_cast<std::size_t>(b * vocab + i)], y = noise[static_cast<std::size_t>(b * vocab + best)];
        if (d.scores ? x > y : x < y) best = i;  // Gumbel: the largest; Exp(1): the smallest
      }
      token->second.data<std::int64_t>()[static_cast<std::size_t>(b)] = best;
    }
    return out;
  }
};

// Race and Gumbel noise narrowed to f16 before the draw (docs/spec/draws.md "Half-precision
// rows and narrowed noise"), as a kernel that keeps its noise in the probabilities' dtype does
// (`torch.empty_like(probs).exponential_()` on an f16 row). Keyed on the catalogue: a stage
// whose inputs are a [B, V] row (role probs or scores) and [B, V] noise of the harness's
// exponential or Gumbel law, with no parameters (exponential_race, gumbel_max).
// - Gumbel: each g rounded to f16 (finite at |g| < 65504), then the reference's draw.
// - Race: each q rounded to f16, so q below 2^-25 becomes 0; the ratio p / q in f32 is then
//   +inf (p > 0) or NaN (p = 0), and the argmax is torch's: NaN ranks above every number, the
//   first maximum wins; canonical candidates stay the positive probabilities, vllm's are all.
class NoiseNarrowedF16 final : public ExactFaultBackend {
 public:
  NoiseNarrowedF16(std::string name, HarnessNoise law) : ExactFaultBackend(std::move(name)), law_(law) {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    const StageInfo* info = FindStage(stage);
    if (info == nullptr || info->draw.noise != law_ || !info->params.empty() || info->inputs.size() != 2) {
      return ExactFaultBackend::Run(stage, c);
    }
    const TensorSpec* noise = info->InputWithRole(Role::kNoise);
    const TensorSpec& row = info->inputs[0].role == Role::kNoise ? info->inputs[1] : info->inputs[0];
    if (noise == nullptr || !c.inputs.count(noise->name) || !c.inputs.count(row.name) ||
        c.inputs.at(noise->name).rank() != 2 || c.inputs.at(noise->name).dtype() != DType::kF32) {
      return ExactFaultBackend::Run(stage, c);
    }
    Case narrowed = c;
    for (float& x : narrowed.inputs.at(noise->name).data<float>()) x = F16BitsToF32(F32ToF16Bits(x));  // the bug
    if (law_ == HarnessNoise::kGumbel) return ExactFaultBackend::Run(stage, narrowed);
    const Tensor probs = reference::UpcastToF32(c.inputs.at(row.name), row.name);
    const auto p32 = probs.data<float>();
    const auto q = narrowed.inputs.at(noise->name).data<float>();
    const std::int64_t rows = probs.dim(0), vocab = probs.dim(1);
    Tensor token(DType::kI64, {rows});
    for (std::int64_t b = 0; b < rows; ++b) {
      std::int64_t best = -1;
      float best_ratio = 0.0f;
      for (std::int64_t i = 0; i < vocab; ++i) {
        const float p = p32[static_cast<std::size_t>(b * vocab + i)];
        if (c.profile != Profile::kVllm && !(p > 0.0f)) continue;
        const float r = p / q[static_cast<std::size_t>(b * vocab + i)];
        if (best < 0 || (std::isnan(r) && !std::isnan(best_ratio)) || r > best_ratio) {
          best = i;
          best_ratio = r;
        }
      }
      token.data<std::int64_t>()[static_cast<std::size_t>(b)] = best;
    }
    TensorMap out;
    out.emplace("token", std::move(token));
    return out;
  }

 private:
  HarnessNoise law_;
};

std::unique_ptr<Backend> MakeDrawEmptyRowPadLane() { return std::make_unique<DrawEmptyRowPadLane>(); }

std::unique_ptr<Backend> MakeDrawNanAsConstant() { return std::make_unique<DrawNanAsConstant>(); }

std::unique_ptr<Backend> MakeRaceNoiseF16() { return std::make_unique<NoiseNarrowedF16>("race_noise_f16", HarnessNoise::kExponential); }

std::unique_ptr<Backend> MakeGumbelNoiseF16() { return std::make_unique<NoiseNarrowedF16>("gumbel_noise_f16", HarnessNoise::kGumbel); }

}  // namespace

SAMPCHECK_WRONG_SAMPLER(DrawEmptyRowPadLane, {{"draw_empty_row_pad_lane", "a draw's row with nothing drawable returns a pad lane id >= V",
        "gumbel_max/degenerate_rows_v33/", "golden"},
       MakeDrawEmptyRowPadLane});
SAMPCHECK_WRONG_SAMPLER(DrawNanAsConstant, {{"draw_nan_as_constant", "a draw's NaN is replaced by a constant and the row drawn uniformly by its noise",
        "exponential_race/degenerate_rows_v33/", "golden"},
       MakeDrawNanAsConstant});
SAMPCHECK_WRONG_SAMPLER(RaceNoiseF16, {{"race_noise_f16", "exponential_race's Exp(1) noise rounded to f16 before the division (q < 2^-25 becomes 0)",
        "exponential_race/narrow_noise_v8_f16/", "golden"},
       MakeRaceNoiseF16});
SAMPCHECK_WRONG_SAMPLER(GumbelNoiseF16, {{"gumbel_noise_f16", "gumbel_max's Gumbel noise rounded to f16 before the addition", "gumbel_max/narrow_noise_v8_f16/",
        "golden"},
       MakeGumbelNoiseF16});

}  // namespace sampcheck::statistical
