#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/interval_sites.py's driver on a stand-in for gdb that prints a hand-made table and
report: each "all:" line is followed by its critical block and one line per interval (index,
chain, site); chains that differ from the table's, a launch the report lacks, a table that
exited non-zero, a missing build and a missing gdb are errors (exit 1 or 2), never labels.
gdb itself is not needed (docs/gpu.md "Naming the intervals"). Standard library only.
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import interval_sites  # noqa: E402

TABLE = """| path | B x V | variant |
| --- | --- | --- |
| gpu-fast | 64 x 128256 | greedy |
  fast_sampling_slices: 3 intervals, path 33; largest: 0: 20 1: 8 2: 5
   all: 20 8 5
"""
SITES = ["gpu/block/block_argmax.cuh:181", "gpu/block/last_block.cuh:60", "kernel end"]


class Driver(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        os.makedirs(os.path.join(self.dir.name, "bench"))
        open(os.path.join(self.dir.name, "bench", "sampcheck_cost_table_sites"), "w").close()
        self.gdb = os.path.join(self.dir.name, "gdb")
        self.out = os.path.join(self.dir.name, "gdb.out")
        with open(self.gdb, "w") as f:
            f.write("#!/bin/sh\ncat '%s'\n" % self.out)
        os.chmod(self.gdb, 0o755)

    def tearDown(self):
        self.dir.cleanup()

    def run_driver(self, table, launches, exit_code=0, gdb=None):
        with open(self.out, "w") as f:
            f.write("Breakpoint 1 at 0x1: file emulator.cc, line 268.\n" + table)
            f.write(interval_sites.MARK + json.dumps({"exit": exit_code, "launches": launches}) + "\n")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = interval_sites.main(["--build", self.dir.name, "--gdb", gdb or self.gdb, "--rows", "64"])
        return code, out.getvalue(), err.getvalue()

    def test_labels_follow_each_launch(self):
        code, out, _ = self.run_driver(TABLE, [{"block": 1, "chains": [20, 8, 5], "sites": SITES}])
        self.assertEqual(code, 0)
        lines = out.splitlines()
        self.assertNotIn("Breakpoint", out)
        at = lines.index("   all: 20 8 5")
        self.assertEqual(lines[at + 1], "   critical block 1:")
        self.assertEqual(lines[at + 2].split(), ["0", "20", "gpu/block/block_argmax.cuh:181"])
        self.assertEqual(lines[at + 3].split(), ["1", "8", "gpu/block/last_block.cuh:60"])
        self.assertEqual(lines[at + 4].split(), ["2", "5", "kernel", "end"])

    def test_other_chains_are_an_error(self):
        code, out, err = self.run_driver(TABLE, [{"block": 1, "chains": [20, 9, 5], "sites": SITES}])
        self.assertEqual(code, 1)
        self.assertNotIn("critical block", out)
        self.assertIn("the table printed [20, 8, 5]", err)

    def test_a_block_not_found_is_an_error(self):
        code, _, _ = self.run_driver(TABLE, [{"block": -1, "chains": [20, 8, 5], "sites": []}])
        self.assertEqual(code, 1)

    def test_a_launch_missing_from_the_report_is_an_error(self):
        code, _, err = self.run_driver(TABLE, [])
        self.assertEqual(code, 1)
        self.assertIn("more launches in the table", err)

    def test_a_launch_missing_from_the_table_is_an_error(self):
        launch = {"block": 1, "chains": [20, 8, 5], "sites": SITES}
        code, _, err = self.run_driver(TABLE, [launch, launch])
        self.assertEqual(code, 1)
        self.assertIn("gdb saw 2 launches", err)

    def test_a_failed_table_is_an_error(self):
        code, _, err = self.run_driver("", [], exit_code=2)
        self.assertEqual(code, 2)
        self.assertIn("exited with 2", err)

    def test_no_report_is_an_error(self):
        with open(self.out, "w") as f:
            f.write(TABLE)
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = interval_sites.main(["--build", self.dir.name, "--gdb", self.gdb])
        self.assertEqual(code, 2)
        self.assertIn("no report", err.getvalue())

    def test_a_missing_build_or_gdb_is_an_error(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(interval_sites.main(["--build", os.path.join(self.dir.name, "none")]), 2)
        self.assertIn("--target sampcheck_cost_table_sites", err.getvalue())
        code, _, err_text = self.run_driver(TABLE, [], gdb=os.path.join(self.dir.name, "no-gdb"))
        self.assertEqual(code, 2)
        self.assertIn("gdb not found", err_text)


if __name__ == "__main__":
    unittest.main()
