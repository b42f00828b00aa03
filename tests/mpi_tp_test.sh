#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `sampcheck-mpi tp` on R real ranks (docs/spec/tp_consensus.md "Real ranks"): every case
# passes with MPI_Allreduce(MPI_MIN), every rank holds the same id after consensus, the
# independent-noise MIN case shows its bias; and a planted SUM-for-MIN collective is reported.
# Usage: mpi_tp_test.sh MPIRUN RANKS SAMPCHECK_MPI SAMPCHECK WORKDIR
set -u
# Under the asan preset: OpenMPI's own libraries leak at MPI_Finalize (not sampcheck's memory),
# and LeakSanitizer would turn that into a failing exit status; every other ASan/UBSan check
# stays on. mpirun passes the environment to the local ranks.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
# In containers without ptrace rights, OpenMPI's shared-memory transport fails on cross-memory
# attach for messages above the eager size; copy through the shared segment instead.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun=$1 ranks=$2 tool=$3 work=$5
rm -rf "$work" && mkdir -p "$work"
run() { timeout 300 "$mpirun" --allow-run-as-root --oversubscribe -np "$ranks" "$tool" tp --draws 4000 "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

run --report "$work/ok" >"$work/ok.out" 2>&1
rc=$?
cat "$work/ok.out"
[[ $rc -eq 0 ]] || fail "correct MIN collective exited $rc"
/usr/bin/python3 - "$work/ok/report.json" "$ranks" <<'PY' || fail "report check"
import json, sys
report = json.load(open(sys.argv[1]))
ranks = int(sys.argv[2])
cases = {c["id"]: c for c in report["cases"]}
assert len(cases) == 6, sorted(cases)
for cid, c in cases.items():
    s = c["statistics"]
    assert c["verdict"] == "pass", (cid, c.get("reason"))
    assert s["ranks"] == ranks and s["n"] == 4000, cid
    assert s["post_consensus_mismatches"] == 0, cid
    assert sum(s["observed"]) == 4000, cid
ind = cases[f"tp_divergence/independent_noise/r{ranks}/sglang"]["statistics"]
# MIN over independent ranks favours low ids: its TV to softmax is far from 0 (exact:
# R = 2 0.234, R = 4 0.412; evaluated with Python's math.exp from P(min >= k) = S(k)^R).
exact = {2: 0.23427, 4: 0.41226}[ranks]
assert abs(ind["exact_tv"] - exact) < 5e-5, ind["exact_tv"]
lo, hi = ind["effect"]["interval"]
assert lo <= exact <= hi and lo > 0.1, (lo, hi)
assert ind["disagreement"]["rate"] > 0.5, ind["disagreement"]
print("report checks passed")
PY

run --collective planted-sum --case independent_noise --profile sglang --report "$work/sum" >"$work/sum.out" 2>&1
rc=$?
cat "$work/sum.out"
[[ $rc -ne 0 ]] || fail "a SUM-for-MIN collective passed"
grep -q "the collective is not the MIN" "$work/sum.out" || fail "no collective message"
grep -q "the collective is not the MIN" "$work/sum/report.json" || fail "report lacks the collective failure"
echo "PASS ($ranks ranks)"
