#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A hostile exec backend for tests/hostile_input_test.sh (docs/spec/exchange.md): declares
the greedy and softmax stages (canonical profile) and answers every "run" request as MODE says.
Standard library only, so no answer depends on the code under test.

Usage: hostile_exchange_backend.py MODE CASES_DIR RESPONSES_DIR
  fifo_response    each response is a FIFO that nobody writes
  huge_error       each case fails with a 10 MiB .error text
  bad_utf8_error   each case fails with a reason holding invalid UTF-8 and terminal escapes
  huge_response    each response is a valid safetensors header claiming out.token of
                   400,000,000 i64 (3.2 GB) over a sparse file of that size
  zero_softmax     every softmax output is all zeros (greedy: token 0)
"""
import json
import os
import struct
import sys
from pathlib import Path


def safetensors(tensors):
    """tensors: {name: (dtype, shape, bytes)} -> file bytes (writer contract of core/safetensors.h)."""
    header, offset, data = {}, 0, b""
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def read_header(path):
    raw = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8:8 + n])


def main(mode, cases_dir, responses_dir):
    cases_dir, responses_dir = Path(cases_dir), Path(responses_dir)
    manifest = json.loads((cases_dir / "manifest.json").read_text())
    if manifest["request"] == "describe":
        (responses_dir / "backend.json").write_text(json.dumps(
            {"name": "hostile-" + mode, "stages": {"greedy": ["canonical"], "softmax": ["canonical"]}}))
        return
    for case in manifest["cases"]:
        stem = responses_dir / Path(case["file"]).stem
        if mode == "fifo_response":
            os.mkfifo(str(stem) + ".safetensors")
        elif mode == "huge_error":
            with open(str(stem) + ".error", "wb") as f:
                f.write(b"E" * (10 << 20))
        elif mode == "bad_utf8_error":
            Path(str(stem) + ".error").write_bytes(b"bad \xff\xfe bytes \x1b[31mred\x1b[0m \x07 end\n")
        elif mode == "huge_response":
            count = 400_000_000
            # A valid header whose data is the hole of a sparse file (no disk, no memory).
            text = json.dumps({"out.token": {"dtype": "I64", "shape": [count], "data_offsets": [0, 8 * count]}},
                              separators=(",", ":")).encode()
            text += b" " * ((8 - len(text) % 8) % 8)
            with open(str(stem) + ".safetensors", "wb") as f:
                f.write(struct.pack("<Q", len(text)) + text)
                f.truncate(8 + len(text) + 8 * count)
        elif mode == "zero_softmax":
            header = read_header(cases_dir / case["file"])
            shape = header["in.logits"]["shape"]
            if case["stage"] == "softmax":
                out = {"out.probs": ("F32", shape, b"\0" * (4 * shape[0] * shape[1]))}
            else:
                out = {"out.token": ("I64", shape[:1], b"\0" * (8 * shape[0]))}
            Path(str(stem) + ".safetensors").write_bytes(safetensors(out))
        else:
            sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main(*sys.argv[1:])
