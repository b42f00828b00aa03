#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Rank faults under `sampcheck-mpi tp` (docs/spec/tp_consensus.md "Rank faults"): a rank that
# dies (SIGKILL), hangs, or sends garbage ids is reported with its rank and case, the job ends
# non-zero within the stated time (rank timeout 5 s; each run is capped at 120 s by timeout(1),
# which would fail the test), and report.json is written.
# Usage: mpi_faults_test.sh MPIRUN RANKS SAMPCHECK_MPI SAMPCHECK WORKDIR
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
fail() { echo "FAIL: $*"; exit 1; }
bad_rank=$((ranks - 1))
case_id="tp_divergence/shared_noise_renorm/r${ranks}/sglang"

for fault in die hang garbage; do
  start=$(date +%s)
  timeout 120 "$mpirun" --allow-run-as-root --oversubscribe -np "$ranks" "$tool" tp --draws 2000 \
    --fault "$fault" --fault-rank "$bad_rank" --fault-case shared_noise_renorm --rank-timeout 5 \
    --report "$work/$fault" >"$work/$fault.out" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  cat "$work/$fault.out"
  [[ $rc -ne 124 ]] || fail "$fault: the job hung (killed by timeout after 120 s)"
  [[ $rc -ne 0 ]] || fail "$fault: exited 0"
  [[ -f "$work/$fault/report.json" ]] || fail "$fault: no report written"
  case $fault in
    die) want="rank $bad_rank died" ;;
    hang) want="rank $bad_rank sent no ids within 5" ;;
    garbage) want="rank $bad_rank sent garbage: id -24301 at draw 0" ;;
  esac
  /usr/bin/python3 - "$work/$fault/report.json" "$case_id" "$want" <<'PY' || fail "$fault: report does not name rank and case"
import json, sys
report = json.load(open(sys.argv[1]))
hits = [c for c in report["cases"] if c["id"] == sys.argv[2] and c["verdict"] == "fail" and sys.argv[3] in c["reason"]]
assert hits, [(c["id"], c["verdict"], c.get("reason", "")) for c in report["cases"]]
print("reported:", hits[0]["reason"])
PY
  echo "$fault: reported in ${took} s"
done
echo "PASS ($ranks ranks)"
