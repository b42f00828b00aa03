#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Reference values for tests/statistical_*_test.cc, computed with mpmath from textbook formulas.

Independent of the code under test (statistical/, Boost.Math): every value here is a direct
evaluation at 60 significant digits of
  - chi-square survival Q(df/2, x/2) = mpmath.gammainc(df/2, x/2, inf, regularized=True);
  - exact binomial and Poisson sums (binomial coefficients and factorials in mpmath);
  - R's binom.test / poisson.test two-sided rule (sum of masses <= d (1 + 1e-7)), by brute force;
  - Clopper-Pearson / Garwood limits by bisection (400 halvings) on exact tails;
  - the noncentral chi-square CDF by its Poisson-mixture series
      P(X <= x) = sum_j e^{-l/2} (l/2)^j / j! P((df + 2j)/2, x/2);
  - Kolmogorov's limiting law P(K > t) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 t^2).
Run:  /usr/bin/python3 tests/python/statistical_reference_values.py
and paste the printed lines into the tests (they print as C++ initialisers). Takes ~2 minutes.
"""
import itertools
import math

import mpmath as mp

mp.mp.dps = 60
INF = mp.inf


def chi2_sf(x, df):
    return mp.gammainc(mp.mpf(df) / 2, mp.mpf(x) / 2, INF, regularized=True)


def chi2_cdf(x, df):
    return mp.gammainc(mp.mpf(df) / 2, 0, mp.mpf(x) / 2, regularized=True)


def bisect(f, lo, hi, iters=400):
    """Root of an increasing-or-decreasing f on [lo, hi] with a sign change."""
    flo = f(lo)
    for _ in range(iters):
        mid = (lo + hi) / 2
        fm = f(mid)
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return (lo + hi) / 2


def chi2_upper_quantile(df, alpha):
    return bisect(lambda x: chi2_sf(x, df) - alpha, mp.mpf(0), mp.mpf(df) * 10 + 200)


def power_divergence(obs, exp, lam):
    obs = [mp.mpf(o) for o in obs]
    exp = [mp.mpf(e) for e in exp]
    if lam == 0:
        return 2 * sum(o * mp.log(o / e) for o, e in zip(obs, exp) if o > 0)
    if lam == 1:
        return sum((o - e) ** 2 / e for o, e in zip(obs, exp))
    lam = mp.mpf(lam)
    return 2 / (lam * (lam + 1)) * sum(o * ((o / e) ** lam - 1) for o, e in zip(obs, exp))


def binom_pmf(k, n, p):
    p = mp.mpf(p)
    return mp.binomial(n, k) * p**k * (1 - p) ** (n - k)


def binom_cdf(k, n, p):  # P(X <= k)
    return mp.fsum(binom_pmf(i, n, p) for i in range(0, k + 1))


def binom_sf_ge(k, n, p):  # P(X >= k)
    return mp.fsum(binom_pmf(i, n, p) for i in range(k, n + 1))


def binom_two_sided(k, n, p):
    d = binom_pmf(k, n, p)
    # R compares in double precision with relErr 1 + 1e-7; with exact masses the same set.
    return min(mp.mpf(1), mp.fsum(binom_pmf(i, n, p) for i in range(n + 1)
                                  if binom_pmf(i, n, p) <= d * (1 + mp.mpf('1e-7'))))


def clopper_pearson(k, n, level):
    a = (1 - mp.mpf(level)) / 2
    lo = mp.mpf(0) if k == 0 else bisect(lambda q: binom_sf_ge(k, n, q) - a, mp.mpf(0), mp.mpf(1))
    hi = mp.mpf(1) if k == n else bisect(lambda q: binom_cdf(k, n, q) - a, mp.mpf(0), mp.mpf(1))
    return lo, hi


def pois_pmf(k, mu):
    mu = mp.mpf(mu)
    return mp.exp(-mu) * mu**k / mp.factorial(k)


def pois_cdf(k, mu):
    return mp.fsum(pois_pmf(i, mu) for i in range(0, k + 1))


def pois_sf_ge(k, mu):
    return 1 - pois_cdf(k - 1, mu) if k > 0 else mp.mpf(1)


def pois_two_sided(k, mu):
    d = pois_pmf(k, mu)
    top = int(mu * 20 + k * 2 + 100)  # masses beyond are < 1e-60 relative for these cases
    return min(mp.mpf(1), mp.fsum(pois_pmf(i, mu) for i in range(top)
                                  if pois_pmf(i, mu) <= d * (1 + mp.mpf('1e-7'))))


def garwood(k, level):
    a = (1 - mp.mpf(level)) / 2
    lo = mp.mpf(0) if k == 0 else bisect(lambda m: pois_sf_ge(k, m) - a, mp.mpf(0), mp.mpf(k + 100))
    hi = bisect(lambda m: pois_cdf(k, m) - a, mp.mpf(0), mp.mpf(k + 100))
    return lo, hi


def ncx2_cdf(x, df, lam):
    x, df, lam = mp.mpf(x), mp.mpf(df), mp.mpf(lam)
    h = lam / 2
    jmax = int(h + 40 * mp.sqrt(h + 1) + 200)
    return mp.fsum(mp.exp(-h) * h**j / mp.factorial(j) * chi2_cdf(x, df + 2 * j) for j in range(jmax))


def ncx2_sf(x, df, lam):
    x, df, lam = mp.mpf(x), mp.mpf(df), mp.mpf(lam)
    h = lam / 2
    jmax = int(h + 40 * mp.sqrt(h + 1) + 200)
    return mp.fsum(mp.exp(-h) * h**j / mp.factorial(j) * chi2_sf(x, df + 2 * j) for j in range(jmax))


def ncp_interval(x, df, level):
    t = (1 - mp.mpf(level)) / 2
    def solve(target):
        if ncx2_cdf(x, df, 0) <= target:
            return mp.mpf(0)
        hi = mp.mpf(x) * 2 + 10
        return bisect(lambda l: ncx2_cdf(x, df, l) - target, mp.mpf(0), hi, iters=120)
    return solve(1 - t), solve(t)


def ks_sf(t):
    t = mp.mpf(t)
    return 2 * mp.nsum(lambda k: (-1) ** (k - 1) * mp.exp(-2 * k * k * t * t), [1, INF])


def g(x):
    return mp.nstr(x, 17, min_fixed=-3, max_fixed=3) if x != 0 else "0"


def out(name, *vals):
    print(f"{name} = {{{', '.join(g(v) for v in vals)}}};")


def main():
    print("// chi-square survival (x, df) -> Q")
    for x, df in [(3.841458820694124, 1), (0.2, 3), (30, 10), (100, 50), (200, 100), (1500, 999)]:
        out(f"chi2_sf({x}, {df})", chi2_sf(x, df))
    print("// upper quantiles (df, alpha)")
    for df, alpha in [(1, 0.05), (999, 1e-6), (3, 1e-6)]:
        out(f"chi2_q({df}, {alpha})", chi2_upper_quantile(df, mp.mpf(alpha)))

    print("// goodness of fit: statistic, p for lambda = 1, 0, 2/3")
    tables = {
        # n = 100, all E >= 10: no pooling.
        "gof_a": ([18, 22, 20, 40], [20, 20, 20, 40]),
        # p = {.5,.3,.1,.06,.03,.01}, counts {48,35,8,5,3,1}, n = 100, E_min 5: E = 50,30,10,6,3,1;
        # tokens 4, 5 pool to E = 4 < 5, no pool closed -> merged into the smallest single bin {3}:
        # bins O = {48, 35, 8, 9}, E = {50, 30, 10, 10}.  (E_min 10 for Pearson: same bins.)
        "gof_b": ([48, 35, 8, 9], [50, 30, 10, 10]),
        # n = 1000, p = {.5, .3, .2}: a clear misfit.
        "gof_c": ([600, 250, 150], [500, 300, 200]),
    }
    for name, (obs, exp) in tables.items():
        for lam, lname in [(1, "pearson"), (0, "g"), (mp.mpf(2) / 3, "cr")]:
            s = power_divergence(obs, exp, lam)
            out(f"{name}_{lname}", s, chi2_sf(s, len(obs) - 1))
    s = power_divergence(*tables["gof_c"], mp.mpf(2) / 3)
    lo, hi = ncp_interval(s, 2, 0.95)
    out("gof_c_cr_ncp_interval_95 (divide by n = 1000 for D)", lo, hi)

    print("// homogeneity: a = {30, 70}, b = {70, 30}; a = {40, 25, 35}, b = {60, 20, 20}")
    for a, b in [([30, 70], [70, 30]), ([40, 25, 35], [60, 20, 20])]:
        na, nb = sum(a), sum(b)
        n = na + nb
        obs = a + b
        exp = [mp.mpf(na) * (x + y) / n for x, y in zip(a, b)] + [mp.mpf(nb) * (x + y) / n for x, y in zip(a, b)]
        for lam, lname in [(1, "pearson"), (0, "g"), (mp.mpf(2) / 3, "cr")]:
            s = power_divergence(obs, exp, lam)
            out(f"homog {a} {b} {lname}", s, chi2_sf(s, len(a) - 1))

    print("// binomial: (k, n, p0) -> two-sided, less, greater")
    for k, n, p0 in [(7, 20, 0.5), (3, 50, 0.2), (15, 100, 0.05), (0, 2757, 0.005), (12, 1000, 0.005),
                     (60, 100, 0.3)]:
        p0m = mp.mpf(p0)
        out(f"binom({k}, {n}, {p0})", binom_two_sided(k, n, p0m), binom_cdf(k, n, p0m), binom_sf_ge(k, n, p0m))
    print("// Clopper-Pearson 95% (k, n)")
    for k, n in [(5, 10), (0, 100), (51, 2757), (100, 100), (3, 50)]:
        out(f"cp({k}, {n})", *clopper_pearson(k, n, 0.95))
    print("// Clopper-Pearson one-sided 95% (lower for greater, upper for less), (k, n) = (3, 50)")
    a = mp.mpf('0.05')
    out("cp_one_sided(3, 50) lower, upper",
        bisect(lambda q: binom_sf_ge(3, 50, q) - a, mp.mpf(0), mp.mpf(1)),
        bisect(lambda q: binom_cdf(3, 50, q) - a, mp.mpf(0), mp.mpf(1)))

    print("// Poisson: (k, mu) -> two-sided, less, greater")
    for k, mu in [(3, 10), (20, 10), (25, 10.5), (2, 10), (0, 3), (1000, 900)]:
        mum = mp.mpf(mu)
        out(f"pois({k}, {mu})", pois_two_sided(k, mum), pois_cdf(k, mum), pois_sf_ge(k, mum))
    print("// Garwood 95% (k)")
    for k in [0, 3, 20]:
        out(f"garwood({k})", *garwood(k, 0.95))

    print("// noncentral chi-square survival (x, df, lambda)")
    for x, df, lam in [(23.928122668, 1, 1), (46.86, 10, 50), (1226.05, 999, 236), (30, 5, 10), (5, 3, 0.5)]:
        out(f"ncx2_sf({x}, {df}, {lam})", ncx2_sf(x, df, lam))
    print("// power: (df, lambda, alpha) -> P(X > c_alpha)")
    for df, lam, alpha in [(1, 30, 1e-6), (10, 100, 1e-6), (999, 236, 1e-6), (3, 20, 0.05)]:
        c = chi2_upper_quantile(df, mp.mpf(alpha))
        out(f"power({df}, {lam}, {alpha})", ncx2_sf(c, df, lam))

    print("// exact one-sided binomial power (n, p0, p1, alpha)")
    for n, p0, p1, alpha in [(1000, 0.005, 0.015, 1e-6), (2000, 0.01, 0.02, 1e-3), (500, 0.1, 0.05, 1e-2)]:
        p0m, p1m, am = mp.mpf(p0), mp.mpf(p1), mp.mpf(alpha)
        if p1 > p0:
            kc = next(k for k in range(n + 2) if binom_sf_ge(k, n, p0m) <= am)
            pw = binom_sf_ge(kc, n, p1m)
        else:
            kc = max(k for k in range(-1, n + 1) if k < 0 or binom_cdf(k, n, p0m) <= am)
            pw = binom_cdf(kc, n, p1m) if kc >= 0 else mp.mpf(0)
        out(f"binom_power({n}, {p0}, {p1}, {alpha}) critical k = {kc}", pw)

    print("// KS: u_i = 0.9 * ((i + 0.5) / n) + 0.1 (IEEE doubles as C++), n = 1000, law U(0,1)")
    n = 1000
    u = sorted(0.9 * ((i + 0.5) / n) + 0.1 for i in range(n))
    d = max(max(mp.mpf(i + 1) / n - mp.mpf(x), mp.mpf(x) - mp.mpf(i) / n) for i, x in enumerate(u))
    out("ks D, p", d, ks_sf(mp.sqrt(n) * d))
    out("ks_sf(t) at t = 1.0, 1.36, 2.0", ks_sf(1), ks_sf(mp.mpf('1.36')), ks_sf(2))

    print("// exact multinomial p for the Monte-Carlo test: p = {0.2, 0.3, 0.5}, counts {4, 1, 1}")
    probs = [mp.mpf(2) / 10, mp.mpf(3) / 10, mp.mpf(5) / 10]
    obs = [4, 1, 1]
    nn = sum(obs)
    exp = [nn * q for q in probs]
    for lam, lname in [(1, "pearson"), (mp.mpf(2) / 3, "cr")]:
        t_obs = power_divergence(obs, exp, lam)
        tot = mp.mpf(0)
        for a in range(nn + 1):
            for b in range(nn + 1 - a):
                c = nn - a - b
                t = power_divergence([a, b, c], exp, lam)
                if t >= t_obs * (1 - mp.mpf('1e-12')):
                    tot += mp.factorial(nn) / (mp.factorial(a) * mp.factorial(b) * mp.factorial(c)) \
                        * probs[0] ** a * probs[1] ** b * probs[2] ** c
        out(f"multinomial exact {lname}: T_obs, p", t_obs, tot)


if __name__ == "__main__":
    main()
