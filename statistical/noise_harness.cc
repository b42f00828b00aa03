// SPDX-License-Identifier: Apache-2.0
// The noise harness (statistical/noise_harness.h).
#include "statistical/noise_harness.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <functional>
#include <limits>
#include <sstream>
#include <string>

#include "core/stage_catalogue.h"
#include "reference/noise.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/rng/streams.h"
#include "reference/rng/uniform.h"
#include "statistical/continuous_laws.h"
#include "statistical/draw_harness.h"
#include "statistical/power.h"

namespace sampcheck::statistical {
namespace {

constexpr std::size_t kPitBins = 100;
constexpr double kPitMde = 0.01;  // TV over the PIT bins
constexpr double kLevel = 0.99;
constexpr double kTails[] = {1e-1, 1e-2, 1e-3, 1e-4};
constexpr double kSixteenBitFloor = 0x1p-16;  // the alternative: a generator of 16-bit uniforms

std::uint32_t PhiloxWord(std::uint64_t seed, std::uint64_t index) {
  return rng::StreamWord(rng::Stream::kNoiseHarness, seed, static_cast<std::uint32_t>(index / 4),
                         static_cast<std::uint32_t>(index >> 34), 0, static_cast<std::uint32_t>(index % 4));
}

}  // namespace

const std::vector<NoiseSource>& NoiseSources() {
  static const std::vector<NoiseSource> sources = {
      {"philox/uniform_closed_open_24_f32", ContinuousLaw::kUniform01, NoiseFloor::kExactZero,
       [](std::uint64_t s, std::uint64_t i) { return static_cast<double>(rng::UniformClosedOpen24F32(PhiloxWord(s, i))); }},
      {"philox/uniform_open_closed_curand_f32", ContinuousLaw::kUniform01, NoiseFloor::kNone,
       [](std::uint64_t s, std::uint64_t i) { return static_cast<double>(rng::UniformOpenClosedCurandF32(PhiloxWord(s, i))); }},
      {"philox/uniform_closed_open_53_f64", ContinuousLaw::kUniform01, NoiseFloor::kNone,
       [](std::uint64_t s, std::uint64_t i) { return rng::UniformClosedOpen53F64(PhiloxWord(s, 2 * i), PhiloxWord(s, 2 * i + 1)); }},
      {"philox/exponential_neg_log1p_neg_f32", ContinuousLaw::kExponential1, NoiseFloor::kExactZero,
       [](std::uint64_t s, std::uint64_t i) {
         return static_cast<double>(rng::ExponentialNegLog1pNegF32(rng::UniformClosedOpen24F32(PhiloxWord(s, i))));
       }},
      {"philox/exponential_torch_cuda_f32", ContinuousLaw::kExponential1, NoiseFloor::kNone,
       [](std::uint64_t s, std::uint64_t i) {
         return static_cast<double>(rng::ExponentialTorchCudaF32(rng::UniformOpenClosedCurandF32(PhiloxWord(s, i))));
       }},
      {"philox/gumbel_neg_log_neg_log_f32", ContinuousLaw::kGumbel, NoiseFloor::kNegInfinity,
       [](std::uint64_t s, std::uint64_t i) {
         return static_cast<double>(rng::GumbelNegLogNegLogF32(rng::UniformClosedOpen24F32(PhiloxWord(s, i))));
       }},
      {"murmur3/gumbel_sglang_f64", ContinuousLaw::kGumbel, NoiseFloor::kNone,
       [](std::uint64_t s, std::uint64_t i) {
         return rng::GumbelSglangFromHashF64(
             rng::SglangMurmurKey(s, static_cast<std::uint32_t>(i >> 20), static_cast<std::uint32_t>(i & 0xfffff)));
       }},
  };
  return sources;
}

namespace {

bool HasLowerTail(ContinuousLaw law) { return law != ContinuousLaw::kExponential1; }

std::string Fmt(double x) {
  std::ostringstream s;
  s.precision(4);
  s << x;
  return s.str();
}

CaseResult Result(const std::string& id) {
  CaseResult r;
  r.id = id;
  r.stage = "noise";
  r.profile = "canonical";
  r.comparison = "distribution";
  return r;
}

// p1: the declared alternative (mde = p1 - p0); power at the Holm-worst level of the noise family.
void CountTest(std::vector<CaseResult>& out, const std::string& id, const std::string& label, std::int64_t count,
               std::int64_t n, double p0, double p1, std::uint64_t seed, std::int64_t family) {
  CaseResult r = Result(id);
  const auto test = ExactCountTest(count, n, p0);
  const auto effect = TargetedDelta(count, n, p0, kLevel);
  const double power = BinomialPower(n, p0, p1, kFamilyWiseAlpha / static_cast<double>(family) / 2.0);
  auto s = PlannedTest(TestLayer::kTails, "binomial", n, kFamilyWiseAlpha, p1 - p0, power, seed);
  s.statistic = count;
  s.p_value = test.p_value;
  s.effect = EffectSize{"delta", effect.estimate, effect.interval.lower, effect.interval.upper, kLevel};
  const double expected = p0 * static_cast<double>(n);
  s.top_bins.push_back({label, count, expected, (static_cast<double>(count) - expected) / std::sqrt(expected)});
  s.expected.push_back(expected);
  s.observed.push_back(count);
  s.labels.push_back(label);
  r.reason = label + ": " + std::to_string(count) + " of " + std::to_string(n) + ", expected " + Fmt(expected) +
             " (delta " + Fmt(effect.estimate) + " [" + Fmt(effect.interval.lower) + ", " + Fmt(effect.interval.upper) +
             "], p = " + Fmt(test.p_value) + ")";
  r.statistics = std::move(s);
  out.push_back(std::move(r));
}

}  // namespace

std::int64_t NoiseTestsPerSource(ContinuousLaw law, NoiseFloor floor) {
  return 2 + static_cast<std::int64_t>(std::size(kTails)) * (HasLowerTail(law) ? 2 : 1) + (floor != NoiseFloor::kNone);
}

std::int64_t NoiseFamilySize() {
  std::int64_t m = 0;
  for (const auto& s : NoiseSources()) m += NoiseTestsPerSource(s.law, s.floor);
  return m;
}

std::vector<CaseResult> RunNoiseHarness(std::uint64_t seed_epoch, bool thorough, bool apply_holm) {
  const std::int64_t n = thorough ? kNoiseThoroughN : kNoiseCiN;
  std::vector<CaseResult> out;
  for (const auto& src : NoiseSources()) {
    auto results = RunNoiseSource(src, seed_epoch, n);
    out.insert(out.end(), std::make_move_iterator(results.begin()), std::make_move_iterator(results.end()));
  }
  if (apply_holm) ApplyHolm(out, kFamilyWiseAlpha);
  return out;
}

std::vector<CaseResult> RunNoiseSource(const NoiseSource& src, std::uint64_t seed_epoch, std::int64_t n) {
  std::vector<double> x(static_cast<std::size_t>(n));
  const std::string base = "noise/" + src.name;
  const std::uint64_t seed = CaseSeed(base, seed_epoch);
  for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = src.sample(seed, static_cast<std::uint64_t>(i));
  return RunNoiseTests(base, src.law, src.floor, src.floor_probability, x, seed, NoiseFamilySize());
}

std::vector<CaseResult> RunNoiseTests(const std::string& base, ContinuousLaw law, NoiseFloor floor,
                                              double floor_probability, const std::vector<double>& x, std::uint64_t seed,
                                              std::int64_t family) {
  std::vector<CaseResult> out;
  const auto n = static_cast<std::int64_t>(x.size());
  {
    {
      CaseResult r = Result(base + "/pit");
      const auto pit = BinnedPitTest(x, law, kPitBins);
      const double w2 = 4.0 * kPitMde * kPitMde;
      const double power = ChiSquarePower(pit.df, static_cast<double>(n) * w2, kFamilyWiseAlpha / static_cast<double>(family));
      auto s = PlannedTest(TestLayer::kOmnibus, "pit-chi-square", n, kFamilyWiseAlpha, kPitMde, power, seed);
      s.bins = pit.bins;
      s.df = pit.df;
      s.statistic = pit.statistic;
      s.p_value = pit.p_value;
      double tv = 0.0;
      std::vector<std::pair<double, std::size_t>> residuals;
      for (std::size_t b = 0; b < pit.counts.size(); ++b) {
        const double o = static_cast<double>(pit.counts[b]);
        tv += std::fabs(o - pit.expected_per_bin) / (2.0 * static_cast<double>(n));
        residuals.emplace_back((o - pit.expected_per_bin) / std::sqrt(pit.expected_per_bin), b);
        s.expected.push_back(pit.expected_per_bin);
        s.observed.push_back(pit.counts[b]);
        std::string label = Fmt(static_cast<double>(b) / kPitBins);  // "[lo, hi)"
        label.insert(0, 1, '[');
        label += ", " + Fmt(static_cast<double>(b + 1) / kPitBins) + ")";
        s.labels.push_back(label);
      }
      std::stable_sort(residuals.begin(), residuals.end(), [](auto a, auto b) { return std::fabs(a.first) > std::fabs(b.first); });
      for (std::size_t k = 0; k < 5 && k < residuals.size(); ++k) {
        const std::size_t b = residuals[k].second;
        s.top_bins.push_back({s.labels[b], pit.counts[b], pit.expected_per_bin, residuals[k].first});
      }
      // TV of the PIT histogram with the same distribution-free band as TotalVariation
      // (power.h): half-width sqrt(2 (K ln 2 + ln(1 / (1 - level))) / n) / 2, K = bins.
      const double half = std::sqrt(2.0 * (static_cast<double>(kPitBins) * std::log(2.0) + std::log(1.0 / (1.0 - kLevel))) /
                                    static_cast<double>(n)) / 2.0;
      s.effect = EffectSize{"TV", tv, std::max(0.0, tv - half), tv + half, kLevel};
      r.reason = "PIT TV " + Fmt(tv) + " (n = " + std::to_string(n) + ", 100 bins, p = " + Fmt(pit.p_value) + ")";
      r.statistics = std::move(s);
      out.push_back(std::move(r));
    }
    {
      CaseResult r = Result(base + "/ks");
      const auto ks = KolmogorovSmirnovTest(x, law);
      auto s = PlannedTest(TestLayer::kOmnibus, "ks", n, kFamilyWiseAlpha, kPitMde, 0.0, seed);
      s.statistic = ks.statistic;
      s.p_value = ks.p_value;
      // Power against a CDF shift of mde somewhere, a lower bound by the Dvoretzky–Kiefer–
      // Wolfowitz inequality P(sqrt(n) D > y) <= 2 exp(-2 y^2): the critical value is at most
      // k = sqrt(ln(2 / alpha) / 2), and the power is >= 1 - 2 exp(-2 (sqrt(n) mde - k)^2).
      const double k_alpha = std::sqrt(-0.5 * std::log(kFamilyWiseAlpha / static_cast<double>(family) / 2.0));
      const double shift = std::sqrt(static_cast<double>(n)) * kPitMde;
      s.power = shift > k_alpha ? 1.0 - 2.0 * std::exp(-2.0 * (shift - k_alpha) * (shift - k_alpha)) : 0.0;
      s.effect = EffectSize{"D", ks.statistic, 0.0, ks.statistic, kLevel};
      r.reason = "KS D = " + Fmt(ks.statistic) + " (n = " + std::to_string(n) + ", p = " + Fmt(ks.p_value) + ")";
      r.statistics = std::move(s);
      out.push_back(std::move(r));
    }
    for (double t : kTails) {
      const double upper = LawQuantile(law, 1.0 - t);
      CountTest(out, base + "/tail_above_" + Fmt(1.0 - t), "above F^-1(1 - " + Fmt(t) + ")", CountAbove(x, upper), n, t, 2.0 * t,
                seed, family);
      if (HasLowerTail(law)) {
        const double lower = LawQuantile(law, t);
        CountTest(out, base + "/tail_below_" + Fmt(t), "below F^-1(" + Fmt(t) + ")", CountBelow(x, lower), n, t, 2.0 * t, seed,
                  family);
      }
    }
    if (floor != NoiseFloor::kNone) {
      std::int64_t at_floor = 0;
      for (double v : x) {
        at_floor += floor == NoiseFloor::kExactZero  ? v == 0.0
                    : floor == NoiseFloor::kExactOne ? v == 1.0
                                                     : v == -std::numeric_limits<double>::infinity();
      }
      const char* label = floor == NoiseFloor::kExactZero ? "exact zeros" : floor == NoiseFloor::kExactOne ? "exact ones" : "-inf values";
      CountTest(out, base + "/floor", label, at_floor, n, floor_probability, kSixteenBitFloor, seed, family);
    }
  }
  return out;
}

const StageInfo& NoiseStage() {
  for (const StageInfo& s : StageCatalogue()) {
    if (s.OutputWithRole(Role::kNoise) != nullptr) return s;
  }
  throw std::logic_error("the stage catalogue has no stage with a noise output (docs/spec/noise.md)");
}

bool DeclaresNoiseStage(const Backend& backend) {
  const std::vector<std::string> stages = backend.SupportedStages();
  return std::find(stages.begin(), stages.end(), NoiseStage().name) != stages.end();
}

std::string BackendNoiseSource::Name() const {
  return std::string(reference::NoiseGeneratorName(generator)) + "/" + reference::NoiseLawName(law);
}

const std::vector<BackendNoiseSource>& BackendNoiseSources() {
  using G = rng::NoiseGenerator;
  using L = rng::NoiseLaw;
  // Atoms (docs/spec/noise.md "The noise harness"): curand_uniform returns 1.0 for the 128
  // words >= 0xffffff80 (P = 2^-25, reference/rng/uniform.h); SGLang's u is 0 iff h = 0
  // (P = 2^-32; h = 1 gives 2^-32, a normal binary32). A 16-bit generator hits either with
  // probability 2^-16, the declared alternative.
  static const std::vector<BackendNoiseSource> sources = {
      {G::kPhilox, L::kUniform, ContinuousLaw::kUniform01, NoiseFloor::kExactOne, 0x1p-25},
      {G::kPhilox, L::kExponential, ContinuousLaw::kExponential1},
      {G::kPhilox, L::kGumbel, ContinuousLaw::kGumbel},
      {G::kMurmur3, L::kUniform, ContinuousLaw::kUniform01, NoiseFloor::kExactZero, 0x1p-32},
      {G::kMurmur3, L::kExponential, ContinuousLaw::kExponential1},
      {G::kMurmur3, L::kGumbel, ContinuousLaw::kGumbel},
  };
  return sources;
}

std::int64_t BackendNoiseFamilySize() {
  std::int64_t m = 0;
  for (const auto& s : BackendNoiseSources()) m += NoiseTestsPerSource(s.target, s.floor);
  return m;
}

Case BackendNoiseCase(const BackendNoiseSource& source, std::uint64_t seed, std::int64_t n) {
  Case c{"noise/" + source.Name() + "/canonical", NoiseStage().name, Profile::kCanonical, nlohmann::json::object(), {}};
  c.params = {{"generator", reference::NoiseGeneratorName(source.generator)},
              {"law", reference::NoiseLawName(source.law)},
              {"n", n}};
  Tensor s(DType::kI64, {1});
  s.data<std::int64_t>()[0] = static_cast<std::int64_t>(seed);
  c.inputs.emplace("seed", std::move(s));
  c.inputs.emplace("offset", Tensor(DType::kI64, {1}));
  return c;
}

std::vector<CaseResult> RunBackendNoiseHarness(Backend& backend, std::uint64_t seed_epoch, bool thorough,
                                                       bool apply_holm, const std::vector<std::string>& only) {
  const std::int64_t n = thorough ? kNoiseThoroughN : kNoiseCiN;
  const StageInfo& stage = NoiseStage();
  const std::string& output = stage.OutputWithRole(Role::kNoise)->name;
  std::vector<CaseResult> out;
  for (const auto& src : BackendNoiseSources()) {
    if (!only.empty() && std::find(only.begin(), only.end(), src.Name()) == only.end()) continue;
    const std::string base = "noise/" + src.Name();
    const std::uint64_t seed = CaseSeed(base, seed_epoch);
    std::string error;
    std::vector<double> x;
    try {
      const TensorMap got = backend.Run(stage.name, BackendNoiseCase(src, seed, n));
      auto it = got.find(output);
      if (it == got.end()) {
        error = "the backend returned no '" + output + "' output";
      } else if (it->second.dtype() != DType::kF32 || it->second.shape() != Shape{1, n}) {
        error = "output '" + output + "' must be f32 [1, " + std::to_string(n) + "]";
      } else {
        const auto v = it->second.data<float>();
        x.reserve(v.size());
        for (std::size_t i = 0; i < v.size() && error.empty(); ++i) {
          if (std::isnan(v[i])) error = "sample " + std::to_string(i) + " is NaN";
          x.push_back(static_cast<double>(v[i]));
        }
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) {
      CaseResult r = Result(base + "/run");
      r.verdict = Verdict::kFail;
      r.reason = "backend '" + backend.Name() + "': " + error;
      out.push_back(std::move(r));
      continue;
    }
    auto results = RunNoiseTests(base, src.target, src.floor, src.floor_probability, x, seed, BackendNoiseFamilySize());
    out.insert(out.end(), std::make_move_iterator(results.begin()), std::make_move_iterator(results.end()));
  }
  if (apply_holm) ApplyHolm(out, kFamilyWiseAlpha);
  return out;
}

}  // namespace sampcheck::statistical
