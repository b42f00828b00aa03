# SPDX-License-Identifier: Apache-2.0
"""Serve Python functions as a sampcheck exec backend (docs/python.md "Backends"; protocol:
docs/spec/exchange.md).

    # my_backend.py
    import sampcheck

    def top_k(case):                       # case: sampcheck.backend.Request
        return {"logits": my_kernel(case.inputs["logits"], case.inputs["k"])}

    sampcheck.backend.serve({"top_k": top_k}, name="my-sampler", profiles=["vllm"])

    $ sampcheck conform --backend "exec:python3 my_backend.py {cases} {responses}" --report out

Each value of the dict is a function of one :class:`Request` returning the stage's outputs as
a dict name -> array (NumPy arrays, CPU torch tensors, anything ``numpy.asarray`` accepts, or
:class:`sampcheck.Bf16`), or ``(function, [profiles])`` to declare its own profiles. `profiles`
applies to the other stages; ``None`` declares every profile the catalogue gives the stage.
`draws` maps a stage to ``function(request, draws, seed)`` returning counts ``[rows, V]``
(int64, each row summing to `draws`), drawn with the backend's own randomness. An exception in
a function fails that case with its message; the other cases go on.
"""
import dataclasses
import json
import sys
from pathlib import Path

from . import _sampcheck
from ._arrays import from_wire_map, to_wire_map


@dataclasses.dataclass
class Request:
    """One case of an exchange request."""
    id: str
    stage: str
    profile: str
    params: dict
    inputs: dict  # name -> np.ndarray (sampcheck.Bf16 for bf16)


def _catalogue_profiles():
    return {s["name"]: s["profiles"] for s in _sampcheck.catalogue()}


def describe(stages, name="python", profiles=None, draws=None):
    """The backend.json this backend writes for a describe request."""
    known = _catalogue_profiles()
    table = {}
    for stage, value in stages.items():
        if stage not in known:
            raise _sampcheck.InputError(f"serve: unknown stage '{stage}'; valid stages: {', '.join(known)}")
        own = value[1] if isinstance(value, tuple) else profiles
        table[stage] = list(own) if own is not None else list(known[stage])
    for stage in draws or {}:
        if stage not in known:
            raise _sampcheck.InputError(f"serve: unknown draw stage '{stage}'; valid stages: {', '.join(known)}")
        table.setdefault(stage, list(profiles) if profiles is not None else list(known[stage]))
    return {"name": name, "stages": table, "count_draws": sorted(draws or {})}


def _write_error(path, error):
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(f"{type(error).__name__}: {error}\n", encoding="utf-8")
    tmp.rename(path)


def handle(cases_dir, responses_dir, stages, name="python", profiles=None, draws=None):
    """Answers one exchange request: CASES_DIR/manifest.json in, RESPONSES_DIR files out."""
    cases_dir, responses_dir = Path(cases_dir), Path(responses_dir)
    manifest = json.loads((cases_dir / "manifest.json").read_text(encoding="utf-8"))
    if manifest.get("format") != "sampcheck-exchange" or manifest.get("format_version") != 1:
        raise _sampcheck.InputError(f"{cases_dir}/manifest.json: not a sampcheck-exchange version 1 manifest")
    if manifest["request"] == "describe":
        text = json.dumps(describe(stages, name, profiles, draws), indent=2) + "\n"
        (responses_dir / "backend.json").write_text(text, encoding="utf-8")
        return
    for entry in manifest["cases"]:
        stem = Path(entry["file"]).stem
        try:
            tensors, meta = _sampcheck.read_safetensors(str(cases_dir / entry["file"]))
            info = json.loads(meta["sampcheck.case"])
            inputs = {k[3:]: v for k, v in from_wire_map(tensors).items() if k.startswith("in.")}
            request = Request(id=info["id"], stage=info["stage"], profile=info["profile"],
                              params=info.get("params", {}), inputs=inputs)
            if "draws" in entry:
                outputs = {"counts": draws[entry["stage"]](request, entry["draws"], entry["seed"])}
            else:
                function = stages[entry["stage"]]
                function = function[0] if isinstance(function, tuple) else function
                outputs = function(request)
            _sampcheck.write_safetensors(str(responses_dir / f"{stem}.safetensors"),
                                         to_wire_map({"out." + k: v for k, v in outputs.items()}))
        except Exception as error:  # this case fails with the message; the others go on
            _write_error(responses_dir / f"{stem}.error", error)


def serve(stages, name="python", profiles=None, draws=None, argv=None):
    """The main of an exec backend script: `argv` (default sys.argv[1:]) is CASES RESPONSES."""
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) != 2:
        sys.exit(f"usage: {Path(sys.argv[0]).name} CASES_DIR RESPONSES_DIR "
                 "(run by sampcheck as --backend \"exec:python3 SCRIPT {cases} {responses}\")")
    try:
        handle(args[0], args[1], stages, name, profiles, draws)
    except _sampcheck.InputError as error:
        sys.exit(f"{name}: {error}")
