// SPDX-License-Identifier: Apache-2.0
// Accuracy of the owned math (reference/math/{exp,log,log1p}.h) as reported in
// docs/spec/math.md. Label: slow.
//
// 1. SampledF32 / SampledF64: 10^7 points per function against MPFR (input families in
//    tests/support/owned_math_oracle.h), fixed seeds, printing the maximum ulp error and the
//    worst input. Bounds: binary32 0.5 ulp (correctly rounded), binary64 0.5 + 2^-9 ulp.
// 2. ExhaustiveF32: every one of the 2^32 binary32 inputs of ExpF32Cr, LogF32Cr and
//    Log1pF32Cr compared bitwise with the correctly rounded result. Oracle, per input:
//    glibc's binary64 exp/log/log1p (documented max error 1 ulp on x86-64 in glibc's
//    libm-test-ulps; we rely only on an error below 2^-41 relative, i.e. 2^12 of its ulps),
//    rounded to binary32 when it lies more than 2^-40 relative away from every binary32
//    rounding boundary (midpoint between neighbours), so that the true value is on the same
//    side of every boundary; otherwise MPFR at 200 bits rounded once (about 2^-15 of the
//    inputs). NaN results are compared by bit pattern as the contracts specify. The maximum
//    ulp error is measured against the binary64 oracle (its own error, < 2^-28 binary32 ulp,
//    is below the printed precision).
//    The sweep also counts, per function, the in-domain inputs on which the fast path
//    (detail::*F32Fast) declined and the double-double path answered (docs/spec/math.md).
//    Runtime: about 1-2 minutes per function on one core (the oracle's glibc call dominates); the 2^32 inputs are split over
//    std::thread::hardware_concurrency() threads (each thread owns its MPFR values), results
//    merged in thread order so the report does not depend on scheduling.
// 3. ExhaustiveF32ArrayMatchesScalar: the vectorised ExpF32CrArray equals the scalar ExpF32Cr
//    bitwise on all 2^32 inputs, on every SIMD path the host has.
// False-failure budget: none (deterministic; exact comparisons).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <thread>
#include <vector>

#include "reference/math/bits.h"
#include "reference/math/exp.h"
#include "reference/math/exp_array.h"
#include "reference/math/log.h"
#include "reference/math/log1p.h"
#include "tests/support/owned_math_oracle.h"

namespace sampcheck::math {
namespace {

using testing::HexF32;
using testing::MathFn;
using testing::MpfrOracle;

constexpr std::uint64_t kSweepPoints = 10000000;
constexpr double kF64Bound = 0.5 + 0x1p-9;

TEST(OwnedMathAccuracy, SampledF32IsCorrectlyRounded) {
  EXPECT_EQ(testing::SweepAgainstMpfr<float>(MathFn::kExp, ExpF32Cr, kSweepPoints, 201, 0.5).over_bound, 0u);
  EXPECT_EQ(testing::SweepAgainstMpfr<float>(MathFn::kLog, LogF32Cr, kSweepPoints, 202, 0.5).over_bound, 0u);
  EXPECT_EQ(testing::SweepAgainstMpfr<float>(MathFn::kLog1p, Log1pF32Cr, kSweepPoints, 203, 0.5).over_bound, 0u);
}

TEST(OwnedMathAccuracy, SampledF64IsWithinBound) {
  EXPECT_EQ(testing::SweepAgainstMpfr<double>(MathFn::kExp, ExpF64Dd, kSweepPoints, 204, kF64Bound).over_bound, 0u);
  EXPECT_EQ(testing::SweepAgainstMpfr<double>(MathFn::kLog, LogF64Dd, kSweepPoints, 205, kF64Bound).over_bound, 0u);
  EXPECT_EQ(testing::SweepAgainstMpfr<double>(MathFn::kLog1p, Log1pF64Dd, kSweepPoints, 206, kF64Bound).over_bound, 0u);
}

double LibmF64(MathFn fn, double x) {
  switch (fn) {
    case MathFn::kExp: return std::exp(x);
    case MathFn::kLog: return std::log(x);
    case MathFn::kLog1p: return std::log1p(x);
  }
  return 0.0;
}

// Binary32 ulp at |v|: 2^(E - 23) for 2^E <= |v| < 2^(E+1), at least 2^-149.
double UlpF32(double v) {
  int e = 0;
  std::frexp(v, &e);  // |v| in [2^(e-1), 2^e)
  return std::ldexp(1.0, std::max(e - 1, -126) - 23);
}

struct ExhaustiveResult {
  std::uint64_t mismatches = 0;
  std::uint64_t mpfr_calls = 0;
  double max_ulp = 0.0;
  std::uint32_t worst_bits = 0;
  std::vector<std::uint32_t> first_mismatches;
  std::uint64_t fast_domain = 0;     // inputs the fast path may answer
  std::uint64_t fast_fallbacks = 0;  // of those, declined by its rounding test
};

// The fast path's domain per the headers' contracts (exp.h, log.h, log1p.h): outside it the
// fast path always defers to the double-double path (special values, overflow, underflow to 0).
bool InFastDomain(MathFn fn, float x) {
  switch (fn) {
    case MathFn::kExp: return x >= -0x1.ap6f && x <= 0x1.63p6f;
    case MathFn::kLog: return x > 0.0f && x < HUGE_VALF;
    case MathFn::kLog1p: return x > -1.0f && x < HUGE_VALF;
  }
  return false;
}

// Correctly rounded binary32 fn(x) per the oracle rule in the file comment.
float ExpectedF32(MathFn fn, float x, MpfrOracle& oracle, ExhaustiveResult& r, double* approx) {
  const double d = LibmF64(fn, static_cast<double>(x));
  *approx = d;
  const float f = static_cast<float>(d);
  if (!std::isfinite(d) || d == 0.0) return f;  // exact special results (inf, 0, NaN)
  const double below = 0.5 * (static_cast<double>(f) + static_cast<double>(std::nextafter(f, -HUGE_VALF)));
  const double above = 0.5 * (static_cast<double>(f) + static_cast<double>(std::nextafter(f, HUGE_VALF)));
  const double margin = 0x1p-40 * std::fabs(d);
  if (std::fabs(d - below) > margin && std::fabs(d - above) > margin) return f;
  ++r.mpfr_calls;
  return oracle.CorrectlyRoundedF32(fn, x);
}

template <typename F, typename Fast>
ExhaustiveResult SweepRange(MathFn fn, F f, Fast fast, std::uint64_t begin, std::uint64_t end) {
  MpfrOracle oracle;
  ExhaustiveResult r;
  for (std::uint64_t b = begin; b < end; ++b) {
    const std::uint32_t bits = static_cast<std::uint32_t>(b);
    const float x = F32FromBits(bits);
    const float y = f(x);
    if (InFastDomain(fn, x)) {
      ++r.fast_domain;
      float unused;
      if (!fast(x, &unused)) ++r.fast_fallbacks;
    }
    float expected;
    double approx = 0.0;
    if (x != x) {
      expected = QuietF32(x);  // contract: the input NaN, quieted
    } else if ((fn == MathFn::kLog && x < 0.0f) || (fn == MathFn::kLog1p && x < -1.0f)) {
      expected = F32FromBits(kF32DefaultNaNBits);
    } else {
      expected = ExpectedF32(fn, x, oracle, r, &approx);
    }
    if (F32Bits(y) != F32Bits(expected)) {
      if (r.mismatches++ < 10) r.first_mismatches.push_back(bits);
      continue;
    }
    if (std::isfinite(y) && std::isfinite(approx) && x == x) {
      const double err = std::fabs(static_cast<double>(y) - approx) / UlpF32(approx);
      if (err > r.max_ulp) {
        r.max_ulp = err;
        r.worst_bits = bits;
      }
    }
  }
  return r;
}

template <typename F, typename Fast>
void RunExhaustive(MathFn fn, F f, Fast fast) {
  const auto start = std::chrono::steady_clock::now();
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t total = std::uint64_t{1} << 32;
  std::vector<ExhaustiveResult> parts(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      parts[t] = SweepRange(fn, f, fast, total * t / threads, total * (t + 1) / threads);
    });
  }
  for (std::thread& th : pool) th.join();
  ExhaustiveResult all;
  for (const ExhaustiveResult& p : parts) {  // thread order: deterministic report
    all.mismatches += p.mismatches;
    all.mpfr_calls += p.mpfr_calls;
    all.fast_domain += p.fast_domain;
    all.fast_fallbacks += p.fast_fallbacks;
    if (p.max_ulp > all.max_ulp) {
      all.max_ulp = p.max_ulp;
      all.worst_bits = p.worst_bits;
    }
    for (std::uint32_t b : p.first_mismatches) {
      if (all.first_mismatches.size() < 10) all.first_mismatches.push_back(b);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MpfrOracle oracle;
  for (std::uint32_t b : all.first_mismatches) {
    const float x = F32FromBits(b);
    ADD_FAILURE() << testing::MathFnName(fn) << "(" << HexF32(x) << ") = " << HexF32(f(x))
                  << ", correctly rounded " << HexF32(oracle.CorrectlyRoundedF32(fn, x));
  }
  std::printf("[ exhaustive ] %s f32: 2^32 inputs, %llu mismatches, %llu MPFR fallbacks, "
              "max error %.9f ulp at x = %s, %.1f s on %u threads; fast path fell back on "
              "%llu of %llu in-domain inputs\n",
              testing::MathFnName(fn), static_cast<unsigned long long>(all.mismatches),
              static_cast<unsigned long long>(all.mpfr_calls), all.max_ulp,
              HexF32(F32FromBits(all.worst_bits)).c_str(), seconds, threads,
              static_cast<unsigned long long>(all.fast_fallbacks),
              static_cast<unsigned long long>(all.fast_domain));
  EXPECT_EQ(all.mismatches, 0u);
}

TEST(OwnedMathAccuracy, ExhaustiveF32Exp) { RunExhaustive(MathFn::kExp, ExpF32Cr, detail::ExpF32Fast); }
// ExpF32CrArray (reference/math/exp_array.h) against the scalar ExpF32Cr, the oracle it must
// reproduce bit for bit, on every binary32 input (shift 0) and on every path the host can run
// (portable, AVX2, AVX-512F). Chunks of 2^16 consecutive bit patterns, so every NaN payload,
// both infinities, the subnormals and the fast path's undecided inputs are all covered.
TEST(OwnedMathAccuracy, ExhaustiveF32ArrayMatchesScalar) {
  const ExpIsa host = ExpF32CrArrayIsa();
  std::vector<ExpIsa> paths = {ExpIsa::kPortable};
  if (host != ExpIsa::kPortable) paths.push_back(ExpIsa::kAvx2);
  if (host == ExpIsa::kAvx512) paths.push_back(ExpIsa::kAvx512);
  std::printf("ExpF32CrArray paths checked: %zu (host: %s)\n", paths.size(), ExpIsaName(host));
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  constexpr std::uint64_t kChunk = 1u << 16;
  constexpr std::uint64_t kChunks = (std::uint64_t{1} << 32) / kChunk;
  std::vector<std::uint64_t> mismatches(threads, 0);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::vector<float> x(kChunk), want(kChunk), got(kChunk);
      for (std::uint64_t c = t; c < kChunks; c += threads) {
        for (std::uint64_t i = 0; i < kChunk; ++i) {
          x[i] = F32FromBits(static_cast<std::uint32_t>(c * kChunk + i));
          want[i] = ExpF32Cr(x[i]);
        }
        for (ExpIsa isa : paths) {
          ExpF32CrArrayWith(isa, x.data(), kChunk, 0.0f, got.data());
          for (std::uint64_t i = 0; i < kChunk; ++i) mismatches[t] += F32Bits(got[i]) != F32Bits(want[i]);
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  std::uint64_t total = 0;
  for (std::uint64_t m : mismatches) total += m;
  EXPECT_EQ(total, 0u);
}

TEST(OwnedMathAccuracy, ExhaustiveF32Log) { RunExhaustive(MathFn::kLog, LogF32Cr, detail::LogF32Fast); }
TEST(OwnedMathAccuracy, ExhaustiveF32Log1p) {
  RunExhaustive(MathFn::kLog1p, Log1pF32Cr, detail::Log1pF32Fast);
}

}  // namespace
}  // namespace sampcheck::math
