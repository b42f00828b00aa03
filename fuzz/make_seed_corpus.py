#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/TARGET/, docs/fuzzing.md) from
golden/v1 and tests/data/reports: one case file of every stage (the smallest), a manifest cut to
its first cases, the report fixtures, exchange responses for the targets' fixed greedy case,
and plugin output records. Findings are added to the same folders by hand, named
finding-<what>. Standard library only. Usage: make_seed_corpus.py (from the source root)."""
import json
import shutil
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "fuzz" / "corpus"


def safetensors(tensors, metadata=None):
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    offset, data = 0, b""
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        data += raw
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def put(target, name, data):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def main():
    for target in ("safetensors", "case", "manifest", "report", "exchange_response", "plugin_output"):
        shutil.rmtree(OUT / target, ignore_errors=True)
    golden = ROOT / "golden" / "v1"
    manifest = json.loads((golden / "manifest.json").read_text())
    smallest = {}
    for c in manifest["cases"]:
        size = (golden / c["file"]).stat().st_size
        if c["stage"] not in smallest or size < smallest[c["stage"]][0]:
            smallest[c["stage"]] = (size, c["file"])
    for stage, (size, file) in sorted(smallest.items()):
        if size > 16384:
            continue
        raw = (golden / file).read_bytes()
        put("safetensors", stage + ".safetensors", raw)
        put("case", stage + ".safetensors", raw)
    cut = dict(manifest, cases=manifest["cases"][:6])
    put("manifest", "manifest_6_cases.json", (json.dumps(cut, indent=2) + "\n").encode())
    for report in sorted((ROOT / "tests" / "data" / "reports").glob("*.json")):
        put("report", report.name, report.read_bytes())
    # Exchange responses for fuzz/exchange_response_fuzz.cc's case (greedy, logits [2, 3]):
    # first byte 0 = run request, 1 = draw request of 10 draws.
    put("exchange_response", "run_token", b"\0" + safetensors({"out.token": ("I64", [2], struct.pack("<2q", 1, 2))}))
    put("exchange_response", "run_wrong_shape", b"\0" + safetensors({"out.token": ("I64", [3], struct.pack("<3q", 1, 2, 0))}))
    put("exchange_response", "draw_counts", b"\1" + safetensors({"out.counts": ("I64", [2, 3], struct.pack("<6q", 3, 3, 4, 0, 0, 10))}))
    put("exchange_response", "draw_bad_sum", b"\1" + safetensors({"out.counts": ("I64", [2, 3], struct.pack("<6q", 3, 3, 5, 0, 0, 10))}))
    # Plugin output records of fuzz/plugin_output_fuzz.cc: flags u8, dtype i32, ndim i32,
    # 8 extents i64, nbytes u64, data.
    def record(dtype, shape, data, flags=0):
        extents = list(shape) + [0] * (8 - len(shape))
        return struct.pack("<Bii8qQ", flags, dtype, len(shape), *extents, len(data)) + data
    put("plugin_output", "i64_token_2", record(4, [2], struct.pack("<2q", 7, 9)))
    put("plugin_output", "f32_2x3", record(0, [2, 3], struct.pack("<6f", 0, 1, 2, 3, 4, 5)))
    put("plugin_output", "bool_scalar", record(6, [], b"\1"))
    put("plugin_output", "empty", record(3, [0, 5], b""))
    put("plugin_output", "null_shape", record(4, [2], struct.pack("<2q", 7, 9), flags=1))
    put("plugin_output", "null_data", record(4, [2], struct.pack("<2q", 7, 9), flags=2))


if __name__ == "__main__":
    main()
