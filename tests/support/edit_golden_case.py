#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Makes a hostile golden set for tests/hostile_input_test.sh: copies one case of SRC_SET into
OUT_SET as a one-case set, with its "sampcheck.case" metadata or tensors edited as EDIT says,
and a manifest whose SHA-256 and comparison match the edited file (so only the edit is wrong).
Standard library only.

Usage: edit_golden_case.py SRC_SET CASE_ID OUT_SET EDIT
  comparison=RULE     set the metadata's comparison (and the manifest's) to RULE
  extra_input=NAME    add an in.NAME tensor (a copy of in.logits)
  extra_param=NAME    add the parameter NAME = 1
"""
import hashlib
import json
import struct
import sys
from pathlib import Path


def main(src, case_id, out, edit):
    src, out = Path(src), Path(out)
    manifest = json.loads((src / "manifest.json").read_text())
    entry = next(c for c in manifest["cases"] if c["id"] == case_id)
    raw = (src / entry["file"]).read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    meta = json.loads(header["__metadata__"]["sampcheck.case"])
    key, value = edit.split("=", 1)
    if key == "comparison":
        meta["comparison"] = value
        entry["comparison"] = value
    elif key == "extra_param":
        meta.setdefault("params", {})[value] = 1
    elif key == "extra_input":
        logits = header["in.logits"]
        begin, end = logits["data_offsets"]
        header["in." + value] = {"dtype": logits["dtype"], "shape": logits["shape"],
                                 "data_offsets": [len(data), len(data) + end - begin]}
        data += data[begin:end]
    else:
        sys.exit(f"unknown edit {edit}")
    header["__metadata__"]["sampcheck.case"] = json.dumps(meta, sort_keys=True, separators=(",", ":"))
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    new = struct.pack("<Q", len(text)) + text + data
    path = out / entry["file"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(new)
    entry["sha256"] = hashlib.sha256(new).hexdigest()
    manifest["cases"] = [entry]
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
