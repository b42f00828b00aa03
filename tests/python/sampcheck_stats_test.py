# SPDX-License-Identifier: Apache-2.0
"""sampcheck.stats (python/sampcheck/stats.py): the draw harness on Python draw functions.

An exact sampler (NumPy's multinomial on the case's probabilities) must pass; a sampler that
draws uniformly over the support must fail. Error budget: the harness runs at family-wise
alpha sampcheck.stats.ALPHA = 1e-4 per case (Holm over its L2/L3 tests), so the exact
sampler fails with probability <= 1e-4 per case at these fixed seeds (epoch 0: the verdict is
the same on every run); the wrong sampler is a total-variation shift far above the case's
minimum detectable effect (checked below), which the harness detects with power >= 0.99.
"""
import numpy as np
import pytest

import sampcheck


def probability_rows(case):
    probs = np.asarray(case.inputs["probs"], dtype=np.float64)
    return probs / probs.sum(axis=1, keepdims=True)


def exact_draw(case, draws, seed):
    rng = np.random.default_rng(seed)
    return np.stack([rng.multinomial(draws, p) for p in probability_rows(case)]).astype(np.int64)


def uniform_on_support_draw(case, draws, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for p in probability_rows(case):
        support = (p > 0).astype(np.float64)
        rows.append(rng.multinomial(draws, support / support.sum()))
    return np.stack(rows).astype(np.int64)


def skewed_case():
    for case in sampcheck.stats.cases(stage="inverse_cdf"):
        for p in probability_rows(case):
            q = (p > 0) / (p > 0).sum()
            if 0.5 * np.abs(p - q).sum() > 4 * case.mde_tv_ci:
                return case
    pytest.fail("no inverse_cdf statistical case with a non-uniform row (harness/stat_cases/draws_stat_cases.cc)")


def test_cases_are_listed_with_their_effects():
    cases = sampcheck.stats.cases()
    assert cases and len({c.id for c in cases}) == len(cases)
    assert all(c.id.startswith("stats/") and 0 < c.mde_tv_ci for c in cases)
    assert sampcheck.stats.ALPHA == 1e-4 and sampcheck.stats.POWER == 0.99


def test_an_exact_sampler_passes():
    case = skewed_case()
    result = sampcheck.stats.check(exact_draw, case)
    assert result, result.report()
    assert any(t["statistics"] and t["statistics"].get("layer") in ("L2", "L3") for t in result.tests), result.report()


def test_a_uniform_sampler_fails():
    case = skewed_case()
    result = sampcheck.stats.check(uniform_on_support_draw, case)
    assert not result, result.report()


def test_bad_counts_fail_the_case_with_the_reason():
    case = skewed_case()
    result = sampcheck.stats.check(lambda c, n, s: np.zeros_like(exact_draw(c, n, s)), case.id)
    assert not result
    assert any("were asked for" in t["reason"] for t in result.tests), result.report()
    with pytest.raises(sampcheck.InputError, match="unknown statistical case"):
        sampcheck.stats.check(exact_draw, "stats/nope")
