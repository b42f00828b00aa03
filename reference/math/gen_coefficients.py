#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates the polynomial coefficients of reference/math/{exp,log}.h.

Regenerate with:  /usr/bin/python3 reference/math/gen_coefficients.py
(--fast prints only the fast-path block, the last part of the output, in a few seconds)
(needs mpmath only; output is the C++ constant block pasted into the headers, and the
measured approximation errors quoted in docs/spec/math.md).

Method: Chebyshev interpolation (mpmath.chebyfit, near-minimax: within a small factor of
the Remez optimum) of the *tail* functions below, computed at 60 significant digits from
their Taylor series (no cancellation near 0), coefficients rounded to nearest double, and
the error of the *rounded* polynomial measured at 20001 equispaced points plus the
Chebyshev extrema at 60 digits.

exp:  exp(r) = 1 + r + r^2/2 + r^3/6 + r^4/24 + r^5 * Q(r),  Q(r) = sum_j r^j / (j+5)!
      on |r| <= 0.35 (covers |r| <= ln2/2 + 2^-40 left by the reduction).
log:  log((1+s)/(1-s)) = 2 s + s^3 * (2/3 + z * P1(z)),  z = s^2,
      P1(z) = sum_j 2 z^j / (2j + 5),  on 0 <= z <= 0.0295 (|s| <= 3 - 2 sqrt 2 = 0.17157..,
      z <= 0.029437..).
"""
import mpmath
from mpmath import mp, mpf

mp.dps = 60

R_EXP = mpf("0.35")
Z_LOG = mpf("0.0295")


def q_exp(r):
    return mpmath.fsum(r**j / mpmath.factorial(j + 5) for j in range(60))


def p1_log(z):
    return mpmath.fsum(2 * z**j / (2 * j + 5) for j in range(80))


def fit(f, a, b, n):
    """Degree n-1 Chebyshev fit; returns coefficients rounded to double, lowest degree first."""
    coeffs, _ = mpmath.chebyfit(f, [a, b], n, error=True)
    return [float(c) for c in reversed(coeffs)]


def max_err(f, coeffs, a, b):
    """Max |f - p| of the double-coefficient polynomial, evaluated exactly in mpmath."""
    pts = [a + (b - a) * mpf(i) / 20000 for i in range(20001)]
    n = len(coeffs)
    pts += [(a + b) / 2 + (b - a) / 2 * mpmath.cos(mpmath.pi * i / (n + 1)) for i in range(n + 2)]
    worst = mpf(0)
    for x in pts:
        p = mpf(0)
        for c in reversed(coeffs):
            p = p * x + mpf(c)
        worst = max(worst, abs(f(x) - p))
    return worst


def dd(value):
    hi = float(value)
    lo = float(value - mpf(hi))
    return hi, lo


def main():
    print("// exp: Q(r) on [-0.35, 0.35], Chebyshev fit, degree, max abs error of rounded poly")
    for n in range(8, 13):
        c = fit(q_exp, -R_EXP, R_EXP, n)
        e = max_err(q_exp, c, -R_EXP, R_EXP)
        print(f"//   degree {n - 1}: max |Q - q| = 2^{float(mpmath.log(e, 2)):.2f}")
    n = 10  # degree 9: first with max |Q - q| < 2^-60 (see table above)
    c = fit(q_exp, -R_EXP, R_EXP, n)
    print(f"// chosen degree {n - 1}: error 2^{float(mpmath.log(max_err(q_exp, c, -R_EXP, R_EXP), 2)):.2f}")
    print("inline constexpr double kExpTail[] = {")
    for i, v in enumerate(c):
        print(f"    {v.hex()},  // r^{i} (Taylor: 1/{mpmath.factorial(i + 5)})")
    print("};")
    for k in (2, 6, 24):
        hi, lo = dd(mpf(1) / k)
        print(f"// 1/{k} as double-double: {{{hi.hex()}, {lo.hex()}}}")

    print("// log: P1(z) on [0, 0.0295], Chebyshev fit")
    for n in range(5, 10):
        c = fit(p1_log, 0, Z_LOG, n)
        e = max_err(p1_log, c, mpf(0), Z_LOG)
        print(f"//   degree {n - 1}: max |P1 - p| = 2^{float(mpmath.log(e, 2)):.2f}")
    n = 8  # degree 7: first with max |P1 - p| < 2^-56
    c = fit(p1_log, 0, Z_LOG, n)
    print(f"// chosen degree {n - 1}: error 2^{float(mpmath.log(max_err(p1_log, c, mpf(0), Z_LOG), 2)):.2f}")
    print("inline constexpr double kLogTail[] = {")
    for i, v in enumerate(c):
        print(f"    {v.hex()},  // z^{i} (Taylor: 2/{2 * i + 5})")
    print("};")
    hi, lo = dd(mpf(2) / 3)
    print(f"// 2/3 as double-double: {{{hi.hex()}, {lo.hex()}}}")
    ln2 = mpmath.log(2)
    # ln2 = kLn2Hi + kLn2Mid + (< 2^-95): kLn2Hi keeps 42 significant bits so that
    # k * kLn2Hi is exact for |k| < 2^11.
    hi = float(mpmath.floor(ln2 * 2**42) / 2**42)
    mid = float(ln2 - mpf(hi))
    rest = ln2 - mpf(hi) - mpf(mid)
    print(f"// ln2 = {hi.hex()} + {mid.hex()} + {float(rest):.3e}")
    print(f"// 1/ln2 = {float(1 / ln2).hex()}")
    print(f"// sqrt2 = {float(mpmath.sqrt(2)).hex()}")


def q_exp_fast(r):
    return mpmath.fsum(r**j / mpmath.factorial(j + 2) for j in range(60))


def r_log_fast(z):
    return mpmath.fsum(2 * z**j / (2 * j + 3) for j in range(80))


def abs_poly(coeffs, x):
    """sum |c_i| |x|^i (the Horner rounding-error weight)."""
    return sum(abs(mpf(c)) * abs(x) ** i for i, c in enumerate(coeffs))


def fast():
    """Fast-path (plain double, no fma) polynomials of ExpF32Cr / LogF32Cr / Log1pF32Cr."""
    print("// fast exp: q(r) = (exp(r) - 1 - r) / r^2 on [-0.35, 0.35]; exp(r) = 1 + r + r^2 q(r)")
    for n in range(8, 12):
        c = fit(q_exp_fast, -R_EXP, R_EXP, n)
        e = max_err(q_exp_fast, c, -R_EXP, R_EXP)
        # error of exp(r): r^2 |q - p| relative to exp(r) >= exp(-0.35)
        rel = e * R_EXP**2 / mpmath.exp(-R_EXP)
        print(f"//   degree {n - 1}: max |q - p| = 2^{float(mpmath.log(e, 2)):.2f},"
              f" relative on exp(r) <= 2^{float(mpmath.log(rel, 2)):.2f}")
    n = 10
    c = fit(q_exp_fast, -R_EXP, R_EXP, n)
    print(f"// chosen degree {n - 1}; sum|c_i| 0.35^i = {float(abs_poly(c, R_EXP)):.6f},"
          f" min q on the interval = {float(q_exp_fast(-R_EXP)):.6f}")
    print("inline constexpr double kExpFastTail[] = {")
    for i, v in enumerate(c):
        print(f"    {v.hex()},  // r^{i} (Taylor: 1/{mpmath.factorial(i + 2)})")
    print("};")
    print("// fast log: R(z) = sum 2 z^j / (2j + 3) on [0, 0.0295]; 2 atanh(s) = 2 s + s^3 R(s^2)")
    for n in range(5, 9):
        c = fit(r_log_fast, 0, Z_LOG, n)
        e = max_err(r_log_fast, c, mpf(0), Z_LOG)
        # error of 2 atanh(s): s^3 |R - p| relative to 2 atanh(s) >= 2 s: <= z/2 |R - p|
        rel = e * Z_LOG / 2
        print(f"//   degree {n - 1}: max |R - p| = 2^{float(mpmath.log(e, 2)):.2f},"
              f" relative on log(m) <= 2^{float(mpmath.log(rel, 2)):.2f}")
    n = 7
    c = fit(r_log_fast, 0, Z_LOG, n)
    print(f"// chosen degree {n - 1}; sum|c_i| 0.0295^i = {float(abs_poly(c, Z_LOG)):.6f}, R(0) = 2/3")
    print("inline constexpr double kLogFastTail[] = {")
    for i, v in enumerate(c):
        print(f"    {v.hex()},  // z^{i} (Taylor: 2/{2 * i + 3})")
    print("};")
    print(f"// ln2 nearest double: {float(mpmath.log(2)).hex()}")


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["--fast"]:
        fast()
    else:
        main()
        fast()
