# SPDX-License-Identifier: Apache-2.0
"""sampcheck.backend.serve (python/sampcheck/backend.py) end to end: a ten-line NumPy backend
run by the CLI as an exec backend (docs/spec/exchange.md) against golden/v1, a function that
raises, a wrong answer, and the describe response."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import sampcheck

SOURCE = Path(os.environ.get("SAMPCHECK_SOURCE_DIR", Path(__file__).resolve().parents[2]))
GOLDEN = SOURCE / "golden" / "v1"
CLI = os.environ.get("SAMPCHECK_CLI", str(SOURCE / "build" / "default" / "cli" / "sampcheck"))

BACKEND = textwrap.dedent("""
    import numpy as np
    import sampcheck

    def greedy(case):  # np.argmax: first maximum, first NaN (docs/spec/greedy.md)
        return {"token": np.argmax(case.inputs["logits"].astype(np.float32), axis=1).astype(np.int64)}

    def top_k(case):
        raise ValueError("top_k is not implemented by this backend")

    def softmax(case):  # deliberately wrong: probabilities of the wrong dtype
        return {"probs": np.zeros(case.inputs["logits"].shape, np.float64)}

    sampcheck.backend.serve({"greedy": greedy, "top_k": (top_k, ["canonical"]), "softmax": softmax},
                            name="pytest-numpy", profiles=["canonical"])
""")


@pytest.fixture
def backend_script(tmp_path):
    script = tmp_path / "backend.py"
    script.write_text(BACKEND)
    return script


def verify(script, *stages):
    command = [CLI, "golden", "verify", "--golden", str(GOLDEN), "--profile", "canonical",
               "--backend", f"exec:{sys.executable} {script} {{cases}} {{responses}}"]
    for s in stages:
        command += ["--stage", s]
    return subprocess.run(command, capture_output=True, text=True, env=dict(os.environ), timeout=600)


def test_served_greedy_passes_golden_v1(backend_script):
    run = verify(backend_script, "greedy")
    assert run.returncode == 0, run.stdout + run.stderr
    assert ", 0 failed" in run.stdout


def test_a_raising_function_fails_its_cases_with_the_message(backend_script):
    run = verify(backend_script, "top_k")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "ValueError: top_k is not implemented by this backend" in run.stdout


def test_a_wrong_dtype_is_named(backend_script):
    run = verify(backend_script, "softmax")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "output 'probs' has the wrong dtype: f64" in run.stdout


def test_describe_lists_stages_and_profiles(tmp_path):
    description = sampcheck.backend.describe({"greedy": None, "top_k": (None, ["vllm"])},
                                             name="x", draws={"inverse_cdf": None})
    assert description == {"name": "x", "stages": {"greedy": ["canonical"], "top_k": ["vllm"],
                                                   "inverse_cdf": ["canonical"]},
                           "count_draws": ["inverse_cdf"]}
    with pytest.raises(sampcheck.InputError, match="unknown stage 'nope'"):
        sampcheck.backend.describe({"nope": None})
    cases, responses = tmp_path / "cases", tmp_path / "responses"
    cases.mkdir()
    responses.mkdir()
    (cases / "manifest.json").write_text(json.dumps({"format": "sampcheck-exchange", "format_version": 1,
                                                     "request": "describe", "cases": []}))
    sampcheck.backend.serve({"greedy": None}, name="y", argv=[cases, responses])
    assert json.loads((responses / "backend.json").read_text())["stages"] == {"greedy": ["canonical"]}
