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


def _greedy_copy(tmp_path):
    """A greedy-only copy of golden/v1 (manifest and files), to plant faults in."""
    manifest = json.loads((GOLDEN / "manifest.json").read_text())
    manifest["cases"] = [e for e in manifest["cases"] if e["stage"] == "greedy"]
    shutil.copytree(GOLDEN / "greedy", tmp_path / "greedy")
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    return tmp_path, manifest["cases"][0]


# load used to hash each case with Path.read_bytes() before the bounded reader: a FIFO blocked
# for ever, a link to /dev/zero grew to the memory limit, a huge case was read whole, and a
# directory or missing file raised IsADirectoryError / FileNotFoundError.
def test_load_refuses_a_fifo_without_blocking(tmp_path):
    root, entry = _greedy_copy(tmp_path)
    (root / entry["file"]).unlink()
    os.mkfifo(root / entry["file"])
    with pytest.raises(sampcheck.InputError, match="is a FIFO; sampcheck reads only regular files"):
        sampcheck.golden.load(root)


def test_load_refuses_dev_zero(tmp_path):
    root, entry = _greedy_copy(tmp_path)
    (root / entry["file"]).unlink()
    (root / entry["file"]).symlink_to("/dev/zero")
    with pytest.raises(sampcheck.InputError, match="is a character device"):
        sampcheck.golden.load(root)


def test_load_refuses_a_case_above_the_size_limit(tmp_path, monkeypatch):
    root, entry = _greedy_copy(tmp_path)
    monkeypatch.setenv("SAMPCHECK_MAX_CASE_BYTES", "64")
    with pytest.raises(sampcheck.InputError, match="exceeds the limit of 64 bytes"):
        sampcheck.golden.load(root)


def test_load_names_a_directory_or_missing_case_with_input_error(tmp_path):
    root, entry = _greedy_copy(tmp_path)
    (root / entry["file"]).unlink()
    (root / entry["file"]).mkdir()
    with pytest.raises(sampcheck.InputError, match="is a directory"):
        sampcheck.golden.load(root)
    (root / entry["file"]).rmdir()
    with pytest.raises(sampcheck.InputError, match=r"\.safetensors: cannot open"):
        sampcheck.golden.load(root)


def test_load_still_checks_the_digest(tmp_path):
    root, entry = _greedy_copy(tmp_path)
    data = bytearray((root / entry["file"]).read_bytes())
    data[-1] ^= 1
    (root / entry["file"]).write_bytes(bytes(data))
    with pytest.raises(sampcheck.InputError, match="does not match the manifest's"):
        sampcheck.golden.load(root)


# An unknown name used to select nothing: load(dir, stage="top-p") returned [], so a test
# parametrised over it collected nothing and passed.
def test_load_refuses_unknown_stage_and_profile_names():
    with pytest.raises(sampcheck.InputError, match="unknown stage 'top-p'; stages: .*top_p"):
        sampcheck.golden.load(GOLDEN, stage="top-p")
    with pytest.raises(sampcheck.InputError, match="unknown profile 'VLLM'"):
        sampcheck.golden.load(GOLDEN, stage="top_p", profile="VLLM")
