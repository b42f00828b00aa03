// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test-only MPFR oracle for reference/math (exp, log, log1p): correctly rounded binary32 and
// binary64 values, ulp errors, and the sampled input families used by the accuracy sweeps.
//
// Oracle: MPFR (Debian libmpfr-dev) evaluates f(x) at kOraclePrecision = 200 bits, correctly
// rounded (MPFR's contract). The binary32/binary64 reference is that value rounded once more
// by mpfr_get_flt / mpfr_get_d (RNDN, which handle subnormals and overflow): a double rounding
// that could only differ from a single one if f(x) were within 2^-200 relative of a midpoint;
// exp, log and log1p at a nonzero float/double argument are transcendental, and the exact
// cases (exp(0) = 1, log(1) = 0, log1p(0) = 0) are exact at every precision.
//
// Ulp error of y against v = f(x): |y - v| / ulp(v), ulp(v) = 2^(E - p + 1) for
// 2^E <= |v| < 2^(E+1), never below the smallest subnormal (2^-149, 2^-1074); computed in MPFR.
// Infinite or NaN results count 0 if they equal the correctly rounded reference (class and
// sign for NaN, sign for zero and inf), else +inf.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include <mpfr.h>

#include "core/split_mix64.h"

namespace sampcheck::testing {

enum class MathFn { kExp, kLog, kLog1p };

inline const char* MathFnName(MathFn fn) {
  switch (fn) {
    case MathFn::kExp: return "exp";
    case MathFn::kLog: return "log";
    case MathFn::kLog1p: return "log1p";
  }
  return "?";
}

inline constexpr mpfr_prec_t kOraclePrecision = 200;

// One per thread: owns two MPFR scratch values.
class MpfrOracle {
 public:
  MpfrOracle() {
    mpfr_init2(v_, kOraclePrecision);
    mpfr_init2(t_, kOraclePrecision);
  }
  ~MpfrOracle() {
    mpfr_clear(v_);
    mpfr_clear(t_);
  }
  MpfrOracle(const MpfrOracle&) = delete;
  MpfrOracle& operator=(const MpfrOracle&) = delete;

  // v_ = fn(x) at 200 bits. x converted exactly (x has <= 53 bits).
  void Evaluate(MathFn fn, double x) {
    mpfr_set_d(t_, x, MPFR_RNDN);
    switch (fn) {
      case MathFn::kExp: mpfr_exp(v_, t_, MPFR_RNDN); break;
      case MathFn::kLog: mpfr_log(v_, t_, MPFR_RNDN); break;
      case MathFn::kLog1p: mpfr_log1p(v_, t_, MPFR_RNDN); break;
    }
  }

  float CorrectlyRoundedF32(MathFn fn, float x) {
    Evaluate(fn, x);
    return mpfr_get_flt(v_, MPFR_RNDN);
  }
  double CorrectlyRoundedF64(MathFn fn, double x) {
    Evaluate(fn, x);
    return mpfr_get_d(v_, MPFR_RNDN);
  }

  // Ulp error of y (binary32 when kIsFloat, else binary64) as an approximation of fn(x).
  template <typename T>
  double UlpError(MathFn fn, T x, T y) {
    Evaluate(fn, static_cast<double>(x));
    constexpr bool kIsFloat = sizeof(T) == 4;
    const T cr = kIsFloat ? static_cast<T>(mpfr_get_flt(v_, MPFR_RNDN))
                          : static_cast<T>(mpfr_get_d(v_, MPFR_RNDN));
    const double kInf = std::numeric_limits<double>::infinity();
    if (std::isnan(y) || std::isnan(cr)) return (std::isnan(y) && std::isnan(cr)) ? 0.0 : kInf;
    if (std::isinf(y) || std::isinf(cr) || y == 0 || cr == 0) {
      if (y == cr && std::signbit(y) == std::signbit(cr)) return 0.0;
      if (std::isinf(y) || std::isinf(cr)) return kInf;
      if (y == 0 && cr == 0) return kInf;  // wrong sign of zero
    }
    constexpr int kDigits = std::numeric_limits<T>::digits;       // 24 or 53
    constexpr int kMinExp = std::numeric_limits<T>::min_exponent;  // -125 or -1021
    // mpfr_get_exp: v = m 2^E' with 0.5 <= |m| < 1, so |v| in [2^(E'-1), 2^E').
    long e = mpfr_zero_p(v_) ? kMinExp - 1 : static_cast<long>(mpfr_get_exp(v_)) - 1;
    if (e < kMinExp - 1) e = kMinExp - 1;
    mpfr_set_d(t_, static_cast<double>(y), MPFR_RNDN);
    mpfr_sub(t_, t_, v_, MPFR_RNDN);
    mpfr_abs(t_, t_, MPFR_RNDN);
    mpfr_mul_2si(t_, t_, -(e - kDigits + 1), MPFR_RNDN);
    return mpfr_get_d(t_, MPFR_RNDU);
  }

  mpfr_t& value() { return v_; }

 private:
  mpfr_t v_;
  mpfr_t t_;
};

using sampcheck::SplitMix64;  // fixed, platform-independent test-input bits

// Uniform double in [0, 1) with 53 random bits.
inline double Unit(SplitMix64& rng) { return static_cast<double>(rng.Next() >> 11) * 0x1p-53; }

inline std::string HexF32(float x) {
  char buf[96];
  std::uint32_t b;
  static_assert(sizeof b == sizeof x);
  __builtin_memcpy(&b, &x, sizeof b);
  std::snprintf(buf, sizeof buf, "%a (%.9g, 0x%08x)", static_cast<double>(x), static_cast<double>(x), b);
  return buf;
}
inline std::string HexF64(double x) {
  char buf[96];
  std::uint64_t b;
  static_assert(sizeof b == sizeof x);
  __builtin_memcpy(&b, &x, sizeof b);
  std::snprintf(buf, sizeof buf, "%a (%.17g, 0x%016llx)", x, x, static_cast<unsigned long long>(b));
  return buf;
}

// Input families for the sampled sweeps, chosen by index i % 4 (the same for both formats;
// T = float or double):
//   0: uniform random bit patterns, rejected until finite and inside the domain (exp:
//      |x| < 750 / 110 or any bits below; log: sign cleared; log1p: x >= -1);
//   1: uniform real over the non-trivial range (exp: [lo, hi] bracketing both thresholds) or
//      log-uniform magnitude (log, log1p: 2^u, u uniform over the exponent range);
//   2: dense near the critical points: exp near 0; log near 1 (1 +- 2^-k (1 + u)) and among
//      subnormals; log1p near 0 and near -1 (-1 + 2^-k (1 + u));
//   3: within +-2^20 ulps (bit-pattern offsets) of a threshold: exp overflow / underflow /
//      1 ulp of 0; log: 1, the smallest normal; log1p: 0, -1.
template <typename T>
T SampleInput(MathFn fn, SplitMix64& rng, std::uint64_t i) {
  constexpr bool kIsFloat = sizeof(T) == 4;
  constexpr int kMinSub = kIsFloat ? -149 : -1074;
  constexpr int kMaxExp = kIsFloat ? 128 : 1024;
  const T exp_hi = kIsFloat ? T(89.0) : T(710.0);
  const T exp_lo = kIsFloat ? T(-104.0) : T(-746.0);
  auto from_bits = [](std::uint64_t b) {
    if constexpr (kIsFloat) {
      return __builtin_bit_cast(float, static_cast<std::uint32_t>(b));
    } else {
      return __builtin_bit_cast(double, b);
    }
  };
  auto to_bits = [](T x) -> std::int64_t {
    if constexpr (kIsFloat) {
      return __builtin_bit_cast(std::uint32_t, x);
    } else {
      return static_cast<std::int64_t>(__builtin_bit_cast(std::uint64_t, x));
    }
  };
  auto log_uniform = [&](int lo_exp, int hi_exp) {
    const double u = lo_exp + (hi_exp - lo_exp) * Unit(rng);
    return static_cast<T>(std::exp2(u));
  };
  auto near = [&](T center) {
    const std::int64_t off = static_cast<std::int64_t>(rng.Next() % (2u << 20)) - (1 << 20);
    std::int64_t b = to_bits(center);
    // Offsets are applied to the magnitude bits; a zero center walks into both signs.
    if (center == T(0)) return off < 0 ? -from_bits(static_cast<std::uint64_t>(-off)) : from_bits(off);
    b += off;
    return from_bits(static_cast<std::uint64_t>(b));
  };
  const double u = Unit(rng);
  const bool neg = (rng.Next() & 1) != 0;
  switch (i % 4) {
    case 0:
      for (;;) {
        T x = from_bits(rng.Next());
        if (!std::isfinite(x)) continue;
        if (fn == MathFn::kExp) {
          if (std::fabs(x) < T(kIsFloat ? 110 : 750)) return x;
        } else if (fn == MathFn::kLog) {
          return std::fabs(x);
        } else if (x >= T(-1)) {
          return x;
        }
      }
    case 1:
      if (fn == MathFn::kExp) return static_cast<T>(exp_lo + (exp_hi - exp_lo) * u);
      if (fn == MathFn::kLog) return log_uniform(kMinSub, kMaxExp);
      return neg ? -log_uniform(kMinSub, 0) : log_uniform(kMinSub, kMaxExp);
    case 2: {
      const int k = static_cast<int>(rng.Next() % (kIsFloat ? 64 : 120));
      const T small = static_cast<T>(std::ldexp(1.0 + u, -k));
      if (fn == MathFn::kExp) return neg ? -small : small;
      if (fn == MathFn::kLog) {
        if (rng.Next() % 4 == 0) return from_bits(rng.Next() % (kIsFloat ? (1u << 23) : (1ull << 52)));
        return neg ? T(1) - small / 2 : T(1) + small;
      }
      if (neg) return (k == 0) ? -small / 2 : (rng.Next() & 1 ? -small : T(-1) + small / 2);
      return small;
    }
    default: {
      const std::uint64_t pick = rng.Next() % 3;
      if (fn == MathFn::kExp) {
        // log(max finite), log(min subnormal / 2), 0.
        const T overflow = kIsFloat ? T(88.72283935546875) : T(709.782712893384);
        const T underflow = kIsFloat ? T(-103.972077083991796) : T(-745.133219101941108);
        return near(pick == 0 ? overflow : pick == 1 ? underflow : T(0));
      }
      if (fn == MathFn::kLog) {
        const T x = near(pick == 0 ? T(1) : std::numeric_limits<T>::min());
        return std::fabs(x);
      }
      const T x = near(pick == 0 ? T(-1) : T(0));
      return x < T(-1) ? T(-1) : x;
    }
  }
}

template <typename T>
struct SweepResult {
  double max_ulp = 0.0;
  T worst_input = 0;
  std::uint64_t points = 0;
  std::uint64_t over_bound = 0;
};

// Evaluates f on n sampled inputs against MPFR; prints the first `report` inputs whose error
// exceeds `bound` and a summary line with the maximum and the worst input in hex.
template <typename T, typename F>
SweepResult<T> SweepAgainstMpfr(MathFn fn, F f, std::uint64_t n, std::uint64_t seed, double bound,
                                int report = 10) {
  MpfrOracle oracle;
  SplitMix64 rng(seed);
  SweepResult<T> r;
  for (std::uint64_t i = 0; i < n; ++i) {
    const T x = SampleInput<T>(fn, rng, i);
    const T y = f(x);
    const double err = oracle.UlpError<T>(fn, x, y);
    ++r.points;
    if (err > r.max_ulp || (err == r.max_ulp && i == 0)) {
      r.max_ulp = err;
      r.worst_input = x;
    }
    if (err > bound && r.over_bound++ < static_cast<std::uint64_t>(report)) {
      const std::string xs = sizeof(T) == 4 ? HexF32(static_cast<float>(x)) : HexF64(static_cast<double>(x));
      const std::string ys = sizeof(T) == 4 ? HexF32(static_cast<float>(y)) : HexF64(static_cast<double>(y));
      std::printf("  %s(%s) = %s: %.6f ulp > %.6f\n", MathFnName(fn), xs.c_str(), ys.c_str(), err, bound);
    }
  }
  const std::string ws = sizeof(T) == 4 ? HexF32(static_cast<float>(r.worst_input))
                                        : HexF64(static_cast<double>(r.worst_input));
  std::printf("[ sweep ] %s %s: %llu points (seed %llu), max error %.12f ulp at x = %s; %llu over %.6f\n",
              MathFnName(fn), sizeof(T) == 4 ? "f32" : "f64", static_cast<unsigned long long>(r.points),
              static_cast<unsigned long long>(seed), r.max_ulp, ws.c_str(),
              static_cast<unsigned long long>(r.over_bound), bound);
  return r;
}

}  // namespace sampcheck::testing
