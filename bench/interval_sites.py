#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Names the barrier that closes each barrier interval of sampcheck_cost_table --intervals.

The cost table (bench/cost_table.cc, docs/gpu.md "Cost model") numbers each launch's barrier
intervals on the critical block and gives their chains (counted accesses), but not which code
they are. This script runs the table's -O1 build with line tables (sampcheck_cost_table_sites,
bench/CMakeLists.txt) under gdb, stops at every interval the emulator closes
(HostBlock::CloseInterval, gpu/emulator/emulator.cc), and records the source lines of the kernel
code that called the barrier (HostBlock::Sync): the innermost four frames in the project's
kernel sources, inlined frames included. After each "all:" line of the table it prints, for the
same critical block (the first block to finish with the longest path, the emulator's rule),
every interval: its index, its chain and its site ("kernel end" for the last). The chains gdb
read are checked against the table's own: a mismatch fails (exit 1) instead of printing
labels for the wrong intervals (docs/gpu.md "Naming the intervals").

    bench/interval_sites.py [--build DIR] [--gdb GDB] [cost table options]
    (--build: the build folder, build/default of this checkout by default)
    e.g. bench/interval_sites.py --variant "top-k V - 1" --rows 64 --path gpu

The build: cmake --build --preset default --target sampcheck_cost_table_sites (about a minute;
not part of the default build). Needs gdb with Python (Debian's gdb).

The same file is the gdb half: gdb imports it with -x, where the `gdb` module exists.
"""

import json
import os
import subprocess
import sys

MARK = "INTERVAL_SITES_JSON "
DEPTH = 4  # kernel frames in a site, innermost first
SKIPPED = ("/gpu/emulator/", "/gpu/runners/", "/gpu/cost/", "/bench/")


def vector_of(v):
    """A libstdc++ std::vector<std::int64_t>'s elements, read through gdb."""
    impl = v["_M_impl"]
    start, end = impl["_M_start"], impl["_M_finish"]
    return [int((start + i).dereference()) for i in range(int(end - start))]


def under_gdb():
    import gdb

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    kernels = os.path.join(root, "gpu") + os.sep
    sites = {}  # (launch serial, block index) -> the sites of its intervals so far
    finished = []  # (key, chains but the last), this launch's, in finishing order
    launches = []

    def key_of(this):
        return (int(this["launch_serial_"]), int(this["index_"]))

    def site_of(frame):
        parts = []
        while frame is not None and len(parts) < DEPTH:
            sal = frame.find_sal()
            name = sal.symtab.fullname() if sal.symtab is not None else ""
            if name.startswith(kernels) and not any(s in name for s in SKIPPED):
                parts.append("%s:%d" % (os.path.relpath(name, root), sal.line))
            frame = frame.older()
        return " < ".join(parts) if parts else "?"

    class Close(gdb.Breakpoint):  # HostBlock::CloseInterval: from Sync, or from Finish (the last)
        def stop(self):
            frame = gdb.selected_frame()
            caller = frame.older()
            by_finish = caller is not None and (caller.name() or "").endswith("Finish")
            site = "kernel end" if by_finish else site_of(caller.older() if caller is not None else None)
            sites.setdefault(key_of(frame.read_var("this")), []).append(site)
            return False

    class Finish(gdb.Breakpoint):  # HostBlock::Finish, before it closes the last interval
        def stop(self):
            this = gdb.selected_frame().read_var("this")
            finished.append((key_of(this), vector_of(this["intervals_"])))
            return False

    class Launch(gdb.Breakpoint):  # FinishCrossBlock: once a launch, after its blocks
        def stop(self):
            counters = gdb.selected_frame().read_var("report")["counters"]
            critical = vector_of(counters["critical_intervals"])
            # The emulator's critical block (the first to finish with the longest path): the
            # first whose intervals but the last (closed after Finish's stop) are the critical
            # ones, unless an earlier block counted the same up to its last.
            match = next((f for f in finished if critical and f[1] == critical[:-1]), None)
            launches.append({"block": match[0][1] if match else -1, "chains": critical,
                             "sites": sites.get(match[0], []) if match else []})
            finished.clear()
            sites.clear()
            return False

    Close("sampcheck::gpu::emu::HostBlock::CloseInterval")
    Finish("sampcheck::gpu::emu::HostBlock::Finish")
    Launch("sampcheck::gpu::emu::detail::FinishCrossBlock")
    def report(event):
        code = int(event.exit_code) if hasattr(event, "exit_code") else -1
        gdb.write(MARK + json.dumps({"exit": code, "launches": launches}) + "\n")

    gdb.events.exited.connect(report)


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build, gdb_path, rest = os.path.join(root, "build", "default"), "gdb", []
    i = 0
    while i < len(argv):
        if argv[i] in ("--build", "--gdb") and i + 1 < len(argv):
            if argv[i] == "--build":
                build = argv[i + 1]
            else:
                gdb_path = argv[i + 1]
            i += 2
        else:
            rest.append(argv[i])
            i += 1
    binary = os.path.join(build, "bench", "sampcheck_cost_table_sites")
    if not os.path.isfile(binary):
        sys.stderr.write("interval_sites: %s not found; build it with\n"
                         "  cmake --build --preset default --target sampcheck_cost_table_sites\n" % binary)
        return 2
    cmd = [gdb_path, "-q", "-batch", "-x", os.path.abspath(__file__), "-ex", "run",
           "--args", binary, "--intervals"] + rest
    try:
        run = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)  # the table's errors pass through
    except FileNotFoundError:
        sys.stderr.write("interval_sites: gdb not found (%s); Debian: apt-get install gdb\n" % gdb_path)
        return 2
    lines = run.stdout.splitlines()
    reports = [ln[len(MARK):] for ln in lines if ln.startswith(MARK)]
    if len(reports) != 1:
        sys.stderr.write("interval_sites: gdb gave no report (gdb's exit %d)\n" % run.returncode)
        return 2
    report = json.loads(reports[0])
    if report["exit"] != 0:
        sys.stderr.write("interval_sites: %s exited with %d\n" % (binary, report["exit"]))
        return 2
    launches = report["launches"]
    table = [ln for ln in lines if not ln.startswith(MARK) and not ln.startswith("[")
             and not ln.startswith("Breakpoint ") and not ln.startswith("Using host libthread_db")]
    printed = 0
    for ln in table:
        print(ln)
        if not ln.startswith("   all:"):
            continue
        chains = [int(x) for x in ln.split(":", 1)[1].split()]
        if printed >= len(launches):
            sys.stderr.write("interval_sites: more launches in the table than gdb saw\n")
            return 1
        launch = launches[printed]
        printed += 1
        if launch["chains"] != chains or len(launch["sites"]) != len(chains):
            sys.stderr.write("interval_sites: launch %d: gdb read %s with %d sites (block %d), the table printed "
                             "%s\n" % (printed, launch["chains"], len(launch["sites"]), launch["block"], chains))
            return 1
        print("   critical block %d:" % launch["block"])
        for n, (chain, site) in enumerate(zip(launch["chains"], launch["sites"])):
            print("   %4d %6d  %s" % (n, chain, site))
    if printed != len(launches):
        sys.stderr.write("interval_sites: gdb saw %d launches, the table printed %d\n" % (len(launches), printed))
        return 1
    return run.returncode


if __name__ == "__main__":
    try:
        import gdb  # noqa: F401

        under_gdb()
    except ImportError:
        sys.exit(main(sys.argv[1:]))
