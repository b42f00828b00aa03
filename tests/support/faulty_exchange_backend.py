#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A deliberately faulty exec backend for tests/exchange_backend_test.cc: runs the NumPy example
backend (examples/python_backend/backend.py), then spoils its responses as MODE says.

Usage: faulty_exchange_backend.py MODE CASES_DIR RESPONSES_DIR
  bad_counts  add one draw to row 0 of every out.counts (the row no longer sums to N)
  no_prefix   store every output without its "out." prefix
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python_backend"))
import backend  # noqa: E402


def main(mode, cases_dir, responses_dir):
    backend.main(cases_dir, responses_dir)
    for path in sorted(Path(responses_dir).glob("*.safetensors")):
        _, tensors = backend.read_safetensors(path)
        if mode == "bad_counts":
            if "out.counts" in tensors:
                counts = tensors["out.counts"].copy()
                counts[0, 0] += 1
                tensors["out.counts"] = counts
        elif mode == "no_prefix":
            tensors = {name[4:]: t for name, t in tensors.items()}
        else:
            sys.exit(f"unknown mode {mode}")
        path.unlink()
        backend.write_safetensors(path, tensors)


if __name__ == "__main__":
    main(*sys.argv[1:])
