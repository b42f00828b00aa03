#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""NumPy-only safetensors reader/writer for interoperability tests with core/safetensors.h.

Implements the format of huggingface/safetensors (docs/spec/safetensors.md) without the
safetensors package: u64 little-endian header length N, N bytes of UTF-8 JSON, data.

  safetensors_interop.py write OUT   write KNOWN (one tensor of each dtype) to OUT, with the
                                     Python writer's layout (header padded with spaces to 8)
  safetensors_interop.py check IN    read IN (written by the C++ writer) and check that it
                                     holds exactly KNOWN, packed and padded as the spec says

Exit status 0 on success, 1 on a mismatch, 3 when NumPy is missing (run ci/setup.sh).
tests/safetensors_test.cc (SafetensorsInterop suite) runs both directions with the same KNOWN
values spelled out in C++.
"""

import json
import struct
import sys

try:
    import numpy as np
except ImportError:  # pragma: no cover - environment problem, reported to the C++ test
    sys.stderr.write(
        f"safetensors_interop.py: numpy is not importable by {sys.executable}; "
        "run ci/setup.sh to install python3-numpy\n")
    sys.exit(3)

# safetensors dtype -> NumPy dtype (little-endian). BF16 has no NumPy type: its words are
# read as uint16 and widened to float32 by shifting into the top half.
NUMPY_DTYPES = {
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "F64": np.dtype("<f8"),
    "BF16": np.dtype("<u2"),
    "I32": np.dtype("<i4"),
    "I64": np.dtype("<i8"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}


def bf16_to_f32(words):
    return (words.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16_exact(values):
    """Top halves of float32 values that are exactly representable in bf16."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    if np.any(bits & 0xFFFF):
        raise ValueError("value not exactly representable in bf16")
    return (bits >> 16).astype(np.uint16)


def read_safetensors(path):
    """Returns ({name: (dtype, shape, ndarray)}, metadata). BF16 arrays are uint16 words."""
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise ValueError(f"{path}: shorter than 8 bytes")
    (n,) = struct.unpack("<Q", blob[:8])
    if 8 + n > len(blob):
        raise ValueError(f"{path}: header length {n} beyond file")
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    data = blob[8 + n:]
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, entry in header.items():
        dt = NUMPY_DTYPES[entry["dtype"]]
        shape = tuple(entry["shape"])
        begin, end = entry["data_offsets"]
        arr = np.frombuffer(data[begin:end], dtype=dt).reshape(shape)
        tensors[name] = (entry["dtype"], shape, arr)
    return tensors, metadata, n, header


def write_safetensors(path, tensors, metadata=None):
    """tensors: {name: (safetensors dtype, ndarray)}; the Python writer's convention:
    tensors in name order, data packed, header padded with spaces to a multiple of 8."""
    header = {}
    if metadata:
        header["__metadata__"] = dict(metadata)
    chunks = []
    offset = 0
    for name in sorted(tensors):
        dtype, arr = tensors[name]
        raw = np.ascontiguousarray(arr, dtype=NUMPY_DTYPES[dtype]).tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for c in chunks:
            f.write(c)


# The known tensors. The same values are spelled out in tests/safetensors_test.cc
# (KnownInteropTensors), with the bit patterns derived from the IEEE definitions there.
KNOWN = {
    "f32": ("F32", np.array([[1.0, -2.5], [np.inf, -0.0]], dtype="<f4")),
    "f16": ("F16", np.array([1.0, -2.0, 65504.0, 2.0 ** -24], dtype="<f2")),
    "bf16": ("BF16", f32_to_bf16_exact([1.0, -2.0, 0.5])),
    "i32": ("I32", np.array([-1, 2 ** 31 - 1, -2 ** 31], dtype="<i4")),
    "i64": ("I64", np.array([-2 ** 63, 2 ** 63 - 1], dtype="<i8")),
    "u8": ("U8", np.array([0, 255, 7], dtype="u1")),
    "bool": ("BOOL", np.array([True, False, True], dtype="?")),
    "scalar": ("I64", np.array(-1, dtype="<i8")),            # shape []
    "empty": ("F32", np.zeros((0, 3), dtype="<f4")),         # shape [0, 3]
}
KNOWN_METADATA = {"producer": "sampcheck interop", "quote": "a \"b\" \\ c"}


def check(path):
    tensors, metadata, header_len, raw_header = read_safetensors(path)
    errors = []
    if header_len % 8 != 0:
        errors.append(f"header length {header_len} is not a multiple of 8")
    if metadata != KNOWN_METADATA:
        errors.append(f"metadata {metadata!r} != {KNOWN_METADATA!r}")
    if set(tensors) != set(KNOWN):
        errors.append(f"tensor names {sorted(tensors)} != {sorted(KNOWN)}")
    # Packed in name order: offsets are contiguous from 0 in sorted-name order.
    offset = 0
    for name in sorted(raw_header):
        begin, end = raw_header[name]["data_offsets"]
        if begin != offset:
            errors.append(f"{name}: begins at {begin}, expected {offset} (packed, name order)")
        offset = end
    for name, (dtype, want) in KNOWN.items():
        if name not in tensors:
            continue
        got_dtype, shape, arr = tensors[name]
        if got_dtype != dtype:
            errors.append(f"{name}: dtype {got_dtype} != {dtype}")
            continue
        if shape != want.shape:
            errors.append(f"{name}: shape {shape} != {want.shape}")
            continue
        # Compare bit patterns (so -0.0 and inf are checked exactly).
        if arr.tobytes() != np.ascontiguousarray(want, dtype=NUMPY_DTYPES[dtype]).tobytes():
            errors.append(f"{name}: values {arr!r} != {want!r}")
    # bf16 read as the spec says: words shifted into the top half of a float32.
    if "bf16" in tensors and tensors["bf16"][0] == "BF16":
        values = bf16_to_f32(tensors["bf16"][2])
        if not np.array_equal(values, np.array([1.0, -2.0, 0.5], dtype="<f4")):
            errors.append(f"bf16 widened to {values!r}")
    for e in errors:
        sys.stderr.write(f"{path}: {e}\n")
    return 0 if not errors else 1


def main(argv):
    if len(argv) != 3 or argv[1] not in ("write", "check"):
        sys.stderr.write("usage: safetensors_interop.py write OUT | check IN\n")
        return 2
    if argv[1] == "write":
        write_safetensors(argv[2], KNOWN, KNOWN_METADATA)
        return 0
    return check(argv[2])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
