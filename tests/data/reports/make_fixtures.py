#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Writes the hand-made report fixtures of this directory (README.md). Every number below is
# chosen by hand; nothing comes from sampcheck. Run from this directory: python3 make_fixtures.py
import copy
import json


def stat(p, padj, effect, lo, hi, mde, bins):
    labels, expected, observed = bins
    return {"layer": "L3", "test": "cressie-read(2/3)", "n": 10000, "bins": len(labels), "df": len(labels) - 1,
            "statistic": 12.5, "p_value": p, "p_adjusted": padj, "alpha": 1e-6, "mde": mde, "power": 0.99,
            "seed": 12345,
            "effect": {"name": "TV", "value": effect, "interval": [lo, hi], "level": 0.99},
            "top_bins": [{"label": labels[i], "observed": observed[i], "expected": expected[i],
                          "residual": (observed[i] - expected[i]) / expected[i] ** 0.5} for i in range(2)],
            "expected": expected, "observed": observed, "labels": labels}


# 4 bins, each table summing to n = 10000.
good = (["3", "1", "0", "pooled(5)"], [4000.0, 3000.0, 2000.0, 1000.0], [4010, 2990, 1985, 1015])
bad = (["7", "2", "4", "pooled(12)"], [5000.0, 2500.0, 1500.0, 1000.0], [5400, 2300, 1300, 1000])
nasty = 'bits differ at row 0 token 3: <b>x</b> & "q" | it\'s\nsecond line \u0001 end'
cases = [
    {"id": "greedy/edges/canonical", "stage": "greedy", "profile": "canonical", "comparison": "exact",
     "verdict": "pass", "reason": ""},
    {"id": "greedy/ties/vllm", "stage": "greedy", "profile": "vllm", "comparison": "exact", "verdict": "fail",
     "reason": nasty},
    {"id": "top_p/boundary|pipe/sglang", "stage": "top_p", "profile": "sglang", "comparison": "exact",
     "verdict": "skip", "reason": "backend 'x' does not support stage top_p"},
    {"id": "top_p/random/canonical", "stage": "top_p", "profile": "canonical", "comparison": "exact",
     "verdict": "pass", "reason": ""},
    {"id": "draws/gumbel/canonical", "stage": "draws", "profile": "canonical", "comparison": "distribution",
     "verdict": "pass", "reason": "", "statistics": stat(0.42, 1.0, 0.004, 0.001, 0.008, 0.02, good)},
    {"id": "draws/race/canonical", "stage": "draws", "profile": "canonical", "comparison": "distribution",
     "verdict": "pass", "reason": "", "statistics": stat(0.031, 0.093, 0.006, 0.002, 0.010, 0.02, good)},
    {"id": "draws/inverse_cdf/vllm", "stage": "draws_<vllm>", "profile": "vllm", "comparison": "distribution",
     "verdict": "fail", "reason": "rejected: Holm-adjusted p 4e-07 < alpha 1e-06",
     "statistics": stat(1e-7, 4e-7, 0.06, 0.05, 0.07, 0.02, bad)},
]


def doc(cases):
    stages = {}
    for c in cases:
        s = stages.setdefault(c["stage"], {"stage": c["stage"], "passed": 0, "failed": 0, "skipped": 0})
        s[{"pass": "passed", "fail": "failed", "skip": "skipped"}[c["verdict"]]] += 1
    summary = {"cases": len(cases), "passed": sum(c["verdict"] == "pass" for c in cases),
               "failed": sum(c["verdict"] == "fail" for c in cases),
               "skipped": sum(c["verdict"] == "skip" for c in cases)}
    return {"format": "sampcheck-report", "format_version": 1, "tool": {"name": "sampcheck", "version": "0.1.0"},
            "backend": "my<kernel>&co", "golden": "golden/v1", "summary": summary,
            "stages": [stages[k] for k in sorted(stages)], "cases": cases}


def write(name, cases):
    with open(name, "w") as f:
        json.dump(doc(cases), f, indent=2, sort_keys=True)
        f.write("\n")


write("mixed_run.json", cases)
# Baseline: the exact failure and the statistical rejection pass; the gumbel effect is smaller.
base = copy.deepcopy(cases)
base[1].update(verdict="pass", reason="")
base[6].update(verdict="pass", reason="", statistics=stat(0.3, 1.0, 0.005, 0.001, 0.009, 0.02, good))
base[4]["statistics"]["effect"].update(value=0.003, interval=[0.0005, 0.007])
write("baseline.json", base)
# Clean re-run: the gumbel effect grows by 0.0015 = 0.075 mde, inside the default tolerance.
clean = copy.deepcopy(base)
clean[4]["statistics"]["effect"].update(value=0.0045, interval=[0.001, 0.009])
write("clean_run.json", clean)
