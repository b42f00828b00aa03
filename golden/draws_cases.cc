// SPDX-License-Identifier: Apache-2.0
// Golden case families for the draw stages given their noise: gumbel_max, exponential_race,
// inverse_cdf (docs/spec/draws.md). The noise is generated here from SplitMix64 bits through
// the noise laws of reference/rng/noise.h; any noise is a valid input.
#include <cmath>
#include <limits>

#include "core/stage_catalogue.h"
#include "golden/case_family.h"
#include "golden/case_list.h"
#include "reference/rng/noise.h"

namespace sampcheck::golden {

namespace {

// The stage's noise input (catalogue role kNoise) and the law the draw harness feeds it: q
// with Exp(1) noise for a race, u with one uniform per row for an inverse CDF, gumbel with
// Gumbel noise for Gumbel-max.
const std::string& NoiseInputName(const std::string& stage) {
  return RequireStage(stage).InputWithRole(Role::kNoise)->name;
}
HarnessNoise NoiseLaw(const std::string& stage) { return RequireStage(stage).draw.noise; }

Tensor Noise(SplitMix64& rng, std::int64_t rows, std::int64_t vocab, float (*law)(float)) {
  Tensor t(DType::kF32, {rows, vocab});
  for (float& v : t.data<float>()) v = law(OpenUniform(rng));
  return t;
}

// Probabilities: random k / 16 weights with zeros, one row all but one zero.
Tensor RandomProbs(SplitMix64& rng, std::int64_t rows, std::int64_t vocab) {
  Tensor t(DType::kF32, {rows, vocab});
  auto p = t.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t i = 0; i < vocab; ++i) {
      const auto w = static_cast<float>(rng.Below(4) == 0 ? 0 : rng.Between(1, 16));
      p[static_cast<std::size_t>(b * vocab + i)] = w / 16.0f;
    }
    p[static_cast<std::size_t>(b * vocab)] = 0.5f;  // at least one positive entry per row
  }
  return t;
}

// The f32 tensor `t` in `dtype`; its values must be exact there (k / 16 probabilities are).
Tensor InDType(const Tensor& t, DType dtype) {
  Tensor out(dtype, t.shape());
  for (std::int64_t i = 0; i < t.numel(); ++i) SetLogit(out, i, GetLogit(t, i));
  return out;
}

// Probabilities [2, vocab]: row 0 zero but column 0 (1.0), row 1 zero but column vocab - 1
// (0.25: unnormalised), the probability form of MaskedRows' rows 0 and 1.
Tensor OneSurvivorProbs(std::int64_t vocab, DType dtype) {
  Tensor t(dtype, {2, vocab});
  for (std::int64_t i = 0; i < 2 * vocab; ++i) SetLogit(t, i, 0.0f);
  SetLogit(t, 0, 1.0f);
  SetLogit(t, 2 * vocab - 1, 0.25f);
  return t;
}

}  // namespace

void AddDrawCases(CaseList& list) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const auto gumbel = [](float u) { return sampcheck::rng::GumbelNegLogNegLogF32(u); };
  const auto exponential = [](float u) { return sampcheck::rng::ExponentialNegLogF32(u); };
  // gumbel_max: -inf scores never drawn even with the largest noise; ties to the lower index;
  // an overflow to +inf.
  list.Add("gumbel_max", "edges",
           {{"logprobs", Logits(3, 4, {-kInf, 0.0f, -1.0f, -kInf,  //
                                       1.0f, 1.0f, 0.0f, -kInf,    //
                                       3e38f, 3e38f, 0.0f, 1.0f})},
            {"gumbel", F32({3, 4}, {100.0f, 0.0f, 0.5f, 50.0f,  //
                                    0.25f, 0.25f, 1.0f, 9.0f,     //
                                    3e38f, 3e38f, 0.0f, 0.0f})}});
  for (std::int64_t vocab : {1, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("gumbel_max", name);
    Tensor scores = RandomLogits(rng, 4, vocab, DType::kF32);
    if (vocab > 1) {  // keep a finite score in every row
      for (std::int64_t i = 1; i < 4 * vocab; i += 5) SetLogit(scores, i, -kInf);
    }
    list.Add("gumbel_max", name, {{"logprobs", scores}, {"gumbel", Noise(rng, 4, vocab, +gumbel)}});
  }
  // Non-finite rows with a defined result (docs/spec/input_classes.md): one finite score at
  // column 0 and at V - 1 (f16), the masked tokens carrying noise up to 20; and half-precision
  // scores (the noise stays f32).
  {
    auto rng = list.Rng("gumbel_max", "masked_rows_v33_f16");
    list.Add("gumbel_max", "masked_rows_v33_f16",
             {{"logprobs", MaskedRows(33, DType::kF16, false)}, {"gumbel", Noise(rng, 2, 33, +gumbel)}});
  }
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    const std::string name = "random_v33_" + std::string(DTypeName(dtype));
    auto rng = list.Rng("gumbel_max", name);
    list.Add("gumbel_max", name, {{"logprobs", RandomLogits(rng, 4, 33, dtype)}, {"gumbel", Noise(rng, 4, 33, +gumbel)}});
  }
  // Degenerate rows between healthy ones (docs/spec/draws.md "Degenerate rows"): rows 0 and 3
  // random; row 1 a NaN at column 17; row 2 nothing drawable (-inf scores, zero
  // probabilities); row 4 a +inf at column 30; row 5 all NaN. Expected tokens: 17, 0, 30, 0.
  {
    constexpr std::int64_t kRows = 6, kV = 33;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto degenerate = [&](Tensor t, float empty) {
      for (std::int64_t i = 0; i < kV; ++i) {
        SetLogit(t, 2 * kV + i, empty);
        SetLogit(t, 5 * kV + i, nan);
      }
      SetLogit(t, kV + 17, nan);
      SetLogit(t, 4 * kV + 30, kInf);
      return t;
    };
    auto rng = list.Rng("gumbel_max", "degenerate_rows_v33");
    Tensor scores = degenerate(RandomLogits(rng, kRows, kV, DType::kF32), -kInf);
    list.Add("gumbel_max", "degenerate_rows_v33", {{"logprobs", scores}, {"gumbel", Noise(rng, kRows, kV, +gumbel)}});
    auto race_rng = list.Rng("exponential_race", "degenerate_rows_v33");
    Tensor probs = degenerate(RandomProbs(race_rng, kRows, kV), 0.0f);
    list.Add("exponential_race", "degenerate_rows_v33", {{"probs", probs}, {"q", Noise(race_rng, kRows, kV, +exponential)}});
  }
  // exponential_race and inverse_cdf: one positive probability at column 0 and at V - 1, and
  // half-precision probabilities (k / 16, exact in f16 and bf16).
  for (const std::string stage : {"exponential_race", "inverse_cdf"}) {
    const bool race = NoiseLaw(stage) == HarnessNoise::kExponential;  // else one uniform per row
    const std::string& noise_name = NoiseInputName(stage);
    {
      auto rng = list.Rng(stage, "one_survivor_v33_f16");
      list.Add(stage, "one_survivor_v33_f16",
               {{"probs", OneSurvivorProbs(33, DType::kF16)},
                TensorMap::value_type{noise_name,
                                      race ? Noise(rng, 2, 33, +exponential) : F32({2}, {0.0f, 0x1.fffffep-1f})}});
    }
    for (DType dtype : {DType::kF16, DType::kBF16}) {
      const std::string name = "random_v33_" + std::string(DTypeName(dtype));
      auto rng = list.Rng(stage, name);
      Tensor probs = InDType(RandomProbs(rng, 4, 33), dtype);
      Tensor noise = race ? Noise(rng, 4, 33, +exponential) : F32({4}, {0.0f, 0.3f, 0.7f, 0x1.fffffep-1f});
      list.Add(stage, name, {{"probs", probs}, {noise_name, noise}});
    }
  }
  // Half precision beside noise that a kernel narrowing its noise to f16 would change
  // (docs/spec/draws.md "Half-precision rows and narrowed noise"): f16 probabilities and scores,
  // f32 noise below 2^-25 (f16's rounding boundary to 0), inside f16's subnormal range, and
  // Gumbel noise near 17 to 18 (f16's step there is 2^-6). Row by row, the spec's token and
  // the token under noise rounded to f16 first:
  //   race row 0: zero-probability tokens with q = 2^-26 .. 2^-30; spec 6 (0.125 / 0.2); under
  //     vllm the narrowed q = 0 gives 0 / 0 = NaN, which torch's argmax ranks first: token 0.
  //   race row 1: two positive tokens with q = 2^-26 and 2^-27: ratios 2^24 and 2^26, spec 5;
  //     narrowed, both q are 0 and both ratios +inf: token 2 (the lower index).
  //   race row 2: q = 1.4 and 1.6 times 2^-24, f16 subnormals 1 and 2 times 2^-24 when
  //     narrowed: spec 0.75 / 1.6 > 0.5 / 1.4, token 1; narrowed 0.5 / 1 > 0.75 / 2, token 0.
  //   race row 3: a control row that narrowing does not change (token 3).
  //   gumbel row 0: scores 0 and -2^-9 with g = 17.33 and 17.335: spec token 1; narrowed, both
  //     g are 17.328125 and token 0 wins.
  //   gumbel row 1: g = 26 ln 2 (an Exp(1) variate of 2^-26) and 18.025 beside score -5 2^-10:
  //     spec token 0; narrowed 18.015625 and 18.03125: token 1.
  //   gumbel row 2: a control row (token 7). Masked tokens carry noise up to 22.
  {
    const float t26 = 0x1p-26f, t27 = 0x1p-27f;
    list.Add("exponential_race", "narrow_noise_v8_f16",
             {{"probs", InDType(Logits(4, 8, {0.0f, 0.5f, 0.0f, 0.25f, 0.0f, 0.0f, 0.125f, 0.0f,  //
                                              0.0f, 0.0f, 0.25f, 0.0f, 0.0f, 0.5f, 0.0f, 0.125f,  //
                                              0.5f, 0.75f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f,    //
                                              0.125f, 0.25f, 0.5f, 0.0625f, 0.0f, 0.25f, 0.125f, 0.0625f}),
                                DType::kF16)},
              {"q", F32({4, 8}, {t26, 1.0f, t27, 0.5f, 0x1p-30f, 1.5f, 0.2f, t26,  //
                                 1.0f, 1.0f, t26, 1.0f, 1.0f, t27, 1.0f, 1.0f,      //
                                 0x1.666666p-24f, 0x1.99999ap-24f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,  //
                                 0.7f, 1.3f, 2.1f, 0.05f, 0.9f, 0.4f, 3.0f, 1.1f})}});
    list.Add("gumbel_max", "narrow_noise_v8_f16",
             {{"logprobs", InDType(Logits(3, 8, {0.0f, -0x1p-9f, -kInf, -kInf, -4.0f, -4.0f, -kInf, -6.0f,      //
                                                 0.0f, -5 * 0x1p-10f, -kInf, -3.0f, -3.0f, -kInf, -3.0f, -3.0f,  //
                                                 -1.0f, -0.5f, -2.0f, -kInf, -0.25f, -3.0f, -1.5f, -0.75f}),
                                   DType::kF16)},
              {"gumbel", F32({3, 8}, {17.33f, 17.335f, 22.0f, 20.5f, 1.0f, 2.0f, 21.0f, 0.5f,         //
                                      18.021826f, 18.025f, 22.0f, 1.5f, 0.25f, 21.5f, 2.0f, 1.0f,  //
                                      0.3f, 0.1f, 1.2f, 5.0f, -0.2f, 2.0f, 0.9f, 0.6f})}});
  }
  // exponential_race: zero probabilities with tiny noise; ties; the underflow where vllm
  // draws a zero-probability token (1e-38 / 1e30 underflows to +0.0, tying token 0's 0 / q).
  list.Add("exponential_race", "edges",
           {{"probs", Logits(3, 3, {0.0f, 0.5f, 0.5f,  //
                                    0.25f, 0.25f, 0.5f,  //
                                    0.0f, 1e-38f, 0.0f})},
            {"q", F32({3, 3}, {1e-30f, 1.0f, 0.5f,  //
                               0.5f, 0.5f, 1.0f,  //
                               1.0f, 1e30f, 1.0f})}});
  for (std::int64_t vocab : {1, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("exponential_race", name);
    list.Add("exponential_race", name, {{"probs", RandomProbs(rng, 4, vocab)}, {"q", Noise(rng, 4, vocab, +exponential)}});
  }
  // inverse_cdf: u = 0 (first positive token), u on a CDF step, u = 1 - 2^-24 (the last),
  // zero-probability tokens skipped, unnormalised rows.
  const std::vector<float> probs = {0.0f, 0.25f, 0.0f, 0.75f};
  std::vector<float> rows;
  for (int i = 0; i < 4; ++i) rows.insert(rows.end(), probs.begin(), probs.end());
  list.Add("inverse_cdf", "edges",
           {{"probs", Logits(5, 4, [&] { auto r = rows; r.insert(r.end(), {3.0f, 0.0f, 1.0f, 0.0f}); return r; }())},
            {"u", F32({5}, {0.0f, 0.25f, 0.2499999851f, 0x1.fffffep-1f, 0.75f})}});
  for (std::int64_t vocab : {1, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("inverse_cdf", name);
    Tensor u(DType::kF32, {4});
    for (float& v : u.data<float>()) v = static_cast<float>(rng.Next() >> 40) * 0x1p-24f;
    list.Add("inverse_cdf", name, {{"probs", RandomProbs(rng, 4, vocab)}, {"u", u}});
  }
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeDrawsInputs(const std::string& stage, SplitMix64& rng, std::int64_t vocab) {
  // Noise from uniforms in (0, 1) through the owned noise laws (no libm: the bytes must not
  // depend on the machine); the distribution input is added by large_vocabulary_cases.cc.
  const HarnessNoise law = NoiseLaw(stage);
  Tensor noise(DType::kF32, {1, vocab});
  for (float& x : noise.data<float>()) {
    const float u = (static_cast<float>(rng.Next() >> 41) + 0.5f) * 0x1p-23f;
    x = law == HarnessNoise::kGumbel ? sampcheck::rng::GumbelNegLogNegLogF32(u)
                                     : sampcheck::rng::ExponentialNegLogF32(u);
  }
  if (law == HarnessNoise::kUniform) return {{NoiseInputName(stage), F32({1}, {0.625f})}};
  return {{NoiseInputName(stage), noise}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(Draws, {.stages = {"gumbel_max", "exponential_race", "inverse_cdf"}, .add = AddDrawCases, .large_inputs = LargeDrawsInputs});

}  // namespace sampcheck::golden
