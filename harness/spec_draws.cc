// SPDX-License-Identifier: Apache-2.0
// spec_random in the draw harness: the harness's noise (harness/spec_draws.h); the first
// token's law is statistical/spec_first_token.h.
#include "harness/spec_draws.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/profile.h"
#include "core/stage_catalogue.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/rng/streams.h"
#include "reference/rng/uniform.h"
#include "reference/stage_io.h"
#include "statistical/spec_first_token.h"

namespace sampcheck::statistical {
namespace {

// One Philox stream per quantity (reference/rng/streams.h).
constexpr rng::Stream kDraftTag = rng::Stream::kSpecDrafts;
constexpr rng::Stream kUniformTag = rng::Stream::kSpecUniforms;
constexpr rng::Stream kRaceTag = rng::Stream::kSpecRecoveredRace;
constexpr rng::Stream kBonusRaceTag = rng::Stream::kSpecBonusRace;

rng::Philox4x32Block Words(std::uint64_t seed, std::uint32_t index, std::uint32_t draw, std::uint32_t row, rng::Stream tag) {
  return rng::StreamBlock(tag, seed, index, draw, row);
}

// A uniform in [0, 1) with 53 random bits from the first two words.
double Uniform53(const rng::Philox4x32Block& w) {
  return static_cast<double>((std::uint64_t{w.v[1]} << 32 | w.v[0]) >> 11) * 0x1p-53;
}

Tensor Replicate(const Tensor& t, std::int64_t replicas) {
  Shape shape = t.shape();
  shape[0] *= replicas;
  Tensor out = Tensor::Uninitialized(t.dtype(), shape);
  const std::size_t block = t.nbytes();
  for (std::int64_t d = 0; d < replicas; ++d) {
    std::memcpy(out.bytes().data() + static_cast<std::size_t>(d) * block, t.bytes().data(), block);
  }
  return out;
}

// The index of the first positive entry j with x < C_j (C: running sum in long double),
// x = u * total; the last positive entry when rounding leaves x at the total.
std::int32_t InverseCdf(std::span<const float> row, double u, const std::string& what) {
  long double total = 0.0L;
  std::int32_t last = -1;
  for (std::size_t j = 0; j < row.size(); ++j) {
    if (row[j] > 0.0f) total += row[j], last = static_cast<std::int32_t>(j);
  }
  if (last < 0) throw InputError(what + " has no positive entry to draw a draft from");
  const long double x = static_cast<long double>(u) * total;
  long double c = 0.0L;
  for (std::size_t j = 0; j < row.size(); ++j) {
    if (!(row[j] > 0.0f)) continue;
    c += row[j];
    if (x < c) return static_cast<std::int32_t>(j);
  }
  return last;
}

Tensor ExponentialNoise(std::int64_t rows, std::int64_t vocab, std::int64_t draws, std::uint64_t seed,
                        std::int64_t first_draw, rng::Stream tag) {
  Tensor noise = Tensor::Uninitialized(DType::kF32, {rows * draws, vocab});
  auto data = noise.data<float>();
  for (std::int64_t d = 0; d < draws; ++d) {
    for (std::int64_t b = 0; b < rows; ++b) {
      const std::int64_t at = d * rows + b;
      for (std::int64_t i0 = 0; i0 < vocab; i0 += 4) {
        const auto w = Words(seed, static_cast<std::uint32_t>(i0 / 4), static_cast<std::uint32_t>(first_draw + d),
                             static_cast<std::uint32_t>(b), tag);
        for (std::int64_t i = i0; i < std::min(vocab, i0 + 4); ++i) {
          data[static_cast<std::size_t>(at * vocab + i)] = rng::ExponentialTorchCudaF32(rng::UniformOpenClosedCurandF32(w.v[i - i0]));
        }
      }
    }
  }
  return noise;
}

// sglang's final coins f32 [B * draws]: word 0 of the acceptance-uniform stream at position K
// (positions 0..K - 1 are u), 24-bit in [0, 1) (UniformClosedOpen24F32), so independent of
// every u of the same draw.
Tensor FinalCoins(const Tensor& ids, std::int64_t draws, std::uint64_t seed, std::int64_t first_draw) {
  const std::int64_t rows = ids.dim(0), width = ids.dim(1);
  Tensor out = Tensor::Uninitialized(DType::kF32, {rows * draws});
  for (std::int64_t d = 0; d < draws; ++d) {
    for (std::int64_t b = 0; b < rows; ++b) {
      const auto w = Words(seed, static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(first_draw + d),
                           static_cast<std::uint32_t>(b), kUniformTag);
      out.data<float>()[static_cast<std::size_t>(d * rows + b)] = rng::UniformClosedOpen24F32(w.v[0]);
    }
  }
  return out;
}

Case ProbsNoiseCase(const Case& given, std::int64_t draws, std::uint64_t seed, std::int64_t first_draw);

}  // namespace

Case SpecDrawNoiseCase(const Case& given, std::int64_t draws, std::uint64_t seed, std::int64_t first_draw) {
  if (SpecFromLogits(given)) {
    // Drafts drawn from the verifier's own (filtered) draft rows; the noise spec_step reads is
    // spec_random's vllm noise (u f64 [B, K], q and bonus_q f32 [B, V]).
    const Case noisy = ProbsNoiseCase(SpecProbabilityView(given), draws, seed, first_draw);
    Case out = given;
    out.params.erase(kSpecCountParam);
    out.inputs.clear();
    for (const auto& [name, t] : given.inputs) {
      if (name == "u" || name == "q" || name == "bonus_q" || name == "final_u" || name == "draft_ids") continue;
      if (t.rank() < 1) throw InputError("case '" + given.id + "': input '" + name + "' has no batch dimension");
      out.inputs.emplace(name, Replicate(t, draws));
    }
    if (given.profile == Profile::kSglang) {
      // SGLang's verifier reads the acceptance coins f32(u) (53-bit u: f32(u) = 0 has
      // probability about 2^-150, so a draft of target probability 0 is never accepted here)
      // and one final coin per request, 24-bit in [0, 1) as torch.rand's f32; no Exp(1) noise.
      for (const char* name : {"draft_ids", "u"}) out.inputs.emplace(name, noisy.inputs.at(name));
      out.inputs.emplace("final_u", FinalCoins(SpecRequiredInput(given, "draft_ids"), draws, seed, first_draw));
      return out;
    }
    for (const char* name : {"draft_ids", "u", "q", "bonus_q"}) out.inputs.emplace(name, noisy.inputs.at(name));
    return out;
  }
  return ProbsNoiseCase(given, draws, seed, first_draw);
}

namespace {

Case ProbsNoiseCase(const Case& given, std::int64_t draws, std::uint64_t seed, std::int64_t first_draw) {
  const Case c = SpecWithDraftIds(given);
  const Profile profile = c.profile;
  const bool vllm = profile == Profile::kVllm, typical = profile == Profile::kTypicalAcceptance;
  if (!vllm && !typical && profile != Profile::kFlashinfer) {
    throw InputError("case '" + c.id + "': the draw harness has no spec_random noise for profile '" +
                     std::string(ProfileName(c.profile)) + "'");
  }
  const Tensor& ids = SpecRequiredInput(c, "draft_ids");
  const Tensor target = reference::UpcastToF32(SpecRequiredInput(c, "target_probs"), "target_probs");
  if (ids.dtype() != DType::kI32 || ids.rank() != 2 || target.rank() != 3 || target.dim(0) != ids.dim(0) ||
      target.dim(1) != ids.dim(1) + 1) {
    throw InputError("case '" + c.id + "': spec_random needs draft_ids i32 [B, K] and target_probs [B, K + 1, V]");
  }
  const std::int64_t rows = ids.dim(0), width = ids.dim(1), vocab = target.dim(2);
  const bool drawn = c.inputs.count("draft_probs") != 0;
  Tensor draft;
  if (drawn) {
    draft = reference::UpcastToF32(c.inputs.at("draft_probs"), "draft_probs");
    if (draft.rank() != 3 || draft.dim(0) != rows || draft.dim(1) != width || draft.dim(2) != vocab) {
      throw InputError("case '" + c.id + "': draft_probs must be [B, K, V] = " + ShapeString(Shape{rows, width, vocab}));
    }
  }
  Case out = c;
  out.params.erase(kSpecCountParam);  // the harness's, not the stage's
  out.inputs.clear();
  for (const auto& [name, t] : c.inputs) {
    if (name == "u" || name == "q" || name == "bonus_q") continue;
    if (t.rank() < 1 || t.dim(0) != rows) throw InputError("case '" + c.id + "': input '" + name + "' has no batch dimension of " + std::to_string(rows));
    out.inputs.emplace(name, Replicate(t, draws));
  }
  const std::int64_t total = rows * draws;
  if (drawn) {
    auto drafts = out.inputs.at("draft_ids").data<std::int32_t>();
    const auto q = draft.data<float>();
    for (std::int64_t d = 0; d < draws; ++d) {
      for (std::int64_t b = 0; b < rows; ++b) {
        for (std::int64_t i = 0; i < width; ++i) {
          std::int32_t& x = drafts[static_cast<std::size_t>((d * rows + b) * width + i)];
          if (x < 0) break;  // the padding: n_b drafts
          const auto w = Words(seed, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(first_draw + d),
                               static_cast<std::uint32_t>(b), kDraftTag);
          x = InverseCdf(q.subspan(static_cast<std::size_t>((b * width + i) * vocab), static_cast<std::size_t>(vocab)), Uniform53(w),
                         "case '" + c.id + "': draft_probs[" + std::to_string(b) + ", " + std::to_string(i) + "]");
        }
      }
    }
  }
  if (typical) {  // no uniforms: the bonus token's race only
    out.inputs.emplace("bonus_q", ExponentialNoise(rows, vocab, draws, seed, first_draw, kBonusRaceTag));
    return out;
  }
  const std::int64_t u_width = vllm ? width : width + 1;
  Tensor u = Tensor::Uninitialized(vllm ? DType::kF64 : DType::kF32, {total, u_width});
  for (std::int64_t d = 0; d < draws; ++d) {
    for (std::int64_t b = 0; b < rows; ++b) {
      for (std::int64_t i = 0; i < u_width; ++i) {
        const auto w = Words(seed, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(first_draw + d),
                             static_cast<std::uint32_t>(b), kUniformTag);
        const auto at = static_cast<std::size_t>((d * rows + b) * u_width + i);
        if (vllm) {
          u.data<double>()[at] = Uniform53(w);
        } else {
          u.data<float>()[at] = rng::UniformClosedOpen24F32(w.v[0]);
        }
      }
    }
  }
  out.inputs.emplace("u", std::move(u));
  if (vllm) {
    out.inputs.emplace("q", ExponentialNoise(rows, vocab, draws, seed, first_draw, kRaceTag));
    out.inputs.emplace("bonus_q", ExponentialNoise(rows, vocab, draws, seed, first_draw, kBonusRaceTag));
  }
  return out;
}

}  // namespace

std::int64_t SpecCountedOutcome(const Case& c, const TensorMap& result, std::int64_t j) {
  if (SpecCountsAcceptance(c)) return result.at("num_accepted").data<std::int64_t>()[static_cast<std::size_t>(j)] >= 1 ? 1 : 0;
  const std::int64_t stride = result.at("emitted").numel() / result.at("num_accepted").numel();  // K + 1
  return result.at("emitted").data<std::int64_t>()[static_cast<std::size_t>(j * stride)];
}

}  // namespace sampcheck::statistical
