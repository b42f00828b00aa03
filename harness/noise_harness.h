// SPDX-License-Identifier: Apache-2.0
#pragma once
// The noise harness: does a backend's own noise follow its law? (docs/spec/noise.md "The noise
// harness", docs/spec/harness.md "Noise"; docs/method.md "Continuous noise in fp32"). Two
// entry points share one battery of tests:
// - RunBackendNoiseHarness: any backend that declares the `noise` stage (SupportedStages) is
//   asked, through Backend::Run, for n samples of each (generator, law) of BackendNoiseSources
//   at seed CaseSeed("noise/<generator>/<law>", epoch), offset 0: the reference, gpu-emulated,
//   gpu, gpu-fast, plugins and exec commands alike. A backend that throws or returns the
//   wrong shape fails that source with the reason.
// - RunNoiseHarness: the generators and conversions of reference/rng/ themselves, called
//   directly (tests/noise_harness_test.cc). Sources, each a pure function of (seed, index):
//   the kNoiseHarness Philox stream's words (reference/rng/streams.h) through
//   UniformClosedOpen24F32, UniformOpenClosedCurandF32, UniformClosedOpen53F64 (two words),
//   ExponentialNegLog1pNegF32, ExponentialTorchCudaF32, GumbelNegLogNegLogF32; and SGLang's
//   MurmurHash3 key (seed, index >> 20, index mod 2^20) through GumbelSglangFromHashF64.
//   L0 — the bitwise known answers — lives in tests/rng_test.cc (Random123 and SMHasher
//   vectors).
//
// Contract (the battery, RunNoiseTests, on n values x of a law):
//   L3 BinnedPitTest with 100 equiprobable bins (Cressie–Read 2/3; E = n / 100 >= 5);
//   L3 KolmogorovSmirnovTest (n >= 1000, so the asymptotic law applies);
//   L4 tail counts beyond the law's quantiles 1 - 1e-1 ... 1 - 1e-4 (upper) and 1e-1 ... 1e-4
//      (lower, for U(0,1) and Gumbel): two-sided exact binomial against the law's tail
//      probability, one test per quantile;
//   L4 floor: the count of the value at the source's documented atom (exact zero, exact one
//      or -inf) against its probability (2^-24 for the 24-bit conversions, 2^-25 for
//      curand_uniform's 1.0, 2^-32 for SGLang's u = 0), two-sided exact binomial; the declared
//      alternative is 2^-16, a generator of 16-bit words.
//   L3 order: one p-value, 3 x the smallest of three (Bonferroni): the PIT statistic's lower
//      tail P(X^2 <= observed) (a stratified stream, a quantile grid in any order, fails it),
//      the lag-1 correlation of the PIT values u_i = F(x_i) (z = 12 sum (u_i - 1/2)(u_{i+1} -
//      1/2) / sqrt(n - 1)) and the Wald–Wolfowitz runs of u_i >= 1/2 (two-sided normal);
//      sized against a dependence of 0.01 (shift 0.01 sqrt(n) sd) and X^2 <= df / 4.
//   Tail alternatives: twice the tail probability. Powers at the Holm-worst level
//   kFamilyWiseAlpha / m (m = the family the battery belongs to); the KS power is the DKW
//   lower bound; the MDE of the PIT test is TV 0.01 over the bins. Every p-value joins the
//   run's Holm family (draw_harness.h ApplyHolm).
// - Per source n = kNoiseCiN, or kNoiseThoroughN under thorough.
// - Through a backend, before the battery: noise/<source>/support (L1, alpha 0): every sample
//   finite and inside the source's range, else FAIL with the count and the first index, and
//   the battery is not run. After it, one more request of two rows of m = 4096 samples:
//   noise/<source>/offset (L1, alpha 0): the row at offset n / 2 + 1 equals the stream's samples
//   there bit for bit (noise is keyed by counter); noise/<source>/seeds (L1): the row at a second
//   seed against the stream's first m fails at PIT correlation |r| >= 1/2 (Hoeffding: false
//   failure < 4e-25 per source).
// - Endpoints (L1, alpha 0), for the philox sources: one request of one sample at each counter
//   of kPhiloxEndpointProbes (seed kNoiseEndpointSeed), where the spec's word sits at an edge
//   of the conversion: u = 1 (PyTorch's clamp then gives q = 2^-24), u = 1 - 2^-24 (the clamp's
//   other cell) and a word below 2^8 (cell 0 of a 24-bit uniform). noise/<source>/endpoints
//   fails when a sample there is not finite or outside the source's range. An atom of
//   probability 2^-24 outside the range is seen by the random stream only with probability
//   1 - (1 - 2^-24)^n (6% at the CI n, 63% under thorough; 0.99 needs 7.7e7 samples); a backend
//   whose generator is the spec's meets it at the probe every time, and the probe cannot fail a
//   backend that stays inside the range, whatever its generator.
// - Results are named "noise/<source>/<test>", stage "noise", comparison "distribution",
//   statistics as docs/spec/report.md.
// Example: the reference backend passes RunBackendNoiseHarness at epoch 0; a backend whose
// Exp(1) noise is scaled by 1.05 fails noise/philox/exponential/ks.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/stage_catalogue.h"
#include "core/case_result.h"
#include "reference/rng/noise_stream.h"
#include "statistical/continuous_laws.h"

namespace sampcheck::statistical {

inline constexpr std::int64_t kNoiseCiN = std::int64_t{1} << 20;
inline constexpr std::int64_t kNoiseThoroughN = std::int64_t{1} << 24;

enum class NoiseFloor { kNone, kExactZero, kExactOne, kNegInfinity };

// One generator-and-conversion: a pure function of (seed, index).
struct NoiseSource {
  std::string name;
  ContinuousLaw law;
  NoiseFloor floor = NoiseFloor::kNone;
  std::function<double(std::uint64_t seed, std::uint64_t index)> sample;
  double floor_probability = 0x1p-24;  // P(value == the floor atom)
};

// The sources of the contract block.
const std::vector<NoiseSource>& NoiseSources();
// The number of p-values RunNoiseHarness contributes to the Holm family.
std::int64_t NoiseFamilySize();
// The tests of one source (n values, seed CaseSeed("noise/<name>", epoch)), not Holm-adjusted.
std::vector<CaseResult> RunNoiseSource(const NoiseSource& source, std::uint64_t seed_epoch, std::int64_t n);
// Every source; with apply_holm, verdicts from Holm over these results alone (callers with a
// larger family pass false and run ApplyHolm once over all of it).
std::vector<CaseResult> RunNoiseHarness(std::uint64_t seed_epoch, bool thorough, bool apply_holm = true);

// The battery on given values (seed: the one they were drawn with, for the report; family:
// the size of the Holm family the powers are computed for).
std::vector<CaseResult> RunNoiseTests(const std::string& base, ContinuousLaw law, NoiseFloor floor,
                                              double floor_probability, const std::vector<double>& x, std::uint64_t seed,
                                              std::int64_t family);

// The catalogue's noise stage (the stage whose output has Role::kNoise), and whether a
// backend declares it in SupportedStages.
const StageInfo& NoiseStage();
bool DeclaresNoiseStage(const Backend& backend);

// One (generator, law) of the noise stage (docs/spec/noise.md), named "<generator>/<law>".
struct BackendNoiseSource {
  rng::NoiseGenerator generator;
  rng::NoiseLaw law;
  ContinuousLaw target;
  NoiseFloor floor = NoiseFloor::kNone;
  double floor_probability = 0.0;
  // L1: the closed range of the conversion (docs/spec/noise.md "Samples"); a sample outside it
  // or not finite fails the source (alpha 0). Bounds of a transcendental law are the spec's,
  // widened by 2^-20 relative so that a backend whose own log differs in the last bits is judged
  // by the statistics, not here.
  double lowest = 0.0;
  double highest = 0.0;
  std::string Name() const;
};
const std::vector<BackendNoiseSource>& BackendNoiseSources();

// Endpoint probes (docs/spec/noise.md "The noise harness"): counters at which the philox
// generator's word, CurandPhiloxWord(kNoiseEndpointSeed, 0, counter), is at an edge of the
// conversions. Found by a search over the stream at seed 0 (the first three of each kind by
// counter; the words are checked in tests/noise_harness_test.cc, EndpointProbesHitTheirWords).
struct NoiseEndpointProbe {
  std::uint64_t counter;
  std::uint32_t word;  // the spec's word at that counter
  const char* edge;
};
inline constexpr std::uint64_t kNoiseEndpointSeed = 0;
inline constexpr NoiseEndpointProbe kPhiloxEndpointProbes[] = {
    // >= 0xffffff80: curand_uniform's u = 1.0 (P = 2^-25); q = 2^-24 by PyTorch's clamp, g = 24 ln 2.
    {44126575, 0xffffffcc, "u = 1"},
    {99850914, 0xffffffb9, "u = 1"},
    // [0xffffff00, 0xffffff7f]: u = 1 - 2^-24, the clamp's other cell (q = 2^-24).
    {9320226, 0xffffff45, "u = 1 - 2^-24"},
    {28454925, 0xffffff7e, "u = 1 - 2^-24"},
    // < 0x100: cell 0 of a 24-bit uniform (w >> 8 = 0); curand_uniform's u <= 2^-24, q >= 16.6.
    {59535980, 0x00000093, "w >> 8 = 0"},
    {71035964, 0x00000079, "w >> 8 = 0"},
};
// The number of p-values RunBackendNoiseHarness contributes to the Holm family.
std::int64_t BackendNoiseFamilySize();
// The noise-stage case of a source: one row, seed `seed` (as i64 bits), offset 0, n samples.
Case BackendNoiseCase(const BackendNoiseSource& source, std::uint64_t seed, std::int64_t n);
// Every source through backend.Run("noise", ...); the backend must declare the stage.
// `only` (source names, e.g. "philox/exponential"; empty: all) restricts the run, for tests;
// powers stay those of the whole family.
std::vector<CaseResult> RunBackendNoiseHarness(Backend& backend, std::uint64_t seed_epoch, bool thorough,
                                                       bool apply_holm = true, const std::vector<std::string>& only = {});

}  // namespace sampcheck::statistical
