#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Prints time(benchmark) / time(baseline) for every benchmark in Google Benchmark JSON.

Usage:
  sampcheck_bench --benchmark_format=json > out.json
  /usr/bin/python3 bench/ratios.py out.json [--clock real|cpu]

Pairing rule: a benchmark named BM_<Stage>Baseline is the baseline of stage <Stage>; every
other benchmark BM_<Name> is divided by the baseline whose <Stage> is the longest prefix of
<Name> (so BM_LogitBiasDenseCanonical pairs with BM_LogitBiasDenseBaseline and
BM_LogitBiasSparseVllm with BM_LogitBiasBaseline). Benchmarks with no baseline are listed as
unpaired. With --benchmark_repetitions the median aggregate is used, otherwise the mean of the
iteration runs of that name. Ratios are only meaningful within one run (same machine, same
load); absolute times are not reported on purpose. Standard library only.
"""

import argparse
import json
import statistics
import sys

BASELINE_SUFFIX = "Baseline"
TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def base_name(entry):
    """The benchmark's registered name, without /real_time and aggregate suffixes."""
    name = entry.get("run_name") or entry["name"]
    return name.split("/")[0]


def load_times(path, clock):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    key = clock + "_time"
    medians, runs, order = {}, {}, []
    for entry in data.get("benchmarks", []):
        if entry.get("error_occurred"):
            continue
        name = base_name(entry)
        if name not in order:
            order.append(name)
        t = entry[key] * TIME_UNIT_NS[entry.get("time_unit", "ns")]
        if entry.get("run_type") == "aggregate":
            if entry.get("aggregate_name") == "median":
                medians[name] = t
        else:
            runs.setdefault(name, []).append(t)
    times = {n: medians[n] if n in medians else statistics.mean(runs[n])
             for n in order if n in medians or n in runs}
    return times, [n for n in order if n in times], data.get("context", {})


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json_file")
    parser.add_argument("--clock", choices=("real", "cpu"), default="real",
                        help="which Google Benchmark time to divide (default: real)")
    args = parser.parse_args(argv)
    times, order, context = load_times(args.json_file, args.clock)

    stages = {n[len("BM_"):-len(BASELINE_SUFFIX)]: n
              for n in order if n.startswith("BM_") and n.endswith(BASELINE_SUFFIX)}
    rows, unpaired = [], []
    for name in order:
        if name in stages.values():
            continue
        body = name[len("BM_"):] if name.startswith("BM_") else name
        matches = [s for s in stages if body.startswith(s)]
        if not matches:
            unpaired.append(name)
            continue
        baseline = stages[max(matches, key=len)]
        rows.append((name, baseline, times[name] / times[baseline]))

    print(f"# time(benchmark) / time(baseline), {args.clock} time, "
          f"{context.get('num_cpus', '?')} CPUs, {context.get('date', '')}")
    width = max((len(r[0]) for r in rows), default=9)
    bwidth = max((len(r[1]) for r in rows), default=8)
    print(f"{'benchmark':<{width}}  {'baseline':<{bwidth}}  ratio")
    for name, baseline, ratio in rows:
        print(f"{name:<{width}}  {baseline:<{bwidth}}  {ratio:6.2f}")
    for name in unpaired:
        print(f"{name:<{width}}  (no baseline)")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
