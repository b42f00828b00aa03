#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads sampcheck_device_bench's Google Benchmark JSON and prints, per shape (B, V, min-p),
each mode's time in microseconds, its GB/s of logits read, its fraction of the copy's
bandwidth (time of the device-to-device copy of the logits / time of the mode; 1.0 would be
a sampler as fast as reading the logits once and writing them once) and the ratios
deterministic / fast and sort / fast (bench/README.md "Device"). Medians of the repetitions
when there are several. Standard library only.

Usage: python3 bench/device_report.py bench.json
"""

import json
import statistics
import sys

MODES = ("DeviceSortBaseline", "DeviceDeterministic", "DeviceFast")


def parse(name):
    """'BM_DeviceFast/B:64/V:128256/minp:1/manual_time' -> ('DeviceFast', 64, 128256, 1)."""
    parts = name.split("/")
    args = dict(p.split(":", 1) for p in parts[1:] if ":" in p)
    return parts[0][len("BM_"):], int(args["B"]), int(args["V"]), int(args.get("minp", 0))


def main(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    runs, medians = {}, {}
    for e in data.get("benchmarks", []):
        if e.get("error_occurred"):
            continue
        key = parse(e.get("run_name") or e["name"])
        us = e["real_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[e.get("time_unit", "ns")]
        if e.get("run_type") == "aggregate":
            if e.get("aggregate_name") == "median":
                medians[key] = us
        else:
            runs.setdefault(key, []).append(us)
    t = {k: medians.get(k, statistics.median(v) if v else None) for k, v in runs.items()}
    t.update(medians)
    ctx = data.get("context", {})
    print(f"# {ctx.get('date', '')}; times in us (median), GB/s of logits read, "
          "copy = time(copy) / time(mode), det/fast and sort/fast = time ratios")
    print("| B | V | min-p | copy us | sort us | det us | fast us | det GB/s | fast GB/s | "
          "det copy | fast copy | det/fast | sort/fast |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    shapes = sorted({(b, v, m) for (n, b, v, m) in t if n in MODES})
    for b, v, m in shapes:
        copy = t.get(("DeviceCopyBaseline", b, v, 0))
        sort, det, fast = (t.get((n, b, v, m)) for n in MODES)
        gb = b * v * 4 / 1e9

        def fmt(x, spec=".1f"):
            return "-" if x is None else format(x, spec)

        def rate(x):
            return None if x is None else gb / (x * 1e-6)

        def div(x, y):
            return None if x is None or y is None else x / y

        print(f"| {b} | {v} | {'on' if m else 'off'} | {fmt(copy)} | {fmt(sort)} | {fmt(det)} | {fmt(fast)} | "
              f"{fmt(rate(det), '.0f')} | {fmt(rate(fast), '.0f')} | {fmt(div(copy, det), '.2f')} | "
              f"{fmt(div(copy, fast), '.2f')} | {fmt(div(det, fast), '.2f')} | {fmt(div(sort, fast), '.2f')} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
