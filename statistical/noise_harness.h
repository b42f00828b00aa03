// SPDX-License-Identifier: Apache-2.0
#pragma once
// The noise harness: does every generator and conversion of reference/rng/ follow its law?
// (docs/spec/harness.md "Noise"; docs/method.md "Continuous noise in
// fp32"). L0 — the bitwise known answers — lives in tests/rng_test.cc (Random123 and SMHasher
// vectors); this harness adds the statistical layers on long streams.
//
// Contract:
// - Sources (each a pure function of (seed, index)): Philox4x32-10 words at counter
//   {index / 4, 0, 0, 0x401} through UniformClosedOpen24F32, UniformOpenClosedCurandF32,
//   UniformClosedOpen53F64 (two words), ExponentialNegLog1pNegF32, ExponentialTorchCudaF32,
//   GumbelNegLogNegLogF32; and SGLang's MurmurHash3 key (seed, index, 0) through
//   GumbelSglangFromHashF64.
// - Per source, n values (kNoiseCiN, or kNoiseThoroughN under thorough):
//   L3 BinnedPitTest with 100 equiprobable bins (Cressie–Read 2/3; E = n / 100 >= 5);
//   L3 KolmogorovSmirnovTest (n >= 1000, so the asymptotic law applies);
//   L4 tail counts beyond the law's quantiles 1 - 1e-1 ... 1 - 1e-4 (upper) and 1e-1 ... 1e-4
//      (lower, for U(0,1) and Gumbel): two-sided exact binomial against the law's tail
//      probability, one test per quantile;
//   L4 floor: the count of the value at the source's documented floor (the exact zero of
//      UniformClosedOpen24F32, q = +0 of ExponentialNegLog1pNegF32, -inf of
//      GumbelNegLogNegLogF32), two-sided exact binomial against 2^-24 — a 16-bit generator
//      (floor 2^-16, the declared alternative) gives 256x the expected count.
//   Tail alternatives: twice the tail probability. Powers at the Holm-worst level
//   kFamilyWiseAlpha / NoiseFamilySize(); the KS power is the DKW lower bound.
//   Every p-value joins the run's Holm family (draw_harness.h ApplyHolm).
// - Results are named "noise/<source>/<test>", stage "noise", comparison "distribution",
//   statistics as docs/spec/report.md; the MDE of the PIT test is TV 0.01 over the bins.
// Example: every source passes at epoch 0.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "golden/verifier.h"
#include "statistical/continuous_laws.h"

namespace sampcheck::statistical {

inline constexpr std::int64_t kNoiseCiN = std::int64_t{1} << 20;
inline constexpr std::int64_t kNoiseThoroughN = std::int64_t{1} << 24;

enum class NoiseFloor { kNone, kExactZero, kNegInfinity };

// One generator-and-conversion: a pure function of (seed, index).
struct NoiseSource {
  std::string name;
  ContinuousLaw law;
  NoiseFloor floor = NoiseFloor::kNone;
  std::function<double(std::uint64_t seed, std::uint64_t index)> sample;
};

// The sources of the contract block.
const std::vector<NoiseSource>& NoiseSources();
// The number of p-values RunNoiseHarness contributes to the Holm family.
std::int64_t NoiseFamilySize();
// The tests of one source (n values, seed CaseSeed("noise/<name>", epoch)), not Holm-adjusted.
std::vector<golden::CaseResult> RunNoiseSource(const NoiseSource& source, std::uint64_t seed_epoch, std::int64_t n);
// Every source; with apply_holm, verdicts from Holm over these results alone (callers with a
// larger family pass false and run ApplyHolm once over all of it).
std::vector<golden::CaseResult> RunNoiseHarness(std::uint64_t seed_epoch, bool thorough, bool apply_holm = true);

}  // namespace sampcheck::statistical
