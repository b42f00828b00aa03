#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/device_report.py on a hand-made Google Benchmark JSON (bench/README.md "Device"): the
cost model's column takes the estimate of the repetitions (their median aggregate), not the
stddev or cv aggregates that Google Benchmark also writes with every counter (their model_us is
the spread of a constant, 0); the times are the medians of the repetitions; greedy rows are
read against the copy's bandwidth, not as a worst case, and the stage kernels' rows against the
copy, not as worst cases either. Standard library only.
"""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import device_report  # noqa: E402

NAME = "BM_DeviceFast/B:64/V:128256/minp:0/case:0/manual_time"


def entry(run_type, aggregate, us, model_us):
    e = {"name": NAME, "run_name": NAME, "run_type": run_type, "real_time": us, "time_unit": "us",
         "model_us": model_us, "row_passes": 2.0, "barriers": 11.0}
    if aggregate:
        e["aggregate_name"] = aggregate
    return e


def median(name, us):
    """A median aggregate of `name` at `us` microseconds, without counters."""
    return {"name": name, "run_name": name, "run_type": "aggregate", "aggregate_name": "median",
            "real_time": us, "time_unit": "us"}


def report(benchmarks):
    """device_report's output for a benchmark JSON of these entries."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"context": {"date": "test"}, "benchmarks": benchmarks}, f)
    out = io.StringIO()
    try:
        with redirect_stdout(out):
            device_report.main(f.name)
    finally:
        os.unlink(f.name)
    return out.getvalue()


class DeviceReportTest(unittest.TestCase):
    def test_model_column_uses_the_estimate_not_its_spread(self):
        benchmarks = [entry("iteration", None, us, 40.0) for us in (100.0, 120.0, 110.0)]
        benchmarks += [entry("aggregate", "mean", 110.0, 40.0), entry("aggregate", "median", 110.0, 40.0),
                       entry("aggregate", "stddev", 10.0, 0.0), entry("aggregate", "cv", 0.09, 0.0)]
        # measured 110 (the median) over the model's 40: 2.75 by hand.
        self.assertIn("| Fast | 64 | 128256 | off | typical | 110.0 | 40.0 | 2.75 | 2.00 | 11 |", report(benchmarks))

    def test_greedy_rows_are_read_against_the_copys_bandwidth(self):
        benchmarks = [median("BM_DeviceCopyBaseline/B:64/V:128256/minp:0/case:0/manual_time", 21.0),
                      median("BM_DeviceDeterministic/B:64/V:128256/minp:0/case:5/manual_time", 15.0),
                      median("BM_DeviceFast/B:64/V:128256/minp:0/case:5/manual_time", 30.0)]
        # By hand: 64 x 128256 x 4 B = 0.032833536 GB; read in 15 us: 2189 GB/s, in 30 us: 1094
        # GB/s; the copy moves twice the bytes in 21 us, so 21 / (2 x 15) = 0.70 and 21 / 60 = 0.35
        # of its bandwidth. Greedy is not a worst case: no row of the worst-case table.
        text = report(benchmarks)
        self.assertIn("| 64 | 128256 | 21.0 | 15.0 | 30.0 | 2189 | 1094 | 0.70 | 0.35 |", text)
        self.assertNotIn("x typical", text)

    def test_stage_rows_are_read_against_the_copy(self):
        benchmarks = [median("BM_DeviceCopyBaseline/B:64/V:128256/minp:0/case:0/manual_time", 21.0),
                      median("BM_DeviceStage/B:64/V:128256/stage:1/manual_time", 42.0),
                      median("BM_DeviceStage/B:64/V:128256/stage:0/manual_time", 84.0)]
        # By hand: 21 / 42 = 0.50 (top_k), 21 / 84 = 0.25 (softmax). Stage 1 is not "flat rows".
        text = report(benchmarks)
        self.assertIn("| 64 | 128256 | top_k 50 | 21.0 | 42.0 | 0.50 |", text)
        self.assertIn("| 64 | 128256 | softmax | 21.0 | 84.0 | 0.25 |", text)
        self.assertNotIn("x typical", text)


if __name__ == "__main__":
    unittest.main()
