#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An out-of-process backend that declares only the `noise` stage (docs/spec/noise.md), written
from the spec with NumPy: the generators of tests/python/noise_reference.py (Philox4x32-10 on
cuRAND's stream layout, SGLang's MurmurHash3 key) and the conversions with NumPy's vectorised
log instead of a correctly rounded one (so exponential and Gumbel samples may differ in the last
bit; the uniforms are exact).
It shows that an exec backend gets the noise harness by declaring the stage.

Usage: noise_exchange_backend.py [MODE] CASES_DIR RESPONSES_DIR. Faults the harness must reject
(tests/noise_exchange_test.cc, tests/hostile_input_test.sh): "scaled" multiplies the Exp(1)
samples by 1.05; "plant_inf" puts 20 values of +inf into each exponential row of 2^20.
"""
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

_spec = importlib.util.spec_from_file_location(
    "example_backend", Path(__file__).resolve().parents[2] / "examples" / "python_backend" / "backend.py")
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from noise_reference import murmur_key, philox_words  # noqa: E402  (the spec's generators, one copy)


def noise(meta, t, mode):
    scaled = mode == "scaled"
    params = meta["params"]
    law, generator, n = params["law"], params.get("generator", "philox"), params.get("n", 1)
    out = np.zeros((t["seed"].shape[0], n), dtype=np.float32)
    with np.errstate(divide="ignore", over="ignore"):
        for b, (seed, offset) in enumerate(zip(t["seed"], t["offset"])):
            seed = int(seed) & 0xFFFFFFFFFFFFFFFF
            c = np.uint64(offset) + np.arange(n, dtype=np.uint64)
            if generator == "philox":
                u = philox_words(seed, c).astype(np.float32) * np.float32(2.0**-32) + np.float32(2.0**-33)
                q = np.where(u >= np.float32(1 - 2.0**-24), np.float32(2.0**-24), -np.log(u)).astype(np.float32)
                x = {"uniform": u, "exponential": q, "gumbel": -np.log(q)}[law]
            elif generator == "murmur3":
                u = murmur_key(seed, c).astype(np.float64) / 4294967295.0
                e = -np.clip(np.log(u), -np.finfo(np.float64).max, -(2.0**-32))
                x = {"uniform": u, "exponential": e, "gumbel": -np.log(e)}[law]
            else:
                raise ValueError(f"unknown generator {generator}")
            out[b] = x.astype(np.float32) * (np.float32(1.05) if scaled and law == "exponential" else np.float32(1))
            if mode == "plant_inf" and law == "exponential" and n >= 2**20:
                out[b, 1000::40000][:20] = np.inf
    return {"noise": out}


def main(mode, cases_dir, responses_dir):
    cases_dir, responses_dir = Path(cases_dir), Path(responses_dir)
    manifest = json.loads((cases_dir / "manifest.json").read_text())
    if manifest["request"] == "describe":
        (responses_dir / "backend.json").write_text(json.dumps({"name": "noise-numpy", "stages": {"noise": ["canonical"]}}))
        return
    for entry in manifest["cases"]:
        stem = Path(entry["file"]).stem
        try:
            meta_text, tensors = example.read_safetensors(cases_dir / entry["file"])
            meta = json.loads(meta_text["sampcheck.case"])
            inputs = {name[3:]: arr for name, arr in tensors.items() if name.startswith("in.")}
            outputs = noise(meta, inputs, mode)
            example.write_safetensors(responses_dir / f"{stem}.safetensors", {"out." + k: v for k, v in outputs.items()})
        except Exception as e:
            (responses_dir / f"{stem}.error").write_text(f"{type(e).__name__}: {e}\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0] if len(args) == 3 else "", *args[-2:])
