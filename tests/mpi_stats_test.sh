#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sharded statistics (docs/spec/sharded_statistics.md): `sampcheck-mpi stats` on R ranks gives
# the report.json and the stdout of a single-process `sampcheck stats` byte for byte (counts,
# p-values, verdicts), on stages the reference draws on its own (sharded), with the noise
# harness (which runs only for a backend using the reference's generators: the wrapper must
# pass that on). Stages drawn through Run (spec_random) are left out to keep the run short:
# every rank computes them whole, so their identity needs no sharding. Labelled statistical, so
# the asan lane leaves it out (tests/CMakeLists.txt).
# Usage: mpi_stats_test.sh MPIRUN RANKS SAMPCHECK_MPI SAMPCHECK WORKDIR
set -u
# Under the asan preset: OpenMPI's own libraries leak at MPI_Finalize (not sampcheck's memory),
# and LeakSanitizer would turn that into a failing exit status; every other ASan/UBSan check
# stays on. mpirun passes the environment to the local ranks.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
# In containers without ptrace rights, OpenMPI's shared-memory transport fails on cross-memory
# attach for messages above the eager size; copy through the shared segment instead.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun=$1 ranks=$2 tool=$3 single=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
stages=(--stage exponential_race --stage gumbel_max --stage multinomial_with_seed --stage noise)

"$single" stats --backend reference "${stages[@]}" --report "$work/one" >"$work/one.out" 2>/dev/null
rc1=$?
timeout 500 "$mpirun" --allow-run-as-root --oversubscribe -np "$ranks" "$tool" stats --backend reference "${stages[@]}" \
  --report "$work/many" >"$work/many.out" 2>"$work/many.err"
rc2=$?
cat "$work/many.err"
[[ $rc1 -eq 0 && $rc2 -eq 0 ]] || fail "exit codes: single $rc1, sharded $rc2"
grep -q "sampcheck-mpi stats: $ranks ranks" "$work/many.err" || fail "not run on $ranks ranks"
cmp "$work/one/report.json" "$work/many/report.json" || fail "report.json differs"
sed "s#$work/one#DIR#" "$work/one.out" >"$work/one.norm"
sed "s#$work/many#DIR#" "$work/many.out" >"$work/many.norm"
cmp "$work/one.norm" "$work/many.norm" || { diff "$work/one.norm" "$work/many.norm" | head; fail "stdout differs"; }
/usr/bin/python3 - "$work/many/report.json" <<'PY' || fail "the report has no sharded draws"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
n = sum(1 for c in cases if (c.get("statistics") or {}).get("n", 0) > 0)
assert n >= 10, n
print(n, "statistical results identical")
PY
echo "PASS ($ranks ranks)"
