// SPDX-License-Identifier: Apache-2.0
// The noise harness (harness/noise_harness.h).
#include "harness/noise_harness.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <functional>
#include <limits>
#include <sstream>
#include <string>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>

#include "core/exception_text.h"
#include "core/stage_catalogue.h"
#include "reference/noise.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/rng/streams.h"
#include "reference/rng/uniform.h"
#include "statistical/continuous_laws.h"
#include "statistical/detail/checks.h"
#include "harness/draw_harness.h"
#include "statistical/power.h"

namespace sampcheck::statistical {
namespace {

constexpr std::size_t kPitBins = 100;
constexpr double kPitMde = 0.01;  // TV over the PIT bins
constexpr double kLevel = 0.99;
constexpr double kTails[] = {1e-1, 1e-2, 1e-3, 1e-4};
constexpr double kSixteenBitFloor = 0x1p-16;  // the alternative: a generator of 16-bit uniforms
// Order within a stream (docs/spec/noise.md "The noise harness"): the lag-1 serial correlation
// and the runs test are sized against a dependence of 0.01 (correlation 0.01; a sign that
// repeats with probability 0.505 instead of 0.5), each a shift of 0.01 sqrt(n) = 10.2 standard
// deviations at n = 2^20.
constexpr double kSerialMde = 0.01;
// The PIT statistic's lower tail: a stream at most a quarter as dispersed as chance (X^2 <=
// df / 4) is "too even"; a permuted quantile grid has X^2 of order 1 / n.
constexpr double kTooEvenRatio = 0.25;
// Different seeds (docs/spec/noise.md): m samples at a second seed against the first m of the
// stream (SeedsResult). The same request checks the counter: m samples at offset n / 2 + 1 must
// equal the stream's samples there bit for bit.
constexpr std::int64_t kStreamCheckN = 4096;
constexpr double kSeedBound = 0.5;

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

using detail::Fmt;

CaseResult Result(const std::string& id) {
  CaseResult r;
  r.id = id;
  r.stage = "noise";
  r.profile = "canonical";
  r.comparison = "distribution";
  return r;
}

double NormalTwoSidedP(double z) { return std::erfc(std::fabs(z) / std::sqrt(2.0)); }

// Power of a two-sided z test against a mean shift `shift` (in standard deviations), at level alpha.
double NormalPower(double shift, double alpha) {
  const boost::math::normal_distribution<double> unit;
  const double z = boost::math::quantile(boost::math::complement(unit, alpha / 2.0));
  return boost::math::cdf(unit, shift - z);
}

// Sample correlation of PIT values under iid U(0, 1), with the known mean 1/2 and variance 1/12:
// the terms (a_i - 1/2)(b_i - 1/2) have mean 0, variance 1/144 and are uncorrelated (also for
// a_i = u_i, b_i = u_{i+1}: neighbouring terms share one factor of mean 0), so
// z = 12 sum / sqrt(k) is N(0, 1) by the central limit theorem for m-dependent sums; the terms
// are bounded and symmetric, so the normal tail holds far out at k = 2^12 .. 2^24.
double PitCorrelationZ(const std::vector<double>& a, std::size_t a0, const std::vector<double>& b, std::size_t b0,
                       std::size_t k) {
  double sum = 0.0;
  for (std::size_t i = 0; i < k; ++i) sum += (a[a0 + i] - 0.5) * (b[b0 + i] - 0.5);
  return 12.0 * sum / std::sqrt(static_cast<double>(k));
}

EffectSize CorrelationEffect(double z, std::size_t k) {
  const double sd = 1.0 / std::sqrt(static_cast<double>(k));
  const double half = 2.5758293035489004 * sd;  // z_{0.995}: a 99% interval
  return EffectSize{"rho", z * sd, z * sd - half, z * sd + half, kLevel};
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
  // PIT, KS, order; the tails; the floor.
  return 3 + static_cast<std::int64_t>(std::size(kTails)) * (HasLowerTail(law) ? 2 : 1) + (floor != NoiseFloor::kNone);
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
    {
      // Order within the stream: one p-value for three statistics (Bonferroni, p = 3 min p_j),
      // so the family grows by one per source.
      // - too even: the lower tail of the PIT statistic, P(X^2 <= observed) (chi-square
      //   approximation, as the upper tail). A stratified stream, e.g. the law's quantile grid
      //   in any order, has X^2 near 0; independent draws near df.
      // - lag-1 serial correlation of the PIT values u_i = F(x_i) (PitCorrelationZ).
      // - runs: Wald–Wolfowitz runs of u_i >= 1/2; given the counts n1, n0 of each sign, the run
      //   count R has mean 1 + 2 n1 n0 / n and variance 2 n1 n0 (2 n1 n0 - n) / (n^2 (n - 1))
      //   (Wald & Wolfowitz 1940), normal for large n.
      // A sorted, strided or alternating stream fails the correlation and runs; a shuffled grid
      // the too-even tail.
      CaseResult r = Result(base + "/order");
      const double level = kFamilyWiseAlpha / static_cast<double>(family) / 3.0;
      const auto pit = BinnedPitTest(x, law, kPitBins);
      const boost::math::chi_squared_distribution<double> chi(pit.df);
      const double p_even = boost::math::cdf(chi, pit.statistic);
      std::vector<double> u(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) u[i] = LawCdf(law, x[i]);
      const std::size_t k = u.size() > 1 ? u.size() - 1 : 0;
      const double z_corr = k > 0 ? PitCorrelationZ(u, 0, u, 1, k) : 0.0;
      double n1 = 0.0, runs = u.empty() ? 0.0 : 1.0;
      for (std::size_t i = 0; i < u.size(); ++i) {
        n1 += u[i] >= 0.5;
        if (i > 0 && (u[i] >= 0.5) != (u[i - 1] >= 0.5)) runs += 1.0;
      }
      const double nn = static_cast<double>(n), n0 = nn - n1;
      const double mean = 1.0 + 2.0 * n1 * n0 / nn;
      const double var = nn > 1.0 ? 2.0 * n1 * n0 * (2.0 * n1 * n0 - nn) / (nn * nn * (nn - 1.0)) : 0.0;
      // All of one sign (var 0 given the counts): the unconditional moments of R, mean
      // (n + 1) / 2 and variance (n - 1) / 4, give z = -sqrt(n - 1).
      const double z_runs = var > 0.0 ? (runs - mean) / std::sqrt(var) : -std::sqrt(std::max(0.0, nn - 1.0));
      const double p_corr = NormalTwoSidedP(z_corr), p_runs = NormalTwoSidedP(z_runs);
      const double p_min = std::min({p_even, p_corr, p_runs});
      // Power: the smallest of the three against its alternative (correlation 0.01; runs: a sign
      // repeating with probability 0.505, a shift of 0.01 sqrt(n) sd; too even: X^2 <= df / 4,
      // power 1 when that is below the level's lower quantile).
      const double power_serial = NormalPower(kSerialMde * std::sqrt(nn), level);
      const double power_even = boost::math::cdf(chi, kTooEvenRatio * pit.df) < level ? 1.0 : 0.0;
      auto st = PlannedTest(TestLayer::kOmnibus, "order", n, kFamilyWiseAlpha, kSerialMde, std::min(power_serial, power_even), seed);
      st.df = pit.df;
      st.statistic = p_min == p_corr ? z_corr : p_min == p_runs ? z_runs : pit.statistic;
      st.p_value = std::min(1.0, 3.0 * p_min);
      const EffectSize rho = CorrelationEffect(z_corr, std::max<std::size_t>(k, 1));
      st.effect = rho;
      r.reason = "lag-1 correlation " + Fmt(rho.value) + " (z = " + Fmt(z_corr) + "), runs " + Fmt(runs) + " against " +
                 Fmt(mean) + " expected (z = " + Fmt(z_runs) + "), PIT X^2 / df " + Fmt(pit.statistic / pit.df) +
                 " (lower-tail p = " + Fmt(p_even) + "); n = " + std::to_string(n) + ", p = 3 min = " + Fmt(st.p_value);
      r.statistics = std::move(st);
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

namespace {

// x moved outward by 2^-20 of its magnitude, down (direction -1) or up (+1).
double Widen(double x, int direction) { return x + direction * std::fabs(x) * 0x1p-20; }

}  // namespace

const std::vector<BackendNoiseSource>& BackendNoiseSources() {
  using G = rng::NoiseGenerator;
  using L = rng::NoiseLaw;
  // Atoms (docs/spec/noise.md "The noise harness"): curand_uniform returns 1.0 for the 128
  // words >= 0xffffff80 (P = 2^-25, reference/rng/uniform.h); SGLang's u is 0 iff h = 0
  // (P = 2^-32; h = 1 gives 2^-32, a normal binary32). A 16-bit generator hits either with
  // probability 2^-16, the declared alternative.
  // Ranges (docs/spec/noise.md "Samples"): philox u in [2^-33, 1] (curand_uniform's smallest
  // is 2^-32 * 0 + 2^-33); q in [2^-24, 33 ln 2] (u >= 1 - 2^-24 gives 2^-24, the smallest
  // u = 2^-33 gives 33 ln 2); g = -log q in [-log(33 ln 2), 24 ln 2]. murmur3 u in [0, 1];
  // q in [2^-32, 709.79] and g in [-709.79, 22.1807] as the spec's table states them (already
  // rounded outward). The uniforms' bounds are exact; the others are widened below.
  const double ln2 = 0.69314718055994531;
  static const std::vector<BackendNoiseSource> sources = {
      {G::kPhilox, L::kUniform, ContinuousLaw::kUniform01, NoiseFloor::kExactOne, 0x1p-25, 0x1p-33, 1.0},
      {G::kPhilox, L::kExponential, ContinuousLaw::kExponential1, NoiseFloor::kNone, 0.0, Widen(0x1p-24, -1),
       Widen(33.0 * ln2, 1)},
      {G::kPhilox, L::kGumbel, ContinuousLaw::kGumbel, NoiseFloor::kNone, 0.0, Widen(-std::log(33.0 * ln2), -1),
       Widen(24.0 * ln2, 1)},
      {G::kMurmur3, L::kUniform, ContinuousLaw::kUniform01, NoiseFloor::kExactZero, 0x1p-32, 0.0, 1.0},
      {G::kMurmur3, L::kExponential, ContinuousLaw::kExponential1, NoiseFloor::kNone, 0.0, Widen(0x1p-32, -1),
       Widen(709.79, 1)},
      {G::kMurmur3, L::kGumbel, ContinuousLaw::kGumbel, NoiseFloor::kNone, 0.0, Widen(-709.79, -1), Widen(22.1807, 1)},
  };
  return sources;
}

std::int64_t BackendNoiseFamilySize() {
  std::int64_t m = 0;
  for (const auto& s : BackendNoiseSources()) m += NoiseTestsPerSource(s.target, s.floor);
  return m;
}

namespace {

// One row per (seed, offset).
Case NoiseCase(const BackendNoiseSource& source, const std::vector<std::pair<std::uint64_t, std::int64_t>>& rows,
               std::int64_t n) {
  Case c{"noise/" + source.Name() + "/canonical", NoiseStage().name, Profile::kCanonical, nlohmann::json::object(), {}};
  c.params = {{"generator", reference::NoiseGeneratorName(source.generator)},
              {"law", reference::NoiseLawName(source.law)},
              {"n", n}};
  const auto b = static_cast<std::int64_t>(rows.size());
  Tensor seeds(DType::kI64, {b});
  Tensor offsets(DType::kI64, {b});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    seeds.data<std::int64_t>()[i] = static_cast<std::int64_t>(rows[i].first);
    offsets.data<std::int64_t>()[i] = rows[i].second;
  }
  c.inputs.emplace("seed", std::move(seeds));
  c.inputs.emplace("offset", std::move(offsets));
  return c;
}

// The noise output of one request, or an error.
std::string RunNoise(Backend& backend, const Case& c, std::int64_t rows, std::int64_t n, std::vector<float>& values) {
  const StageInfo& stage = NoiseStage();
  const std::string& output = stage.OutputWithRole(Role::kNoise)->name;
  try {
    const TensorMap got = backend.Run(stage.name, c);
    auto it = got.find(output);
    if (it == got.end()) return "the backend returned no '" + output + "' output";
    if (it->second.dtype() != DType::kF32 || it->second.shape() != Shape{rows, n}) {
      return "output '" + output + "' must be f32 [" + std::to_string(rows) + ", " + std::to_string(n) + "]";
    }
    const auto v = it->second.data<float>();
    values.assign(v.begin(), v.end());
  } catch (const std::exception& e) {
    return ExceptionText(e);
  }
  return "";
}

std::string Hex(float v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", static_cast<double>(v));
  return buf;
}

// L1: count of samples that are not finite or outside [lowest, highest]; first index.
CaseResult SupportResult(const std::string& base, const BackendNoiseSource& src, const std::vector<float>& v,
                         std::uint64_t seed) {
  CaseResult r = Result(base + "/support");
  std::int64_t bad = 0, first = -1;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double x = v[i];
    if (!std::isfinite(x) || x < src.lowest || x > src.highest) {
      if (first < 0) first = static_cast<std::int64_t>(i);
      ++bad;
    }
  }
  const auto n = static_cast<std::int64_t>(v.size());
  auto s = PlannedTest(TestLayer::kStructural, "structural", n, 0.0, 0.0, 1.0, seed);
  s.statistic = static_cast<double>(bad);
  s.p_value = bad ? 0.0 : 1.0;
  s.p_adjusted = s.p_value;
  s.effect = EffectSize{"delta", static_cast<double>(bad) / static_cast<double>(std::max<std::int64_t>(n, 1)), 0.0,
                        static_cast<double>(bad) / static_cast<double>(std::max<std::int64_t>(n, 1)), kLevel};
  if (bad) {
    const float x = v[static_cast<std::size_t>(first)];
    r.verdict = Verdict::kFail;
    r.reason = std::to_string(bad) + " of " + std::to_string(n) + " samples are not finite or outside the range [" +
               Fmt(src.lowest) + ", " + Fmt(src.highest) + "] of " + src.Name() + " (first: sample " +
               std::to_string(first) + " = " + Fmt(x) + ", " + Hex(x) + ")";
  }
  r.statistics = std::move(s);
  return r;
}

// L1 at the endpoint probes: each sample finite and inside the source's range (alpha 0: a
// sample outside the range is wrong whatever the generator).
CaseResult EndpointResult(const std::string& base, const BackendNoiseSource& src, const std::vector<float>& v) {
  CaseResult r = Result(base + "/endpoints");
  std::int64_t bad = 0;
  std::string first;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double x = v[i];
    if (std::isfinite(x) && x >= src.lowest && x <= src.highest) continue;
    if (bad++ == 0) {
      const NoiseEndpointProbe& probe = kPhiloxEndpointProbes[i];
      char word[16];
      std::snprintf(word, sizeof word, "0x%08x", static_cast<unsigned>(probe.word));
      first = "counter " + std::to_string(probe.counter) + " (word " + word + ", " + probe.edge + ") gave " +
              Fmt(v[i]) + " = " + Hex(v[i]);
    }
  }
  const auto n = static_cast<std::int64_t>(v.size());
  auto s = PlannedTest(TestLayer::kStructural, "structural", n, 0.0, 0.0, 1.0, kNoiseEndpointSeed);
  s.statistic = static_cast<double>(bad);
  s.p_value = bad ? 0.0 : 1.0;
  s.p_adjusted = s.p_value;
  if (bad) {
    r.verdict = Verdict::kFail;
    r.reason = std::to_string(bad) + " of " + std::to_string(n) + " endpoint probes (seed " +
               std::to_string(kNoiseEndpointSeed) + ") are not finite or outside the range [" + Fmt(src.lowest) + ", " +
               Fmt(src.highest) + "] of " + src.Name() + " (first: " + first + ")";
  }
  r.statistics = std::move(s);
  return r;
}

// Different seeds give different streams (L1, with a stated bound in place of alpha 0): the
// PIT correlation of m samples at a second seed with the stream's first m. It fails at
// |r| >= 1/2; for independent streams the terms (a_i - 1/2)(b_i - 1/2) lie in [-1/4, 1/4] with
// mean 0, so by Hoeffding P(|r| >= 1/2) = P(|mean| >= 1/24) <= 2 exp(-2 m (1/24)^2 / (1/2)^2)
// = 2 exp(-m / 72) = 4e-25 at m = 4096 per source: nothing against the family's 1e-4. A
// backend that ignores the seed has r = 1, one that mirrors it r = -1.
CaseResult SeedsResult(const std::string& base, const std::vector<double>& a, const std::vector<double>& b,
                       std::uint64_t seed) {
  CaseResult r = Result(base + "/seeds");
  const double z = PitCorrelationZ(a, 0, b, 0, a.size());
  const EffectSize rho = CorrelationEffect(z, a.size());
  const auto m = static_cast<std::int64_t>(a.size());
  auto s = PlannedTest(TestLayer::kStructural, "seed-correlation", m, 0.0, kSeedBound, 1.0, seed);
  s.statistic = rho.value;
  const bool same = std::fabs(rho.value) >= kSeedBound;
  s.p_value = same ? 0.0 : 1.0;
  s.p_adjusted = s.p_value;
  s.effect = rho;
  if (same) {
    r.verdict = Verdict::kFail;
    r.reason = "the stream at a second seed has correlation " + Fmt(rho.value) + " with the first (" + std::to_string(m) +
               " samples; independent streams exceed 1/2 with probability < 4e-25): the seed does not select the stream";
  }
  r.statistics = std::move(s);
  return r;
}

}  // namespace

Case BackendNoiseCase(const BackendNoiseSource& source, std::uint64_t seed, std::int64_t n) {
  return NoiseCase(source, {{seed, 0}}, n);
}

std::vector<CaseResult> RunBackendNoiseHarness(Backend& backend, std::uint64_t seed_epoch, bool thorough,
                                                       bool apply_holm, const std::vector<std::string>& only) {
  const std::int64_t n = thorough ? kNoiseThoroughN : kNoiseCiN;
  const std::int64_t family = BackendNoiseFamilySize();
  std::vector<CaseResult> out;
  auto fail_run = [&](const std::string& id, const std::string& error) {
    CaseResult r = Result(id);
    r.verdict = Verdict::kFail;
    r.reason = "backend '" + backend.Name() + "': " + error;
    out.push_back(std::move(r));
  };
  for (const auto& src : BackendNoiseSources()) {
    if (!only.empty() && std::find(only.begin(), only.end(), src.Name()) == only.end()) continue;
    const std::string base = "noise/" + src.Name();
    const std::uint64_t seed = CaseSeed(base, seed_epoch);
    std::vector<float> v;
    if (std::string error = RunNoise(backend, BackendNoiseCase(src, seed, n), 1, n, v); !error.empty()) {
      fail_run(base + "/run", error);
      continue;
    }
    // L1 first: a sample outside the range fails the source; the statistics are not run on it.
    // The endpoint probes are a request of their own and run either way.
    CaseResult support = SupportResult(base, src, v, seed);
    const bool outside = support.verdict == Verdict::kFail;
    out.push_back(std::move(support));
    if (src.generator == rng::NoiseGenerator::kPhilox) {
      // The endpoint probes: one sample at each counter of kPhiloxEndpointProbes.
      std::vector<std::pair<std::uint64_t, std::int64_t>> rows;
      for (const auto& probe : kPhiloxEndpointProbes) rows.emplace_back(kNoiseEndpointSeed, static_cast<std::int64_t>(probe.counter));
      std::vector<float> e;
      if (std::string error = RunNoise(backend, NoiseCase(src, rows, 1), static_cast<std::int64_t>(rows.size()), 1, e);
          !error.empty()) {
        fail_run(base + "/endpoints", error);
      } else {
        out.push_back(EndpointResult(base, src, e));
      }
    }
    if (outside) continue;
    const std::vector<double> x(v.begin(), v.end());
    auto results = RunNoiseTests(base, src.target, src.floor, src.floor_probability, x, seed, family);
    out.insert(out.end(), std::make_move_iterator(results.begin()), std::make_move_iterator(results.end()));

    // Streams: row 0 at offset n / 2 + 1 (odd, so not aligned to a Philox block of 4 words),
    // row 1 at a second seed, offset 0.
    const std::int64_t m = std::min<std::int64_t>(kStreamCheckN, n / 2 - 1);
    if (m <= 0) continue;
    const std::int64_t offset = n / 2 + 1;
    const std::uint64_t other_seed = CaseSeed(base + "/other_seed", seed_epoch);
    std::vector<float> w;
    if (std::string error = RunNoise(backend, NoiseCase(src, {{seed, offset}, {other_seed, 0}}, m), 2, m, w);
        !error.empty()) {
      fail_run(base + "/streams", error);
      continue;
    }
    CaseResult range = SupportResult(base + "/streams", src, w, other_seed);
    if (range.verdict == Verdict::kFail) {
      out.push_back(std::move(range));
      continue;
    }
    CaseResult off = Result(base + "/offset");
    std::int64_t differ = 0, first = -1;
    for (std::int64_t i = 0; i < m; ++i) {
      if (std::bit_cast<std::uint32_t>(w[static_cast<std::size_t>(i)]) !=
          std::bit_cast<std::uint32_t>(v[static_cast<std::size_t>(offset + i)])) {
        if (first < 0) first = i;
        ++differ;
      }
    }
    auto so = PlannedTest(TestLayer::kStructural, "structural", m, 0.0, 0.0, 1.0, seed);
    so.statistic = static_cast<double>(differ);
    so.p_value = differ ? 0.0 : 1.0;
    so.p_adjusted = so.p_value;
    if (differ) {
      const auto fi = static_cast<std::size_t>(first);
      off.verdict = Verdict::kFail;
      off.reason = std::to_string(differ) + " of " + std::to_string(m) + " samples at offset " + std::to_string(offset) +
                   " differ from the same counters of the offset-0 request (first: sample " + std::to_string(first) +
                   " = " + Hex(w[fi]) + ", counter " + std::to_string(offset + first) + " gave " +
                   Hex(v[static_cast<std::size_t>(offset) + fi]) + "): noise must be keyed by (seed, counter)";
    }
    off.statistics = std::move(so);
    out.push_back(std::move(off));
    std::vector<double> a(static_cast<std::size_t>(m)), b(static_cast<std::size_t>(m));
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = LawCdf(src.target, v[i]);
      b[i] = LawCdf(src.target, w[static_cast<std::size_t>(m) + i]);
    }
    out.push_back(SeedsResult(base, a, b, other_seed));
  }
  if (apply_holm) ApplyHolm(out, kFamilyWiseAlpha);
  return out;
}

}  // namespace sampcheck::statistical
