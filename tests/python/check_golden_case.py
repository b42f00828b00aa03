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

import bitmask_reference
import egress_reference
import noise_reference
import spec_decode_reference

DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I32": np.int32, "I64": np.int64,
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


def _murmur3_key(seed, position, columns):
    """MurmurHash3_x86_32 of the 16-byte key (seed lo, seed hi, position, column), hash seed 0."""
    def mix(h, k):
        k = (k * np.uint32(0xCC9E2D51)).astype(np.uint32)
        k = ((k << np.uint32(15)) | (k >> np.uint32(17))).astype(np.uint32)
        k = (k * np.uint32(0x1B873593)).astype(np.uint32)
        h = h ^ k
        h = ((h << np.uint32(13)) | (h >> np.uint32(19))).astype(np.uint32)
        return (h * np.uint32(5) + np.uint32(0xE6546B64)).astype(np.uint32)
    s = np.uint64(seed)
    h = np.zeros(columns.shape, dtype=np.uint32)
    h = mix(h, np.full(columns.shape, np.uint32(s & np.uint64(0xFFFFFFFF)), dtype=np.uint32))
    h = mix(h, np.full(columns.shape, np.uint32(s >> np.uint64(32)), dtype=np.uint32))
    h = mix(h, np.full(columns.shape, np.uint32(position), dtype=np.uint32))
    h = mix(h, columns.astype(np.uint32))
    h = h ^ np.uint32(16)
    h = h ^ (h >> np.uint32(16))
    h = (h * np.uint32(0x85EBCA6B)).astype(np.uint32)
    h = h ^ (h >> np.uint32(13))
    h = (h * np.uint32(0xC2B2AE35)).astype(np.uint32)
    return h ^ (h >> np.uint32(16))


def multinomial_with_seed(meta, t):
    """SGLang's multinomial_with_seed(_and_token_ids) in float64 (python/sglang/srt/layers/sampler.py)."""
    probs = t["in.probs"].astype(np.float64)
    ids = t.get("in.token_ids")
    out = []
    with np.errstate(divide="ignore"):
        for b in range(probs.shape[0]):
            cols = ids[b] if ids is not None else np.arange(probs.shape[1])
            h = _murmur3_key(int(t["in.seed"][b]) & 0xFFFFFFFFFFFFFFFF, int(t["in.positions"][b]), cols)
            x = np.log(h.astype(np.float64) / 4294967295.0)
            x = -np.clip(x, np.finfo(np.float64).min, -(2.0 ** -32))
            out.append(np.argmax(np.log(probs[b]) - np.log(x)))
    return {"out.token": np.array(out, dtype=np.int64)}


def tp_consensus(meta, t):
    # docs/spec/tp_consensus.md: sglang = MIN over ranks (axis 0), vllm = rank 0's row.
    ids = t["in.rank_ids"].astype(np.int64)
    token = ids[0].copy() if meta["profile"] == "vllm" else ids.min(axis=0, initial=np.iinfo(np.int64).max)
    return {"out.token": token, "out.unanimous": (ids.min(axis=0, initial=np.iinfo(np.int64).max) ==
                                                  ids.max(axis=0, initial=np.iinfo(np.int64).min))}


CHECKS = {("multinomial_with_seed", None): multinomial_with_seed,
          ("multinomial_with_seed_token_ids", None): multinomial_with_seed,("token_bitmask", None): token_bitmask, ("penalties", "vllm"): penalties_vllm,
          ("penalties", "canonical"): penalties_vllm, ("greedy", None): greedy}
CHECKS[("tp_consensus", None)] = tp_consensus
CHECKS.update(spec_decode_reference.CHECKS)  # spec_greedy, spec_random (tests/python/spec_decode_reference.py)
CHECKS.update(egress_reference.CHECKS)  # finish_rules, logprobs raw_logits (tests/python/egress_reference.py)
CHECKS.update(noise_reference.CHECKS)  # noise (tests/python/noise_reference.py)
CHECKS.update(bitmask_reference.CHECKS)  # token_bitmask_fill, _allowed, _stop_tokens (tests/python/bitmask_reference.py)


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
