#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Slow test of the `huge` golden set (docs/spec/input_classes.md "Large indices"): generates it
# into a fresh directory under $TMPDIR, verifies the reference backend against it with
# `golden verify`, and checks the expected tokens written into the case file against the
# set's closed formula, re-derived here independently of the generator (golden/huge_cases.h
# states it). The gpu-emulated backend verifies the same set. The directory is removed on every path, success, failure or signal.
#
# Usage: huge_set_test.sh SAMPCHECK_BINARY
# Needs about 13 GB of memory (the GPU glue's f32 upcast) and 4.3 GB of disk at the default size (B = 14200, V = 151936);
# SAMPCHECK_HUGE_ROWS=8 runs the same steps on a 1.2e6-element set (for testing this script).
set -euo pipefail

sampcheck="$1"
threads="${SAMPCHECK_HUGE_THREADS:-$(nproc)}"
work="$(mktemp -d "${TMPDIR:-/tmp}/sampcheck_huge.XXXXXX")"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# The case file is 4.3 GB, above the default 1 GiB cap on case files read back.
export SAMPCHECK_MAX_CASE_BYTES=8000000000

"$sampcheck" --threads "$threads" golden generate --set huge --out "$work/set"
"$sampcheck" --threads "$threads" golden verify --golden "$work/set" --backend reference
# The GPU kernel's own index math, through the checking emulator (the same kernel source the
# device runs): a 32-bit row offset would misplace the rows past element 2^31.
"$sampcheck" golden verify --golden "$work/set" --backend gpu-emulated

python3 - "$work/set" <<'PY'
# The expected tokens of every huge case against the formula: the boundary row (holding
# element 2^31, or B V / 2 + V / 3 in a small set) takes the boundary column, row B - 2 the
# lower of its two tied maxima, row B - 1 the last column, every other row (r 2654435761) mod V.
import json, struct, sys, os

root = sys.argv[1]
manifest = json.load(open(os.path.join(root, "manifest.json")))
assert manifest["generator"]["set"] == "huge", manifest["generator"]
cases = manifest["cases"]
assert [c["stage"] for c in cases] == ["greedy"], cases
for case in cases:
    path = os.path.join(root, case["file"])
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        logits, token = header["in.logits"], header["out.token"]
        assert logits["dtype"] == "BF16", logits
        rows, vocab = logits["shape"]
        assert token["dtype"] == "I64" and token["shape"] == [rows], token
        begin, end = token["data_offsets"]
        f.seek(8 + n + begin)
        tokens = struct.unpack("<%dq" % rows, f.read(end - begin))
    two31 = 1 << 31
    e = two31 if rows * vocab > two31 else rows * vocab // 2 + vocab // 3
    if rows == 14200:
        assert e == two31 and e // vocab == 14134 and e % vocab == 20224
    def expected(r):
        if r == e // vocab:
            return e % vocab
        if r == rows - 2:
            return (r * 2654435761) % vocab % (vocab // 2)
        if r == rows - 1:
            return vocab - 1
        return (r * 2654435761) % vocab
    bad = [(r, tokens[r], expected(r)) for r in range(rows) if tokens[r] != expected(r)]
    assert not bad, "%s: rows (row, token, expected) %s" % (case["id"], bad[:10])
    print("%s: %d rows, %d elements, every token as the formula" % (case["id"], rows, rows * vocab))
PY
