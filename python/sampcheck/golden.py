# SPDX-License-Identifier: Apache-2.0
"""Golden cases from Python (docs/python.md "Goldens"; format: docs/spec/golden.md).

    for case in sampcheck.golden.load("golden/v1", stage="top_p"):
        result = sampcheck.golden.compare(case, my_top_p(case))
        assert result, result.reason

``load`` reads the manifest and every selected case file through the C++ reader (so a
malformed file raises :class:`sampcheck.InputError` naming it); ``compare`` applies the case's
rule with the verifier's own judgement (golden/verifier.h), so a Python test fails for exactly
the reasons ``sampcheck golden verify`` would give.
"""
import dataclasses
import json
from pathlib import Path

from . import _sampcheck
from ._arrays import from_wire_map, to_wire_map


@dataclasses.dataclass
class Case:
    """One golden case: what to run and what the reference gave."""
    id: str
    stage: str
    profile: str
    params: dict
    comparison: str  # "exact", "ulp(n)"
    inputs: dict     # name -> np.ndarray (sampcheck.Bf16 for bf16)
    expected: dict   # name -> np.ndarray
    path: str = ""

    def run_reference(self):
        """The C++ reference's outputs for this case's inputs (name -> array)."""
        from . import reference
        return reference.run(self.stage, self.inputs, self.params, self.profile)


@dataclasses.dataclass
class Comparison:
    """The judgement of outputs against a case; true when they pass."""
    match: bool
    reason: str  # empty when match

    def __bool__(self):
        return self.match


def _read(path, sha256=""):
    # One bounded read in C++ (regular files only, at most SAMPCHECK_MAX_CASE_BYTES) that also
    # checks the digest: hashing with Path.read_bytes() first blocked on a FIFO for ever and
    # read /dev/zero or a 3 GiB file whole.
    d = _sampcheck.read_case(str(path), sha256)
    return Case(id=d["id"], stage=d["stage"], profile=d["profile"], params=json.loads(d["params"]),
                comparison=d["comparison"], inputs=from_wire_map(d["inputs"]),
                expected=from_wire_map(d["expected"]), path=str(path))


def load(directory, stage=None, profile=None):
    """The cases of the golden set in `directory` (holding manifest.json), in manifest order.

    `stage` and `profile` (a name or a list of names) select; each file's SHA-256 is checked
    against the manifest, and its metadata against the manifest entry."""
    directory = Path(directory)
    stages = [stage] if isinstance(stage, str) else stage
    profiles = [profile] if isinstance(profile, str) else profile
    # A misspelt name used to select nothing, and a test parametrised over the result passed
    # having run no case.
    catalogue = _sampcheck.catalogue()
    known_stages = [s["name"] for s in catalogue]
    known_profiles = sorted({p for s in catalogue for p in s["profiles"]})
    for name in stages or []:
        if name not in known_stages:
            raise _sampcheck.InputError(f"unknown stage '{name}'; stages: {', '.join(known_stages)}")
    for name in profiles or []:
        if name not in known_profiles:
            raise _sampcheck.InputError(f"unknown profile '{name}'; profiles: {', '.join(known_profiles)}")
    cases = []
    for entry in _sampcheck.read_manifest(str(directory)):
        if stages is not None and entry["stage"] not in stages:
            continue
        if profiles is not None and entry["profile"] not in profiles:
            continue
        path = directory / entry["file"]
        case = _read(path, entry["sha256"])
        if (case.id, case.stage, case.profile, case.comparison) != (
                entry["id"], entry["stage"], entry["profile"], entry["comparison"]):
            raise _sampcheck.InputError(f"{path}: case metadata ({case.id}, {case.stage}, {case.profile}, "
                                        f"{case.comparison}) does not match the manifest entry")
        cases.append(case)
    return cases


def read_case(path):
    """One golden case file (a .safetensors file of a golden set)."""
    return _read(path)


def compare(case, outputs, rule=None):
    """Judges `outputs` (name -> array, or one array for a one-output stage) against `case`.

    The case's rule applies unless `rule` ("exact", "ulp(4)") is given. Every fault is in
    the reason: a missing, unexpected, mistyped or misshapen output, NaN where the stage allows
    none, or the rule's first mismatch with its index and bit patterns."""
    if not isinstance(outputs, dict):
        if len(case.expected) != 1:
            raise TypeError(f"case {case.id} has outputs {sorted(case.expected)}: pass a dict")
        outputs = {next(iter(case.expected)): outputs}
    reason = _sampcheck.judge(to_wire_map(case.expected), rule or case.comparison, to_wire_map(outputs))
    return Comparison(match=not reason, reason=reason)
