#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads sampcheck_device_bench's Google Benchmark JSON and prints, per shape (B, V, min-p), each
mode's time in microseconds, its GB/s of logits read, its fraction of the copy's bandwidth (time of
the device-to-device copy of the logits / time of the mode; 1.0 would be a sampler as fast as
reading the logits once and writing them once) and the ratios deterministic / fast and sort / fast
(bench/README.md "Device"); then the cost model's estimate beside each measured time with its error
(docs/gpu.md "Cost model"); then the worst cases (flat rows, top-k V - 1, top-k off with top-p
0.999, min-p 1, min-p 1 alone, on flat rows too), each divided by the typical case of the same B and
V; then the greedy rows (temperature 0) against the copy's bandwidth: bytes of logits read per
second / the copy's bytes moved (read and written) per second, the goal's measure (at least 0.7 at B
>= 64); then the gpu backend's stage kernels (softmax, top_k, top_p, min_p) against the copy of the
same shape (each reads the logits and writes as many floats). FlashInfer's chains (the anchor, when
the benchmark was built with them) get their own columns, and each sampcheck mode is divided by
FlashInfer's top_k_first chain (the path top_k_top_p_sampling_from_logits takes for a per-row top_k
tensor) of the same shape. Medians of the repetitions when there are several. Standard library only.

Usage: python3 bench/device_report.py bench.json
"""

import json
import statistics
import sys

MODES = ("DeviceSortBaseline", "DeviceDeterministic", "DeviceFast")
FLASHINFER = ("DeviceFlashinferTopKFirst", "DeviceFlashinferJoint")
CASES = {0: "typical", 1: "flat rows", 2: "top-k V-1", 3: "top-k off, top-p 0.999", 4: "min-p 1", 5: "greedy",
         6: "min-p 1 alone", 7: "flat rows, min-p 1 alone"}
GREEDY = 5
STAGES = {0: "softmax", 1: "top_k 50", 2: "top_p 0.9", 3: "min_p 0.05"}


def parse(name):
    """'BM_DeviceFast/B:64/V:128256/minp:1/case:0/manual_time' -> ('DeviceFast', 64, 128256, 1, 0); a stage
    row's stage takes the case's place: 'BM_DeviceStage/B:64/V:128256/stage:2' -> ('DeviceStage', 64, 128256, 0, 2)."""
    parts = name.split("/")
    args = dict(p.split(":", 1) for p in parts[1:] if ":" in p)
    return (parts[0][len("BM_"):], int(args["B"]), int(args["V"]), int(args.get("minp", 0)),
            int(args.get("case", args.get("stage", 0))))


def fmt(x, spec=".1f"):
    return "-" if x is None else format(x, spec)


def div(x, y):
    return None if x is None or y is None else x / y


def main(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    runs, medians, model = {}, {}, {}
    missing = None
    for e in data.get("benchmarks", []):
        if e.get("error_occurred"):
            if e["name"].startswith("BM_DeviceFlashinferMissing"):
                missing = e.get("error_message", "")
            continue
        key = parse(e.get("run_name") or e["name"])
        us = e["real_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[e.get("time_unit", "ns")]
        # The stddev and cv aggregates carry the counters' spread (0), not the estimate.
        if "model_us" in e and e.get("aggregate_name") in (None, "median"):
            model[key] = (e["model_us"], e.get("row_passes"), e.get("barriers"))
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
    if missing is not None:
        print(f"# {missing}")
    print("# FI k-first / FI joint: FlashInfer's top_k_first and joint chains; det/FI and fast/FI divide by "
          "FI k-first")
    print("| B | V | min-p | copy us | sort us | det us | fast us | FI k-first us | FI joint us | det GB/s | "
          "fast GB/s | det copy | fast copy | det/fast | sort/fast | det/FI | fast/FI |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    shapes = sorted({(b, v, m) for (n, b, v, m, c) in t if n in MODES and c == 0})
    for b, v, m in shapes:
        copy = t.get(("DeviceCopyBaseline", b, v, 0, 0))
        sort, det, fast = (t.get((n, b, v, m, 0)) for n in MODES)
        fi_first, fi_joint = (t.get((n, b, v, m, 0)) for n in FLASHINFER)
        gb = b * v * 4 / 1e9

        def rate(x):
            return None if x is None else gb / (x * 1e-6)

        print(f"| {b} | {v} | {'on' if m else 'off'} | {fmt(copy)} | {fmt(sort)} | {fmt(det)} | {fmt(fast)} | "
              f"{fmt(fi_first)} | {fmt(fi_joint)} | "
              f"{fmt(rate(det), '.0f')} | {fmt(rate(fast), '.0f')} | {fmt(div(copy, det), '.2f')} | "
              f"{fmt(div(copy, fast), '.2f')} | {fmt(div(det, fast), '.2f')} | {fmt(div(sort, fast), '.2f')} | "
              f"{fmt(div(det, fi_first), '.2f')} | {fmt(div(fast, fi_first), '.2f')} |")

    print()
    print("# cost model (gpu/cost/cost_model.h, the device's constants: H200 fitted, else H100): estimate, measured / estimate, "
          "row passes, barriers per row")
    print("| mode | B | V | min-p | case | measured us | model us | measured/model | row passes | barriers |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(model, key=lambda k: (k[4], k[1], k[2], k[3], k[0])):
        n, b, v, m, c = key
        est, passes, barriers = model[key]
        meas = t.get(key)
        print(f"| {n[len('Device'):]} | {b} | {v} | {'on' if m else 'off'} | {CASES.get(c, c)} | {fmt(meas)} | "
              f"{fmt(est)} | {fmt(div(meas, est), '.2f')} | {fmt(passes, '.2f')} | {fmt(barriers, '.0f')} |")

    worst = sorted({(b, v, c) for (n, b, v, m, c) in t if n in MODES + FLASHINFER and c not in (0, GREEDY)})
    if worst:
        print()
        print("# worst cases: time / time of the typical case (top-k 50, top-p 0.9, min-p off) of the same B, V")
        names = MODES + FLASHINFER
        print("| B | V | case | sort us | det us | fast us | FI k-first us | FI joint us | sort x typical | "
              "det x typical | fast x typical | FI k-first x typical | FI joint x typical |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for b, v, c in worst:
            now = [t.get((n, b, v, 0, c)) for n in names]
            typical = [t.get((n, b, v, 0, 0)) for n in names]
            print(f"| {b} | {v} | {CASES.get(c, c)} | " + " | ".join(fmt(x) for x in now) + " | " +
                  " | ".join(fmt(div(x, x0), '.2f') for x, x0 in zip(now, typical)) + " |")

    greedy = sorted({(b, v) for (n, b, v, m, c) in t if n in MODES and c == GREEDY})
    if greedy:
        print()
        print("# greedy rows (temperature 0): GB/s of logits read, and that / the copy's GB/s of bytes moved "
              "(read + written): x copy bandwidth = time(copy) / (2 x time(mode))")
        print("| B | V | copy us | det us | fast us | det GB/s | fast GB/s | det x copy bandwidth | "
              "fast x copy bandwidth |")
        print("|---|---|---|---|---|---|---|---|---|")
        for b, v in greedy:
            copy = t.get(("DeviceCopyBaseline", b, v, 0, 0))
            det, fast = (t.get((n, b, v, 0, GREEDY)) for n in MODES[1:])
            gb = b * v * 4 / 1e9
            rates = [None if x is None else gb / (x * 1e-6) for x in (det, fast)]
            print(f"| {b} | {v} | {fmt(copy)} | {fmt(det)} | {fmt(fast)} | {fmt(rates[0], '.0f')} | "
                  f"{fmt(rates[1], '.0f')} | " + " | ".join(fmt(div(copy, None if x is None else 2 * x), '.2f')
                                                         for x in (det, fast)) + " |")

    stages = sorted({(b, v, c) for (n, b, v, m, c) in t if n == "DeviceStage"})
    if stages:
        print()
        print("# the gpu backend's stage kernels (canonical rules): x copy = time(copy) / time(stage), the copy of the "
              "same shape reading and writing as many floats")
        print("| B | V | stage | copy us | stage us | x copy |")
        print("|---|---|---|---|---|---|")
        for b, v, c in stages:
            copy, us = t.get(("DeviceCopyBaseline", b, v, 0, 0)), t.get(("DeviceStage", b, v, 0, c))
            print(f"| {b} | {v} | {STAGES.get(c, c)} | {fmt(copy)} | {fmt(us)} | {fmt(div(copy, us), '.2f')} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
