// SPDX-License-Identifier: Apache-2.0
// Noise floors and half-precision probabilities planted wrong (docs/spec/harness.md "Tail
// amplifiers"): each caught by the L2 binomial on a tail-amplifier case.
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - uniform_16bit           its own exponential race takes uniforms of 16 bits, (w >> 16) 2^-16,
//                           so q = 0 with probability 2^-16 -> stats/exponential_race/amplifier_v2 L2
// - sglang_hash_uniform_f32 SGLang's seeded Gumbel-max (through Run) with the hash converted to
//                           f32 before the division (u = 1, g = 32 ln2, for h >= 2^32 - 128)
//                           -> stats/multinomial_with_seed/tail_floor_v1024/sglang L2 under
//                           --thorough (measured by hand: 1.8e6 draws of 1024 hashed columns)
// - probs_f16, uniform_open_closed_24bit, uniform_23bit
//                           tail amplifiers (docs/spec/harness.md "Tail amplifiers"): the
//                           probabilities rounded to f16 before the draw (3 2^-27 -> 0)
//                           -> stats/exponential_race/tail_f16_v32 L2 (CI); its own race's
//                           uniform ((w >> 8) + 1) 2^-24 in (0, 1] (u = 1 reaches -log1p(-u) =
//                           +inf, no q = +0) -> stats/exponential_race/tail_floor_v1024 L2 (CI);
//                           (w >> 9) 2^-23, one bit short (q = +0 twice as often) -> the same
//                           case under --thorough, measured by hand (proof_in_ci = false:
//                           1.3e6 draws at V = 1024, about 7 s with the reference's)
// Each registers itself with SAMPCHECK_WRONG_SAMPLER (harness/wrong/wrong_samplers.h).
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "core/half.h"
#include "core/profile.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "harness/wrong/wrong_backend.h"
#include "harness/wrong/wrong_samplers.h"
#include "reference/count_draws.h"
#include "reference/exponential_race.h"
#include "reference/math/log.h"
#include "reference/reference_backend.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/rng/philox_lanes.h"
#include "reference/rng/streams.h"
#include "reference/spec_random.h"
#include "reference/stage_io.h"
#include "statistical/detail/numeric.h"
#include "statistical/exact_target.h"

namespace sampcheck::statistical {
namespace {

class Uniform16Bit final : public OwnRaceBackend {
 public:
  Uniform16Bit() : OwnRaceBackend("uniform_16bit") {}

 protected:
  std::int64_t DrawOne(std::span<const float> probs, std::uint64_t seed, std::uint32_t row, std::uint32_t draw) override {
    std::vector<float> q(probs.size());
    for (std::size_t i = 0; i < probs.size(); ++i) {
      const std::uint32_t w = rng::StreamWord(rng::Stream::kWrongUniform16, seed, static_cast<std::uint32_t>(i / 4), draw, row,
                                              static_cast<std::uint32_t>(i % 4));
      const float u = static_cast<float>(w >> 16) * 0x1p-16f;  // the bug: 16 bits
      q[i] = rng::ExponentialNegLog1pNegF32(u);                // u = 0 -> q = +0 -> ratio +inf
    }
    std::int64_t best = -1;
    float best_ratio = 0.0f;
    for (std::size_t i = 0; i < probs.size(); ++i) {
      if (!(probs[i] > 0.0f)) continue;
      const float r = probs[i] / q[i];
      if (best < 0 || r > best_ratio) best = static_cast<std::int64_t>(i), best_ratio = r;
    }
    return best;
  }
};

// Tail-amplifier group (docs/spec/harness.md "Tail amplifiers"): an exponential race whose
// uniform is converted wrongly (to_u), so its floor differs from the reference's
// UniformClosedOpen24F32 (u in [0, 1 - 2^-24], q = +0 with probability 2^-24). Everything else
// as the reference: q = -log1p(-u), the largest f32 ratio probs / q, ties to the lower index.
class UniformFloorFault final : public OwnRaceBackend {
 public:
  UniformFloorFault(std::string name, float (*to_u)(std::uint32_t)) : OwnRaceBackend(std::move(name)), to_u_(to_u) {}

 protected:
  std::int64_t DrawOne(std::span<const float> probs, std::uint64_t seed, std::uint32_t row, std::uint32_t draw) override {
    // The words of StreamBlock(kWrongUniform16, seed, i / 4, draw, row), all blocks of the row
    // at once in SIMD lanes (bit-identical to the scalar Philox).
    const std::size_t blocks = (probs.size() + 3) / 4;
    ctr_.resize(blocks);
    words_.resize(blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
      ctr_[b] = {{static_cast<std::uint32_t>(b), draw, row, static_cast<std::uint32_t>(rng::Stream::kWrongUniform16)}};
    }
    rng::PhiloxLanes(ctr_, rng::SeedKey(seed), words_, isa_);
    std::int64_t best = -1;
    float best_ratio = 0.0f;
    for (std::size_t i0 = 0; i0 < probs.size(); i0 += 4) {
      const auto& words = words_[i0 / 4];
      for (std::size_t i = i0; i < std::min(probs.size(), i0 + 4); ++i) {
        if (!(probs[i] > 0.0f)) continue;
        const float u = to_u_(words.v[i - i0]);
        // -log1p(-u) >= u and u is a float, so the f32 ratio is at most RN(p / u): a token
        // that cannot beat the best (ties go to the lower index, met first) skips the log.
        if (best >= 0 && u > 0.0f && !(probs[i] / u > best_ratio)) continue;
        const float r = probs[i] / rng::ExponentialNegLog1pNegF32(u);  // u = 1: +inf, ratio 0
        if (best < 0 || r > best_ratio) best = static_cast<std::int64_t>(i), best_ratio = r;
      }
    }
    return best;
  }

 private:
  float (*to_u_)(std::uint32_t);
  rng::PhiloxIsa isa_ = rng::BestPhiloxIsa();
  std::vector<rng::Philox4x32Block> ctr_, words_;
};

// One bit short: (w >> 9) 2^-23 in [0, 1 - 2^-23], so q = +0 with probability 2^-23.
float Uniform23Bit(std::uint32_t w) { return static_cast<float>(w >> 9) * 0x1p-23f; }

// An endpoint let through: ((w >> 8) + 1) 2^-24 in [2^-24, 1], so u = 1 (q = +inf) with
// probability 2^-24 and never q = +0.
float UniformOpenClosed24(std::uint32_t w) { return static_cast<float>((w >> 8) + 1u) * 0x1p-24f; }

// Probabilities rounded to f16 before the draw (through Run and CountDraws): values below
// 2^-25 become 0, subnormal ones move to a multiple of 2^-24.
class ProbsF16 final : public WrappingBackend {
 public:
  ProbsF16() : WrappingBackend("probs_f16") {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    return RewriteRows(stage, in, {Role::kProbs}, [](std::span<float> row, Role) {
      for (float& v : row) v = F16BitsToF32(F32ToF16Bits(v));
    });
  }
};

// SGLang's seeded Gumbel-max (multinomial_with_seed and its token-id variant) with the hash
// converted to f32 before the division: u = RN_f32(h) 2^-32 (`hashed.to(float32) / max`, the
// max rounding to 2^32), so u = 1 (g = 32 ln2, the clamp) for h >= 2^32 - 128, probability
// 2^-25 against the spec's 2^-31 for its two top cells, and the next value is u = 1 - 2^-24
// (g = 16.6). Drawn through Run (the seeds are the case's); CountDraws stays the reference's.
class SglangHashUniformF32 final : public WrappingBackend {
 public:
  SglangHashUniformF32() : WrappingBackend("sglang_hash_uniform_f32") {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    const StageInfo* info = FindStage(stage);
    if (info == nullptr || info->draw.target != ExactTargetKind::kNormalisedProbs || info->draw.noise != HarnessNoise::kSeedPosition) {
      return WrappingBackend::Run(stage, c);
    }
    reference::StageInputs in(c, stage);
    const Tensor probs = in.Probabilities();
    const std::int64_t rows = probs.dim(0), vocab = probs.dim(1);
    const auto seeds = in.Required("seed", DType::kI64, 1).data<std::int64_t>();
    const auto positions = in.Required("positions", DType::kI64, 1).data<std::int64_t>();
    const Tensor* ids = c.inputs.count("token_ids") ? &c.inputs.at("token_ids") : nullptr;
    Tensor token(DType::kI64, {rows});
    for (std::int64_t b = 0; b < rows; ++b) {
      const auto row = probs.data<float>().subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
      std::int64_t best = -1;
      double best_value = 0.0, last_log_p = 0.0, u_floor = 0.0;
      float last_p = -1.0f;
      bool stale = true;  // u_floor is recomputed when the best or log p changes
      for (std::int64_t j = 0; j < vocab; ++j) {
        const float pj = row[static_cast<std::size_t>(j)];
        if (!(pj > 0.0f)) continue;
        const auto column = ids ? static_cast<std::uint32_t>(ids->data<std::int32_t>()[static_cast<std::size_t>(b * vocab + j)])
                                : static_cast<std::uint32_t>(j);
        const std::uint32_t h = rng::SglangMurmurKey(std::bit_cast<std::uint64_t>(seeds[static_cast<std::size_t>(b)]),
                                                     static_cast<std::uint32_t>(positions[static_cast<std::size_t>(b)]), column);
        const float u = static_cast<float>(h) * 0x1p-32f;  // the bug: a 24-bit significand
        if (pj != last_p) last_p = pj, last_log_p = math::LogF64Dd(static_cast<double>(pj)), stale = true;
        // g is increasing in u: g(u) <= best - log p for u <= exp(-exp(-(best - log p))); the
        // 1e-12 margin in u dwarfs the rounding of both sides, so a skipped column cannot win.
        if (best >= 0) {
          if (stale) u_floor = std::exp(-std::exp(-(best_value - last_log_p))) - 1e-12, stale = false;
          if (static_cast<double>(u) < u_floor) continue;
        }
        const double value = last_log_p + rng::GumbelSglangF64(static_cast<double>(u));
        if (best < 0 || value > best_value) best = j, best_value = value, stale = true;
      }
      if (best < 0) in.Fail("row " + std::to_string(b) + " has no positive probability: nothing can be drawn");
      token.data<std::int64_t>()[static_cast<std::size_t>(b)] = best;
    }
    TensorMap out;
    out.emplace("token", std::move(token));
    return out;
  }
};

}  // namespace

SAMPCHECK_WRONG_SAMPLER(Uniform16bit, {{"uniform_16bit", "uniforms truncated to 16 bits in its own exponential race",
        "stats/exponential_race/amplifier_v2/", "L2"},
       [] { return std::make_unique<Uniform16Bit>(); }});
SAMPCHECK_WRONG_SAMPLER(ProbsF16, {{"probs_f16", "probabilities rounded to f16 before the draw (weights below 2^-25 vanish)",
        "stats/exponential_race/tail_f16_v32/", "L2"},
       [] { return std::make_unique<ProbsF16>(); }});
SAMPCHECK_WRONG_SAMPLER(UniformOpenClosed24bit, {{"uniform_open_closed_24bit", "its own race's uniform is ((w >> 8) + 1) 2^-24 in (0, 1]: u = 1 gives q = +inf, never q = +0",
        "stats/exponential_race/tail_floor_v1024/", "L2"},
       [] { return std::make_unique<UniformFloorFault>("uniform_open_closed_24bit", UniformOpenClosed24); }});
SAMPCHECK_WRONG_SAMPLER(Uniform23bit, {{"uniform_23bit", "its own race's uniform is (w >> 9) 2^-23: q = +0 with probability 2^-23, twice the floor",
        "stats/exponential_race/tail_floor_v1024/", "L2", /*thorough=*/true, /*proof_in_ci=*/false},
       [] { return std::make_unique<UniformFloorFault>("uniform_23bit", Uniform23Bit); }});
SAMPCHECK_WRONG_SAMPLER(SglangHashUniformF32, {{"sglang_hash_uniform_f32", "SGLang's seeded draw converts the hash to f32 before dividing: u = 1 for h >= 2^32 - 128",
        "stats/multinomial_with_seed/tail_floor_v1024/", "L2", /*thorough=*/true, /*proof_in_ci=*/false},
       [] { return std::make_unique<SglangHashUniformF32>(); }});

}  // namespace sampcheck::statistical
