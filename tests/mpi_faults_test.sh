#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Rank faults under `sampcheck-mpi tp` (docs/spec/tp_consensus.md "Rank faults"): a rank that
# dies (SIGKILL; also while rank 0 still finishes the case before, where the death used to be
# reported against that case), hangs, or sends garbage ids is reported with its rank and case, the job ends
# non-zero within the stated time (rank timeout 5 s; each run is capped at 120 s by timeout(1),
# which would fail the test), and report.json is written; a rank that lies (valid ids that are
# not its draws) fails its case. Then option ranges, and `sampcheck-mpi stats` with a hung rank
# and with ranks started with different arguments (docs/spec/sharded_statistics.md).
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
# mpirun gives the other ranks of a job whose rank exited non-zero 1 s between SIGTERM and
# SIGKILL, and spends about 2 s in all ending it (0.5 s with no grace): most runs below end
# that way on purpose. Only `die` needs the grace (rank 0's SIGTERM handler writes the report
# there), and 1 s is too short on a loaded machine (docs/spec/tp_consensus.md "Rank faults":
# 3 of 30 runs beside three busy processes on 2 cores), so the `die` runs get 10 s, as the
# document advises (rank 0 exits as soon as the report is written: no run takes longer);
# `hang` keeps mpirun's default (rank 0 writes its report before MPI_Abort), `fast` drops it
# for the others.
fast() { OMPI_MCA_odls_base_sigkill_timeout=0 "$@"; }
patient() { OMPI_MCA_odls_base_sigkill_timeout=10 "$@"; }
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
bad_rank=$((ranks - 1))
case_id="tp_divergence/shared_noise_renorm/r${ranks}/sglang"

for fault in die die-ahead hang garbage; do
  start=$(date +%s)
  grace=(); [[ $fault == garbage ]] && grace=(fast); [[ $fault == die* ]] && grace=(patient)
  "${grace[@]}" timeout 120 "$mpirun" --allow-run-as-root --oversubscribe -np "$ranks" "$tool" tp --draws 2000 \
    --fault "$fault" --fault-rank "$bad_rank" --fault-case shared_noise_renorm --rank-timeout 5 \
    --report "$work/$fault" >"$work/$fault.out" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  cat "$work/$fault.out"
  [[ $rc -ne 124 ]] || fail "$fault: the job hung (killed by timeout after 120 s)"
  [[ $rc -ne 0 ]] || fail "$fault: exited 0"
  [[ -f "$work/$fault/report.json" ]] || fail "$fault: no report written"
  case $fault in
    die | die-ahead) want="rank $bad_rank died" ;;
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

# A lying rank: valid ids (token 0 on every draw) that are not its draws. The shared-noise cases
# only measure bias, so it used to pass them; now every rank's ids are checked against the
# single-process reference's gumbel_max of that rank's inputs.
fast timeout 120 "$mpirun" --allow-run-as-root --oversubscribe -np "$ranks" "$tool" tp --draws 2000 --fault lie \
  --fault-rank "$bad_rank" --fault-case shared_noise_4ulp --rank-timeout 5 --report "$work/lie" >"$work/lie.out" 2>&1
rc=$?
cat "$work/lie.out"
[[ $rc -eq 1 ]] || fail "lie: exit status $rc, want 1"
grep -q "FAIL tp_divergence/shared_noise_4ulp/r${ranks}/sglang" "$work/lie.out" || fail "lie: no FAIL line on stdout"
grep -q "rank $bad_rank: backend 'reference' drew ids that are not gumbel_max of the rank's inputs" "$work/lie.out" ||
  fail "lie: the reason does not name the rank"
grep -q "^ok   tp_divergence/shared_noise_renorm/r${ranks}/sglang" "$work/lie.out" || fail "lie: an unfaulted case failed"

# Option ranges (rank 0 prints the message; status 2).
opt() {  # opt NAME PATTERN ARGS...
  local name=$1 pattern=$2; shift 2
  local out rc
  out=$(fast timeout 60 "$mpirun" --allow-run-as-root --oversubscribe -np 1 "$tool" "$@" 2>&1); rc=$?
  [[ $rc -eq 2 ]] && grep -qE -- "$pattern" <<<"$out" || fail "$name: rc=$rc, output: $out"
}
opt tp-seed-epoch-negative '-1 is not an integer in \[0, 18446744073709551615\]' tp --seed-epoch -1
opt tp-rank-timeout-huge '1e20 is not a number in \(0, 604800\]' tp --rank-timeout 1e20
opt tp-fault-case-unknown "--fault-case 'nosuch' is not a selected divergence case" tp --fault garbage --fault-rank 0 --fault-case nosuch
opt stats-seed-epoch-negative '-1 is not an integer' stats --backend reference --seed-epoch -1

# sampcheck-mpi stats: a rank that stops used to hang the job with no message; ranks started
# with different arguments deadlocked (another stage) or passed (another seed epoch).
start=$(date +%s)
fast timeout 120 "$mpirun" --allow-run-as-root --oversubscribe -np "$ranks" "$tool" stats --backend reference \
  --stage exponential_race --fault hang --fault-rank "$bad_rank" --rank-timeout 5 >"$work/stats_hang.out" 2>&1
rc=$?
cat "$work/stats_hang.out"
[[ $rc -ne 124 ]] || fail "stats hang: the job hung (killed by timeout after 120 s)"
[[ $rc -ne 0 ]] || fail "stats hang: exited 0"
grep -q "did not complete within the rank timeout" "$work/stats_hang.out" || fail "stats hang: no message"
echo "stats hang: reported in $(( $(date +%s) - start )) s"
for differ in "--backend reference --stage exponential_race --seed-epoch 1" "--backend reference --stage gumbel_max" \
  "--backend wrong:exponential_noise_scaled --stage exponential_race"; do
  # shellcheck disable=SC2086  # $differ is a list of arguments
  fast timeout 120 "$mpirun" --allow-run-as-root --oversubscribe -np 1 "$tool" stats --backend reference --stage exponential_race \
    --rank-timeout 5 : -np 1 "$tool" stats --rank-timeout 5 $differ >"$work/stats_args.out" 2>&1
  rc=$?
  cat "$work/stats_args.out"
  [[ $rc -ne 124 && $rc -ne 0 ]] || fail "stats with '$differ' on one rank: exit status $rc"
  grep -q "the ranks were started with different arguments" "$work/stats_args.out" || fail "stats '$differ': no message"
done
echo "PASS ($ranks ranks)"
