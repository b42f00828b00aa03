// SPDX-License-Identifier: Apache-2.0
// The noise stage (reference/noise.h, docs/spec/noise.md).
#include "reference/noise.h"

#include <string>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

const char* NoiseGeneratorName(rng::NoiseGenerator g) {
  return g == rng::NoiseGenerator::kPhilox ? "philox" : "murmur3";
}

const char* NoiseLawName(rng::NoiseLaw law) {
  switch (law) {
    case rng::NoiseLaw::kUniform: return "uniform";
    case rng::NoiseLaw::kExponential: return "exponential";
    case rng::NoiseLaw::kGumbel: return "gumbel";
  }
  return "?";
}

NoiseRequest ParseNoiseRequest(const Case& c) {
  StageInputs in(c, "noise");
  NoiseRequest r;
  const auto text = [&](const char* name) -> std::string {
    const auto& v = c.params[name];
    if (!v.is_string()) in.Fail(std::string("parameter ") + name + " must be a string, got " + v.dump());
    return v.get<std::string>();
  };
  if (c.params.contains("generator")) {
    const std::string g = text("generator");
    if (g == "philox") {
      r.generator = rng::NoiseGenerator::kPhilox;
    } else if (g == "murmur3") {
      r.generator = rng::NoiseGenerator::kMurmur3;
    } else {
      in.Fail("parameter generator = '" + g + "'; valid: philox, murmur3");
    }
  }
  if (!c.params.contains("law")) in.Fail("parameter law is required; valid: uniform, exponential, gumbel");
  const std::string law = text("law");
  if (law == "uniform") {
    r.law = rng::NoiseLaw::kUniform;
  } else if (law == "exponential") {
    r.law = rng::NoiseLaw::kExponential;
  } else if (law == "gumbel") {
    r.law = rng::NoiseLaw::kGumbel;
  } else {
    in.Fail("parameter law = '" + law + "'; valid: uniform, exponential, gumbel");
  }
  r.n = 1;
  if (c.params.contains("n")) {
    const auto& v = c.params["n"];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > kNoiseMaxSamplesPerRow) {
      in.Fail("parameter n = " + v.dump() + " must be an integer in [0, 2^24]");
    }
    r.n = v.get<std::int64_t>();
  }
  const Tensor& seed = in.Required("seed");
  const Tensor& offset = in.Required("offset");
  r.rows = seed.dim(0);
  in.ExpectDim("offset", offset, 0, r.rows);
  if (r.rows * r.n > kNoiseMaxSamplesPerRow * 4) {
    in.Fail("rows * n = " + std::to_string(r.rows * r.n) + " exceeds 2^26 samples per case");
  }
  const auto off = offset.data<std::int64_t>();
  for (std::int64_t b = 0; b < r.rows; ++b) {
    if (off[static_cast<std::size_t>(b)] < 0 || off[static_cast<std::size_t>(b)] >= kNoiseOffsetLimit) {
      in.Fail("offset[" + std::to_string(b) + "] = " + std::to_string(off[static_cast<std::size_t>(b)]) +
              " must be in [0, 2^62)");
    }
  }
  r.seed = seed.data<std::int64_t>().data();
  r.offset = off.data();
  return r;
}

TensorMap RunNoise(const Case& c, Profile /*profile*/) {
  const NoiseRequest r = ParseNoiseRequest(c);
  Tensor out = Tensor::Uninitialized(DType::kF32, {r.rows, r.n});
  auto d = out.data<float>();
  for (std::int64_t b = 0; b < r.rows; ++b) {
    const auto seed = static_cast<std::uint64_t>(r.seed[b]);
    const auto offset = static_cast<std::uint64_t>(r.offset[b]);
    for (std::int64_t i = 0; i < r.n; ++i) {
      d[static_cast<std::size_t>(b * r.n + i)] =
          rng::NoiseSampleF32(r.generator, r.law, seed, offset + static_cast<std::uint64_t>(i));
    }
  }
  return Outputs("noise", std::move(out));
}

SAMPCHECK_REFERENCE_STAGE(noise, RunNoise);

}  // namespace sampcheck::reference
