#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Independent check of golden cases with NumPy only (docs/spec/golden.md).

Reads case files of golden/v1 with a minimal safetensors reader written here from the
format's definition, recomputes the stage output with NumPy float32 arithmetic (IEEE 754
binary32, independent of sampcheck's C++), and compares bit patterns.

Usage: check_golden_case.py GOLDEN_DIR
Exit status 0 when every checked case matches, 1 otherwise.
"""
import json
import struct
import sys
from pathlib import Path

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16, "I32": np.int32, "I64": np.int64,
          "U8": np.uint8, "BOOL": np.bool_}


def read_case(path):
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    meta = json.loads(header.pop("__metadata__")["sampcheck.case"])
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = body[begin:end]
        if info["dtype"] == "BF16":
            arr = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            arr = np.frombuffer(raw, dtype=np.dtype(DTYPES[info["dtype"]]).newbyteorder("<"))
        tensors[name] = arr.reshape(info["shape"])
    return meta, tensors


def logits_f32(t):
    return t["in.logits"].astype(np.float32)  # f16 -> f32 and bf16 (already f32) are exact


def token_bitmask(meta, t):
    x = logits_f32(t).copy()
    mask = t["in.bitmask"].astype(np.int64) & 0xFFFFFFFF
    vocab = min(x.shape[1], mask.shape[1] * 32)
    vocab = meta["params"].get("vocab_size", vocab)
    rows = t["in.indices"] if "in.indices" in t else range(x.shape[0])
    for r in rows:
        for j in range(vocab):
            if not (mask[r, j // 32] >> (j % 32)) & 1:
                x[r, j] = -np.inf
    return {"out.logits": x}


def penalties_vllm(meta, t):
    x = logits_f32(t).copy()
    rows, vocab = x.shape
    for b in range(rows):
        out_ids = [i for i in t["in.output_ids"][b] if i >= 0]
        prompt = {i for i in t["in.prompt_ids"][b] if i >= 0}
        counts = np.bincount(np.array(out_ids, dtype=np.int64), minlength=vocab).astype(np.float32)
        r = t["in.repetition_penalty"][b]
        f = t["in.frequency_penalty"][b]
        p = t["in.presence_penalty"][b]
        seen = (counts > 0) | np.isin(np.arange(vocab), list(prompt))
        row = x[b]
        with np.errstate(invalid="ignore"):
            row = np.where(seen & (row > 0), row / r, np.where(seen, row * r, row)).astype(np.float32)
            row = (row - (f * counts).astype(np.float32)).astype(np.float32)
            row = (row - (p * (counts > 0).astype(np.float32)).astype(np.float32)).astype(np.float32)
        x[b] = row
    return {"out.logits": x}


def greedy(meta, t):
    x = logits_f32(t)
    return {"out.token": np.argmax(x, axis=1).astype(np.int64)}  # NumPy: first NaN, first max


CHECKS = {("token_bitmask", None): token_bitmask, ("penalties", "vllm"): penalties_vllm,
          ("penalties", "canonical"): penalties_vllm, ("greedy", None): greedy}


def same_bits(a, b):
    if a.dtype == np.float32:
        nan = np.isnan(a) & np.isnan(b)
        return bool(np.all(nan | (a.view(np.uint32) == b.view(np.uint32))))
    return bool(np.array_equal(a, b))


def main(golden_dir):
    manifest = json.loads((Path(golden_dir) / "manifest.json").read_text())
    checked = failed = 0
    for case in manifest["cases"]:
        fn = CHECKS.get((case["stage"], case["profile"])) or CHECKS.get((case["stage"], None))
        if fn is None:
            continue
        meta, tensors = read_case(Path(golden_dir) / case["file"])
        for name, want in fn(meta, tensors).items():
            checked += 1
            if not same_bits(want, tensors[name]):
                failed += 1
                print(f"MISMATCH {case['id']} {name}")
    print(f"{checked - failed} passed, {failed} failed")
    return 0 if failed == 0 and checked > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
