#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Side-by-side verdicts of several `sampcheck conform` reports (docs/spec/report.md), per stage
and profile, for docs/peers/flashinfer.md "Verdicts". ci/device.sh peers runs it on the reports
of the FlashInfer plugin (deterministic true and false), gpu and gpu-fast.

    verdict_table.py LABEL=path/report.json [LABEL=path/report.json ...]

Prints a Markdown table (one row per stage and profile; batch-invariance cases are counted under
"batch_invariance of <stage>"; each cell "pass/fail/skip"), then every failing case of every
report with its reason, so that each failure can be classified in the page. A missing or
incomplete report is named in the output, never silently left out.
"""
import json
import sys
from collections import defaultdict


def row_key(case):
    stage, profile = case["stage"], case["profile"]
    if stage == "batch_invariance":  # id batch_invariance/<stage>/<name>/<profile>
        parts = case["id"].split("/")
        stage = "batch_invariance of " + (parts[1] if len(parts) > 1 else "?")
    return stage, profile


def main(argv):
    if len(argv) < 2 or any("=" not in a for a in argv[1:]):
        sys.exit(__doc__)
    reports = []
    for arg in argv[1:]:
        label, path = arg.split("=", 1)
        try:
            with open(path, encoding="utf-8") as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            print(f"- `{label}`: no report ({path}: {e})")
            report = None
        reports.append((label, report))
    counts = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for label, report in reports:
        if report is None:
            continue
        if not report.get("complete", False):
            print(f"- `{label}`: the report is incomplete (the run was cut short)")
        for case in report.get("cases", []):
            index = {"pass": 0, "fail": 1, "skip": 2}[case["verdict"]]
            counts[row_key(case)][label][index] += 1
    labels = [label for label, _ in reports]
    print()
    print("| stage | profile | " + " | ".join(f"{label} (pass/fail/skip)" for label in labels) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in labels) + " |")
    for (stage, profile) in sorted(counts):
        cells = []
        for label in labels:
            c = counts[(stage, profile)].get(label)
            cells.append("/".join(str(n) for n in c) if c else "-")
        print(f"| {stage} | {profile} | " + " | ".join(cells) + " |")
    for label, report in reports:
        if report is None:
            continue
        failures = [c for c in report.get("cases", []) if c["verdict"] == "fail"]
        print()
        print(f"### Failures of `{label}` ({len(failures)})")
        for c in failures:
            reason = c["reason"] if len(c["reason"]) <= 400 else c["reason"][:400] + " ..."
            print(f"- `{c['id']}`: {reason}")


if __name__ == "__main__":
    main(sys.argv)
