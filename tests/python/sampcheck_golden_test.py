# SPDX-License-Identifier: Apache-2.0
"""sampcheck.golden (python/sampcheck/golden.py): loading golden/v1 and judging outputs with
the verifier's rules (golden/verifier.h, docs/spec/golden.md "Comparison rules")."""
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import sampcheck

GOLDEN = Path(os.environ.get("SAMPCHECK_SOURCE_DIR", Path(__file__).resolve().parents[2])) / "golden" / "v1"


def test_load_gives_every_manifest_case_in_order():
    manifest = json.loads((GOLDEN / "manifest.json").read_text())
    cases = sampcheck.golden.load(GOLDEN)
    assert [c.id for c in cases] == [e["id"] for e in manifest["cases"]]
    greedy = sampcheck.golden.load(GOLDEN, stage="greedy", profile="canonical")
    assert greedy and all(c.stage == "greedy" and c.profile == "canonical" for c in greedy)


def test_expected_outputs_pass_their_own_case():
    for case in sampcheck.golden.load(GOLDEN, stage=["greedy", "top_p", "softmax"]):
        result = sampcheck.golden.compare(case, case.expected)
        assert result and result.reason == "", case.id


def test_one_flipped_bit_fails_an_exact_case_with_the_index():
    case = next(c for c in sampcheck.golden.load(GOLDEN, stage="top_k") if c.comparison == "exact"
                and np.isfinite(c.expected["logits"]).any())
    wrong = case.expected["logits"].copy()
    i = int(np.flatnonzero(np.isfinite(wrong))[0])
    wrong.reshape(-1).view(np.uint32)[i] ^= 1  # one ulp
    result = sampcheck.golden.compare(case, {"logits": wrong})
    assert not result
    assert "output 'logits'" in result.reason and "; 1 of " in result.reason, result.reason


def test_missing_unexpected_and_misshapen_outputs_are_named():
    case = sampcheck.golden.load(GOLDEN, stage="greedy")[0]
    token = case.expected["token"]
    assert sampcheck.golden.compare(case, {}).reason == "output 'token' is missing"
    extra = sampcheck.golden.compare(case, {"token": token, "probs": token})
    assert extra.reason == "unexpected output 'probs'"
    wrong_dtype = sampcheck.golden.compare(case, token.astype(np.int32))
    assert "wrong dtype: i32, the stage gives i64" in wrong_dtype.reason
    wrong_shape = sampcheck.golden.compare(case, np.concatenate([token, token]))
    assert "wrong shape" in wrong_shape.reason


def test_an_explicit_ulp_rule_relaxes_a_canonical_case():
    case = next(c for c in sampcheck.golden.load(GOLDEN, stage="softmax") if c.expected["probs"].size > 1)
    probs = case.expected["probs"].copy()
    i = int(np.flatnonzero(probs > 0)[0])
    probs.reshape(-1).view(np.uint32)[i] += 1
    assert not sampcheck.golden.compare(case, probs)
    assert sampcheck.golden.compare(case, probs, rule="ulp(1)")


def test_a_corrupt_case_file_is_an_input_error_naming_it(tmp_path):
    copy = tmp_path / "v1"
    shutil.copytree(GOLDEN, copy)
    entry = json.loads((copy / "manifest.json").read_text())["cases"][0]
    path = copy / entry["file"]
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(sampcheck.InputError, match="SHA-256"):
        sampcheck.golden.load(copy)
    with pytest.raises(sampcheck.InputError, match="manifest.json"):
        sampcheck.golden.load(tmp_path / "nowhere")
