#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Measure the smallest planted fault each statistical case rejects (docs/spec/harness.md,
"Smallest detected effects").

Runs `sampcheck stats` against the sized wrong samplers (harness/wrong/wrong_samplers.h:
temperature_x<t>, diffuse_tv<tau>, mass_shift_tv<tau>, leak<m>) at each size and seed epoch,
reads every report.json and counts, per case family (the case id up to its profile), the runs
in which at least one of its tests rejected. A test rejects when its raw p-value is below
alpha / M, M the number of tests with a level in the FULL run at that size (--tests, or counted
from a full run's report with --full-report): the Holm-worst level of the full run, so a test
counted here is rejected by Holm in the full run whatever else is selected (Bonferroni bound;
conservative for a subset). A structural test (alpha 0) rejects when it fails.

Example (the canonical probability stages, three CI-sized epochs of two sizes):

  harness/power_search.py --sampcheck build/default/cli/sampcheck --fault temperature_x \\
      --sizes 1.003,1.004 --epochs 0,1,2 --full-report full/report.json --out /tmp/search -- \\
      --stage exponential_race --stage inverse_cdf --stage gumbel_max --profile canonical

Prints a Markdown table (family x size: rejected runs / runs, and the layers that rejected)
and, per family, the smallest size rejected in every run. `--reference` also runs the
reference at the same epochs and reports its rejections (false alarms) the same way.
"""
import argparse
import json
import os
import subprocess
import sys


def family_of(case_id):
    # stats/<stage>/<family>/<profile>[/rowN]/<layer> -> stats/<stage>/<family>/<profile>
    parts = case_id.split("/")
    return "/".join(parts[:4]) if len(parts) >= 4 else case_id


def count_tests(report):
    """Tests with a level (alpha > 0) in a report: the M of the Holm-worst level."""
    return sum(1 for c in report["cases"] if (c.get("statistics") or {}).get("alpha", 0) > 0)


def rejections(report, alpha, tests):
    """{family: sorted layers (test names) that rejected} for one run, and the families seen."""
    level = alpha / tests
    seen, rejected = set(), {}
    for c in report["cases"]:
        s = c.get("statistics")
        if not s or c.get("verdict") == "skip":
            continue
        fam = family_of(c["id"])
        seen.add(fam)
        hit = c.get("verdict") == "fail" if s.get("alpha", 0) == 0 else s["p_value"] < level
        if hit:
            rejected.setdefault(fam, set()).add(s.get("layer", "?") + ":" + s.get("test", "?"))
    return seen, rejected


def run_stats(args, backend, epoch, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    cmd = [args.sampcheck, "stats", "--backend", backend, "--seed-epoch", str(epoch), "--report", out_dir]
    if args.thorough:
        cmd.append("--thorough")
    cmd += args.selection
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    path = os.path.join(out_dir, "report.json")
    # Exit 1 is "some case failed", expected of a wrong sampler; anything else is an error.
    if done.returncode not in (0, 1) or not os.path.exists(path):
        sys.exit(f"power_search: '{' '.join(cmd)}' exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    with open(path) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sampcheck", required=True, help="path of the sampcheck executable")
    ap.add_argument("--fault", required=True, help="sized form prefix: temperature_x, diffuse_tv, mass_shift_tv, leak")
    ap.add_argument("--sizes", required=True, help="comma-separated decimal sizes, each with a '.' or an exponent")
    ap.add_argument("--epochs", default="0", help="comma-separated seed epochs (default 0)")
    ap.add_argument("--thorough", action="store_true", help="the --thorough size")
    ap.add_argument("--alpha", type=float, default=1e-4, help="the run's family-wise alpha (default 1e-4)")
    ap.add_argument("--tests", type=int, help="M: tests with a level in the full run at this size")
    ap.add_argument("--full-report", help="a full run's report.json at this size, to count M from")
    ap.add_argument("--reference", action="store_true", help="also run the reference (false alarms)")
    ap.add_argument("--out", required=True, help="directory for the reports")
    ap.add_argument("selection", nargs="*", help="after --: the stats selection (--stage, --profile)")
    args = ap.parse_args()
    if (args.tests is None) == (args.full_report is None):
        ap.error("give exactly one of --tests and --full-report")
    if args.full_report:
        with open(args.full_report) as f:
            args.tests = count_tests(json.load(f))
    if args.tests <= 0:
        ap.error("M must be positive")
    sizes = [s for s in args.sizes.split(",") if s]
    epochs = [int(e) for e in args.epochs.split(",") if e]
    backends = [("reference", "reference")] if args.reference else []
    backends += [(s, "wrong:" + args.fault + s) for s in sizes]

    table, families = {}, set()
    for label, backend in backends:
        for epoch in epochs:
            name = backend.replace(":", "_") + f"_e{epoch}" + ("_thorough" if args.thorough else "")
            report = run_stats(args, backend, epoch, os.path.join(args.out, name))
            seen, rejected = rejections(report, args.alpha, args.tests)
            families |= seen
            for fam in seen:
                runs, hits, layers = table.get((fam, label), (0, 0, set()))
                table[(fam, label)] = (runs + 1, hits + (fam in rejected), layers | rejected.get(fam, set()))
            print(f"{backend} epoch {epoch}: {len(rejected)} of {len(seen)} families rejected", file=sys.stderr)

    labels = [label for label, _ in backends]
    size_name = "thorough" if args.thorough else "CI"
    print(f"Rejected at raw p < {args.alpha:g} / {args.tests} ({size_name} size, epochs {args.epochs}), "
          f"fault {args.fault}<size>:\n")
    print("| family | " + " | ".join(labels) + " | smallest rejected in every run |")
    print("| --- | " + " | ".join("---" for _ in labels) + " | --- |")
    for fam in sorted(families):
        cells, smallest = [], "none"
        for label in labels:
            runs, hits, layers = table.get((fam, label), (0, 0, set()))
            cells.append(f"{hits}/{runs}" + (f" ({', '.join(sorted(layers))})" if layers else "") if runs else "—")
        for size in sorted(sizes, key=lambda s: abs(float(s) - (1.0 if args.fault == "temperature_x" else 0.0))):
            runs, hits, _ = table.get((fam, size), (0, 0, set()))
            if runs and hits == runs:
                smallest = size
                break
        print(f"| `{fam}` | " + " | ".join(cells) + f" | {smallest} |")


if __name__ == "__main__":
    main()
