#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads the device timeline that sampcheck_device_bench appends with SAMPCHECK_BENCH_TIMELINE=FILE
(one JSON line per benchmark; gpu/block/device_timeline.h) and prints, per benchmark, where the
critical block's time went, barrier interval by barrier interval, beside the emulator's count of
the same interval (docs/gpu.md "Cost model", "Device timeline"):

- the critical block is the recorded block whose intervals take the most cycles in all (the
  block the launch waits for; a split row's merging block);
- when the model ran and the last launch's counted critical block has as many intervals as the
  device block, each row gives interval i's counted accesses (the longest thread's), its cycles
  on the device, and the median cycles of interval i over the blocks with that many intervals;
  otherwise the device's intervals alone, with the two counts;
- a least-squares line through the intervals, cycles = a + b x accesses (a: what an interval
  costs beyond its counted accesses, the barrier and what the count does not see; b: cycles a
  counted access), and the five intervals that took the most cycles;
- last, the same line through the compared intervals of every benchmark together, and a and
  b in seconds at the critical blocks' effective clock: the cost model's barrier_s and
  access_s (gpu/cost/cost_model.h) as the intervals measure them.
The clock is the SM clock (clock64); the effective rate is the critical block's cycles over its
ns by the global timer. Standard library only.

Usage: python3 bench/timeline_report.py timeline.jsonl
"""

import json
import statistics
import sys


def fit(xs, ys):
    """(a, b) of the least-squares line y = a + b x; b = 0 when every x is equal."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0
    return my - b * mx, b


def critical_block(blocks):
    return max(blocks, key=lambda b: (sum(b["cycles"]), -b["block"]))


def report(record, out, pooled):
    """Prints one benchmark; appends its compared (accesses, cycles, MHz) to pooled."""
    name = record["name"].replace("/manual_time", "")
    blocks = [b for b in record.get("blocks", []) if b.get("cycles")]
    print(f"## {name} ({record['mode']})", file=out)
    if not blocks:
        print("no block recorded a timeline", file=out)
        return
    crit = critical_block(blocks)
    cycles = crit["cycles"]
    total = sum(cycles)
    rate = total / crit["ns"] * 1e3 if crit.get("ns") else 0.0
    print(f"critical block {crit['block']} of {len(blocks)} recorded: {len(cycles)} intervals, {total} cycles, "
          f"{crit.get('ns', 0) / 1e3:.1f} us ({rate:.0f} MHz effective)"
          + (" [truncated: more barriers than the timeline holds]" if crit.get("truncated") else ""), file=out)
    model = record.get("model") or []
    counted = model[-1]["critical_intervals"] if model else []
    if len(model) > 1:
        print(f"the model counted {len(model)} launches; the timeline holds the last one's blocks", file=out)
    same = [b["cycles"] for b in blocks if len(b["cycles"]) == len(cycles)]
    median = [statistics.median(c[i] for c in same) for i in range(len(cycles))]
    if counted and len(counted) == len(cycles):
        print("", file=out)
        print("| interval | counted accesses | cycles | median cycles | cycles / access |", file=out)
        print("| --- | --- | --- | --- | --- |", file=out)
        for i, (a, c) in enumerate(zip(counted, cycles)):
            per = f"{c / a:.0f}" if a else "-"
            print(f"| {i} | {a} | {c} | {median[i]:.0f} | {per} |", file=out)
        a, b = fit(counted, cycles)
        print(f"\nfit: cycles = {a:.0f} + {b:.1f} x accesses over {len(cycles)} intervals "
              f"(counted {sum(counted)} accesses)", file=out)
        pooled.extend((x, y, rate) for x, y in zip(counted, cycles))
    else:
        if model:
            print(f"the counted critical block has {len(counted)} intervals, the device's {len(cycles)}: "
                  "not compared", file=out)
        print("", file=out)
        print("| interval | cycles | median cycles |", file=out)
        print("| --- | --- | --- |", file=out)
        for i, c in enumerate(cycles):
            print(f"| {i} | {c} | {median[i]:.0f} |", file=out)
    top = sorted(range(len(cycles)), key=lambda i: (-cycles[i], i))[:5]
    print("largest: " + ", ".join(f"{i}: {cycles[i]} ({100 * cycles[i] / total:.0f}%)" for i in top) + "\n",
          file=out)


def main(path, out=sys.stdout):
    pooled = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as e:
                print(f"{path}:{n}: not a JSON line ({e})", file=sys.stderr)
                return 1
            report(record, out, pooled)
    if pooled:
        a, b = fit([p[0] for p in pooled], [p[1] for p in pooled])
        rates = [p[2] for p in pooled if p[2] > 0]
        mhz = statistics.median(rates) if rates else 0.0
        line = f"## all compared intervals\n\nfit: cycles = {a:.0f} + {b:.1f} x accesses over {len(pooled)} intervals"
        if mhz > 0:
            line += f"; at {mhz:.0f} MHz: {a / mhz:.3f} us an interval, {b / mhz * 1e3:.1f} ns an access"
        print(line, file=out)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
