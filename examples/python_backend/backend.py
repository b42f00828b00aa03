#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An example out-of-process sampcheck backend in Python with NumPy only (docs/spec/exchange.md).

sampcheck runs it as
    sampcheck golden verify --golden golden/v1 \
        --backend "exec:python3 examples/python_backend/backend.py {cases} {responses}"
It reads CASES/manifest.json; for a "describe" request it writes RESPONSES/backend.json (its
name, stages and profiles, and the stages it can draw on its own); for a "run" request it
answers every listed case with RESPONSES/NNNN.safetensors (out.NAME tensors) or, when the case
is bad, RESPONSES/NNNN.error holding the message. A case with "draws": N asks for N tokens per
row drawn with the backend's own randomness, returned as out.counts, i64 [rows, V].

Stages (their specs in docs/spec/): greedy, token_bitmask, logit_bias (canonical, vllm,
sglang), allowed_token_ids; draws for inverse_cdf. Replace the stage functions with calls into
your own kernels to check them.
"""
import json
import struct
import sys
from pathlib import Path

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I32": np.int32, "I64": np.int64,
          "U8": np.uint8, "BOOL": np.bool_}
NAMES = {np.dtype(v).str: k for k, v in DTYPES.items()}


def read_safetensors(path):
    """Minimal safetensors reader (format: huggingface/safetensors): u64 header length, JSON, data."""
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    body = data[8 + n:]
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = body[begin:end]
        if info["dtype"] == "BF16":  # widen to f32 exactly: bf16 is the top half of an f32
            arr = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            arr = np.frombuffer(raw, dtype=np.dtype(DTYPES[info["dtype"]]).newbyteorder("<"))
        tensors[name] = arr.reshape(info["shape"])
    return meta, tensors


def write_safetensors(path, tensors):
    header, chunks, offset = {}, [], 0
    for name in sorted(tensors):
        arr = np.ascontiguousarray(tensors[name])
        raw = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": NAMES[np.dtype(arr.dtype).str], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, sort_keys=True).encode()
    text += b" " * (-len(text) % 8)
    tmp = Path(str(path) + ".tmp")
    tmp.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(chunks))
    tmp.rename(path)  # never a half-written response


def logits_f32(t):
    return t["logits"].astype(np.float32)  # f16 -> f32 is exact; bf16 was widened on reading


def greedy(meta, t):
    # np.argmax returns the first NaN if there is one, else the first index of the maximum,
    # and -0.0 == +0.0: the order of docs/spec/greedy.md.
    return {"token": np.argmax(logits_f32(t), axis=1).astype(np.int64)}


def token_bitmask(meta, t):
    x = logits_f32(t).copy()
    mask = t["bitmask"].astype(np.int64) & 0xFFFFFFFF
    vocab = meta["params"].get("vocab_size", min(x.shape[1], 32 * mask.shape[1]))
    cols = np.arange(vocab)
    rows = t["indices"] if "indices" in t else range(x.shape[0])
    for r in rows:
        allowed = (mask[r, cols // 32] >> (cols % 32)) & 1
        x[r, :vocab][allowed == 0] = -np.inf
    return {"logits": x}


def vllm_clamp(v):
    # Python's min(100.0, max(-100.0, v)): max keeps -100 unless v > -100 (so NaN -> -100).
    lo = np.where(v > np.float32(-100), v, np.float32(-100))
    return np.where(np.float32(100) < lo, np.float32(100), lo).astype(np.float32)


def logit_bias(meta, t):
    x = logits_f32(t).copy()
    with np.errstate(invalid="ignore", over="ignore"):
        if "bias" in t:
            x = x + t["bias"]
        if "bias_rows" in t:
            rows, ids, values = t["bias_rows"], t["bias_ids"], t["bias_values"].astype(np.float32)
            if meta["profile"] == "sglang":  # a dense [B, V] of +0.0 added everywhere
                dense = np.zeros_like(x)
                dense[rows, ids] = values
                x = x + dense
            else:
                if meta["profile"] == "vllm":
                    values = vllm_clamp(values)
                x[rows, ids] = x[rows, ids] + values
    return {"logits": x.astype(np.float32)}


def allowed_token_ids(meta, t):
    x = logits_f32(t).copy()
    for r, ids in enumerate(t["allowed_ids"]):
        ids = ids[ids >= 0]
        if ids.size:  # a row without ids is unrestricted
            keep = np.zeros(x.shape[1], dtype=bool)
            keep[ids] = True
            x[r, ~keep] = -np.inf
    return {"logits": x}


def draw_inverse_cdf(meta, t, draws, seed):
    probs = t["probs"].astype(np.float64)
    rng = np.random.default_rng(seed)
    counts = np.zeros(probs.shape, dtype=np.int64)
    for r in range(probs.shape[0]):
        counts[r] = rng.multinomial(draws, probs[r] / probs[r].sum())
    return {"counts": counts}


STAGES = {
    "greedy": (greedy, ["canonical"]),
    "token_bitmask": (token_bitmask, ["canonical"]),
    "logit_bias": (logit_bias, ["canonical", "vllm", "sglang"]),
    "allowed_token_ids": (allowed_token_ids, ["canonical", "vllm"]),
}
DRAWS = {"inverse_cdf": draw_inverse_cdf}


def main(cases_dir, responses_dir):
    cases_dir, responses_dir = Path(cases_dir), Path(responses_dir)
    manifest = json.loads((cases_dir / "manifest.json").read_text())
    if manifest.get("format") != "sampcheck-exchange" or manifest.get("format_version") != 1:
        sys.exit(f"{cases_dir}/manifest.json: not a sampcheck-exchange version 1 manifest")
    if manifest["request"] == "describe":
        description = {"name": "example-python-numpy",
                       "stages": {name: profiles for name, (_, profiles) in STAGES.items()},
                       "count_draws": sorted(DRAWS)}
        (responses_dir / "backend.json").write_text(json.dumps(description, indent=2) + "\n")
        return
    for entry in manifest["cases"]:
        stem = Path(entry["file"]).stem
        try:
            meta_text, tensors = read_safetensors(cases_dir / entry["file"])
            meta = json.loads(meta_text["sampcheck.case"])
            inputs = {name[3:]: arr for name, arr in tensors.items() if name.startswith("in.")}
            if "draws" in entry:
                outputs = DRAWS[entry["stage"]](meta, inputs, entry["draws"], entry["seed"])
            else:
                outputs = STAGES[entry["stage"]][0](meta, inputs)
            write_safetensors(responses_dir / f"{stem}.safetensors", {"out." + k: v for k, v in outputs.items()})
        except Exception as e:  # the case fails with this message; the others go on
            (responses_dir / f"{stem}.error").write_text(f"{type(e).__name__}: {e}\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: backend.py CASES_DIR RESPONSES_DIR")
    main(sys.argv[1], sys.argv[2])
