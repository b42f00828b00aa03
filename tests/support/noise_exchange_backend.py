#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An out-of-process backend that declares only the `noise` stage (docs/spec/noise.md), written
from the spec with NumPy: Philox4x32-10 (Random123's round and key schedule) on cuRAND's stream
layout, SGLang's MurmurHash3 key, and the conversions, with NumPy's log instead of sampcheck's
owned log (so exponential and Gumbel samples may differ in the last bit; the uniforms are exact).
It shows that an exec backend gets the noise harness by declaring the stage.

Usage: noise_exchange_backend.py [MODE] CASES_DIR RESPONSES_DIR; MODE "scaled" multiplies the
Exp(1) samples by 1.05 (a planted bias the harness must reject).
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

M0, M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)  # Random123 PHILOX_M4x32_0/1
W0, W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)  # PHILOX_W32_0/1
MASK = np.uint64(0xFFFFFFFF)


def philox_words(seed, counters):
    """Word c % 4 of Philox4x32_10({c/4 low, c/4 high, 0, 0}, {seed low, seed high})."""
    block = counters // np.uint64(4)
    c0, c1 = block & MASK, block >> np.uint64(32)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64(seed >> 32)
    for r in range(10):
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ k0, p1 & MASK, (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & MASK)
        k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
    words = np.stack([c0, c1, c2, c3])
    return words[(counters % np.uint64(4)).astype(np.int64), np.arange(counters.size)].astype(np.uint32)


def rotl(x, r):
    return ((x << np.uint32(r)) | (x >> np.uint32(32 - r))).astype(np.uint32)


def murmur_key(seed, counters):
    """MurmurHash3_x86_32 (seed 0) of the 16 bytes seed low, seed high, c >> 32, c mod 2^32."""
    with np.errstate(over="ignore"):
        h = np.zeros(counters.size, dtype=np.uint32)
        words = [np.full(counters.size, seed & 0xFFFFFFFF, dtype=np.uint32),
                 np.full(counters.size, seed >> 32, dtype=np.uint32),
                 (counters >> np.uint64(32)).astype(np.uint32), (counters & MASK).astype(np.uint32)]
        for k in words:
            k = rotl(k * np.uint32(0xCC9E2D51), 15) * np.uint32(0x1B873593)
            h = rotl(h ^ k, 13) * np.uint32(5) + np.uint32(0xE6546B64)
        h ^= np.uint32(16)
        h ^= h >> np.uint32(16)
        h *= np.uint32(0x85EBCA6B)
        h ^= h >> np.uint32(13)
        h *= np.uint32(0xC2B2AE35)
        h ^= h >> np.uint32(16)
    return h


def noise(meta, t, scaled):
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
            outputs = noise(meta, inputs, mode == "scaled")
            example.write_safetensors(responses_dir / f"{stem}.safetensors", {"out." + k: v for k, v in outputs.items()})
        except Exception as e:
            (responses_dir / f"{stem}.error").write_text(f"{type(e).__name__}: {e}\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0] if len(args) == 3 else "", *args[-2:])
