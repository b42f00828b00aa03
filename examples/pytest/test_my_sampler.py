# SPDX-License-Identifier: Apache-2.0
"""How a kernel project puts sampcheck into its own pytest suite (docs/python.md "pytest"):
one test per golden case of the stages it implements, judged by the case's own rule, and one
statistical test of its sampler on the harness's cases. ctest runs it (pytest_example).

    export PYTHONPATH=$PWD/build/default/python
    python3 -m pytest examples/pytest
"""
import os
from pathlib import Path

import pytest

import sampcheck
import my_sampler

GOLDEN = Path(os.environ.get("SAMPCHECK_GOLDEN", Path(__file__).resolve().parents[2] / "golden" / "v1"))



def f32(x):
    """float32 from a case input: f16 widens exactly, bf16 (sampcheck.Bf16 bits) too."""
    return x.to_float32() if isinstance(x, sampcheck.Bf16) else x.astype("float32")


# stage -> a function of the golden case returning the outputs, calling the code under test.
IMPLEMENTED = {
    "greedy": lambda c: {"token": my_sampler.greedy(f32(c.inputs["logits"]))},
    "top_k": lambda c: {"logits": my_sampler.top_k(f32(c.inputs["logits"]), c.inputs["top_k"])},
    "exponential_race": lambda c: {"token": my_sampler.exponential_race(f32(c.inputs["probs"]), c.inputs["q"])},
}
CASES = sampcheck.golden.load(GOLDEN, stage=list(IMPLEMENTED), profile="canonical")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_golden_case(case):
    result = sampcheck.golden.compare(case, IMPLEMENTED[case.stage](case))
    assert result, result.reason


STAT_CASES = sampcheck.stats.cases(stage="exponential_race", profile="canonical")


@pytest.mark.parametrize("case", STAT_CASES[:1], ids=[c.id for c in STAT_CASES[:1]])
def test_draws_follow_the_reference_distribution(case):
    result = sampcheck.stats.check(lambda c, draws, seed: my_sampler.draw_counts(f32(c.inputs["probs"]), draws, seed), case)
    assert result, result.report()
