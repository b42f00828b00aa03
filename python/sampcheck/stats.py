# SPDX-License-Identifier: Apache-2.0
"""The draw harness from Python (docs/python.md "Statistics"; method: docs/spec/harness.md).

    def draw(case, draws, seed):           # counts [rows, V], int64, rows summing to draws
        ...
    for case in sampcheck.stats.cases(stage="exponential_race"):
        result = sampcheck.stats.check(draw, case)
        assert result, result.report()

``check`` runs the same harness as ``sampcheck stats`` on one statistical case: the same
family-wise alpha (``ALPHA``), power (``POWER``), number of draws derived from the case's
minimum detectable effect, seeds from (case id, epoch), structural (L1), targeted (L2) and
omnibus (L3) tests, Holm over the case's tests.
"""
import dataclasses
import json

import numpy as np

from . import _sampcheck
from ._arrays import from_wire_map, to_wire

ALPHA = _sampcheck.family_wise_alpha()
POWER = _sampcheck.target_power


@dataclasses.dataclass
class StatCase:
    """A statistical case: a stage's inputs without noise, and the effects the harness must see."""
    id: str
    family: str
    stage: str
    profile: str
    params: dict
    inputs: dict
    mde_tv_ci: float
    mde_tv_thorough: float
    targeted_ratio: float


@dataclasses.dataclass
class Result:
    """The harness's results for one case: one entry per test (id, verdict, reason, statistics)."""
    case_id: str
    tests: list

    @property
    def passed(self):
        return all(t["verdict"] != "fail" for t in self.tests) and any(t["verdict"] == "pass" for t in self.tests)

    def __bool__(self):
        return self.passed

    def report(self):
        lines = []
        for t in self.tests:
            s = t["statistics"] or {}
            p = s.get("p_adjusted", s.get("p"))
            lines.append(f"{t['verdict'].upper():4} {t['id']}" + (f" p={p:.3g}" if isinstance(p, float) else "") +
                         (f": {t['reason']}" if t["reason"] else ""))
        return "\n".join(lines)


def cases(stage=None, profile=None):
    """The harness's statistical cases (harness/stat_cases/stat_cases.h), optionally of one stage/profile."""
    out = []
    for d in _sampcheck.stat_cases():
        if stage is not None and d["stage"] != stage:
            continue
        if profile is not None and d["profile"] != profile:
            continue
        out.append(StatCase(id=d["id"], family=d["family"], stage=d["stage"], profile=d["profile"],
                            params=json.loads(d["params"]), inputs=from_wire_map(d["inputs"]),
                            mde_tv_ci=d["mde_tv_ci"], mde_tv_thorough=d["mde_tv_thorough"],
                            targeted_ratio=d["targeted_ratio"]))
    return out


def check(draw, case, thorough=False, seed_epoch=0):
    """Runs the draw harness on `draw(case, draws, seed)` for `case` (a StatCase or its id)."""
    case_id = case if isinstance(case, str) else case.id
    if isinstance(case, str):
        found = [c for c in cases() if c.id == case]
        if not found:
            raise _sampcheck.InputError(f"unknown statistical case '{case}' (see sampcheck.stats.cases())")
        case = found[0]

    def counts(draws, seed):
        value = draw(case, int(draws), int(seed))
        return to_wire("counts", np.asarray(value) if not hasattr(value, "detach") else value)

    tests = _sampcheck.check_draws(case_id, counts, bool(thorough), int(seed_epoch))
    for t in tests:
        t["statistics"] = json.loads(t["statistics"]) if t["statistics"] else None
    return Result(case_id=case_id, tests=tests)
