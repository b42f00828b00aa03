#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/timeline_report.py on hand-made timeline lines (gpu/block/device_timeline.h): the
critical block is the one of the most cycles; counted and measured intervals side by side when
their numbers agree, with the median over the blocks of that many intervals and the line
cycles = a + b x accesses (exact here: the cycles were made as 100 + 100 x accesses); the
device's intervals alone when the numbers differ; a launch that recorded nothing; a line that is
not JSON. Standard library only.
"""

import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import timeline_report  # noqa: E402


def run(records, raw=None):
    """(exit code, output) of timeline_report.main on a file of these records."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
        if raw is not None:
            f.write(raw)
    out = io.StringIO()
    try:
        code = timeline_report.main(f.name, out)
    finally:
        os.unlink(f.name)
    return code, out.getvalue()


def record(model, blocks):
    return {"name": "BM_DeviceFast/B:1/V:128256/minp:0/case:0/manual_time", "mode": "gpu-fast", "rows": 1,
            "vocab": 128256, "clock_khz": 1980000, "model": model, "blocks": blocks}


class TimelineReportTest(unittest.TestCase):
    def test_counted_and_measured_side_by_side(self):
        model = [{"kernel": "fast_sampling_slices", "critical_intervals": [5, 10, 1]}]
        blocks = [{"block": 0, "ns": 10, "truncated": False, "cycles": [10, 10, 10]},
                  {"block": 1, "ns": 950, "truncated": False, "cycles": [600, 1100, 200]}]
        code, out = run([record(model, blocks)])
        self.assertEqual(code, 0)
        self.assertIn("critical block 1 of 2 recorded: 3 intervals, 1900 cycles, 0.9 us (2000 MHz effective)", out)
        self.assertIn("| 0 | 5 | 600 | 305 | 120 |", out)  # median of 600 and 10
        self.assertIn("| 1 | 10 | 1100 | 555 | 110 |", out)
        self.assertIn("| 2 | 1 | 200 | 105 | 200 |", out)
        self.assertIn("fit: cycles = 100 + 100.0 x accesses over 3 intervals (counted 16 accesses)", out)
        self.assertIn("largest: 1: 1100 (58%), 0: 600 (32%), 2: 200 (11%)", out)
        # The pooled line: the same three intervals; at 2000 MHz, 100 cycles are 0.05 us.
        self.assertIn("fit: cycles = 100 + 100.0 x accesses over 3 intervals; at 2000 MHz: 0.050 us an interval, "
                      "50.0 ns an access", out)

    def test_the_pooled_line_takes_every_benchmark(self):
        # Two benchmarks on the line cycles = 40 + 20 x accesses, at 1000 and 2000 MHz (median 1500).
        model = [{"kernel": "k", "critical_intervals": [1, 3]}]
        one = record(model, [{"block": 0, "ns": 160, "truncated": False, "cycles": [60, 100]}])
        two = record([{"kernel": "k", "critical_intervals": [2, 5]}],
                     [{"block": 0, "ns": 110, "truncated": False, "cycles": [80, 140]}])
        code, out = run([one, two])
        self.assertEqual(code, 0)
        self.assertIn("fit: cycles = 40 + 20.0 x accesses over 4 intervals; at 1500 MHz: 0.027 us an interval, "
                      "13.3 ns an access", out)

    def test_different_interval_counts_are_not_compared(self):
        model = [{"kernel": "a", "critical_intervals": [1]},
                 {"kernel": "fast_sampling", "critical_intervals": [4, 4]}]
        blocks = [{"block": 3, "ns": 100, "truncated": True, "cycles": [7, 8, 9]}]
        code, out = run([record(model, blocks)])
        self.assertEqual(code, 0)
        self.assertIn("the model counted 2 launches; the timeline holds the last one's blocks", out)
        self.assertIn("the counted critical block has 2 intervals, the device's 3: not compared", out)
        self.assertIn("[truncated", out)
        self.assertIn("| 2 | 9 | 9 |", out)
        self.assertNotIn("fit:", out)

    def test_no_model_and_no_block(self):
        code, out = run([record(None, [{"block": 0, "ns": 5, "truncated": False, "cycles": [3]}]),
                         record(None, [])])
        self.assertEqual(code, 0)
        self.assertIn("| 0 | 3 | 3 |", out)
        self.assertIn("no block recorded a timeline", out)

    def test_a_line_that_is_not_json_fails(self):
        code, _ = run([], raw="{not json\n")
        self.assertEqual(code, 1)


if __name__ == "__main__":
    unittest.main()
