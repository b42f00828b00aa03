#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Hostile input, one named check per input class (docs/spec/cli.md "Hostile input"): a
# verification suite must never say PASS for a wrong backend, never hang, and never let a
# backend's output exhaust the machine. Each check names the class it feeds sampcheck and
# says what went wrong before the fix it guards.
# Usage: hostile_input_test.sh PATH/TO/sampcheck TESTS_BINARY_DIR SOURCE_DIR
set -u
bin=$1 plugins_dir=$2 src=$3
golden=$src/golden/v1
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/support/cli_check.sh"
hostile="$py $src/tests/support/hostile_exchange_backend.py"
edit="$py $src/tests/support/edit_golden_case.py"
broken() { echo "$plugins_dir/libbroken_plugin_$1.so"; }
# Every run gets a hard limit: a hang shows as exit status 124, never as a stuck ctest. The
# limit only catches hangs, so it stays far above a run's time on a starved machine (the
# longest, `golden generate` under the asan preset: 14 s, 35 s with a quarter of a core).
limit() { timeout -k 5 300 "$@"; }

pass() { passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

# --- Wrong verdicts -------------------------------------------------------------------------
# A case whose metadata says "distribution": Compare throws for it, and the case used to stay PASS.
$edit "$golden" softmax/random_v31_f32/canonical "$tmp/dist" comparison=distribution
check distribution-rule-case 1 "comparison 'distribution' is judged by the statistical harness" -- \
  limit "$bin" golden verify --golden "$tmp/dist" --backend reference
# --canonical-rule distribution used to make every canonical case pass, even all-zero outputs.
check canonical-rule-distribution 2 "canonical rule 'distribution' cannot compare outputs element-wise" -- \
  limit "$bin" golden verify --golden "$golden" --stage softmax --canonical-rule distribution \
  --backend "exec:$hostile zero_softmax {cases} {responses}"
check zero-softmax-fails 1 'FAIL softmax/' -- \
  limit "$bin" golden verify --golden "$golden" --stage softmax --backend "exec:$hostile zero_softmax {cases} {responses}"
# An in-process plugin calling exit(0) mid-run used to end verify with status 0, nothing printed.
check plugin-exit-zero-no-isolate 2 'the plugin ended the process \(exit\) while running case' -- \
  limit "$bin" golden verify --golden "$golden" --stage greedy --no-isolate --backend "plugin:$(broken exit_zero)"
check plugin-exit-zero-isolated 1 'FAIL greedy/single_column/canonical' -- \
  limit "$bin" golden verify --golden "$golden" --stage greedy --backend "plugin:$(broken exit_zero)"
# A misspelt optional input or parameter used to be ignored: the case tested the default.
$edit "$golden" softmax/random_v31_f32/canonical "$tmp/in" extra_input=temprature
check unknown-input-tensor 1 "tensor 'in.temprature' is not an input of stage 'softmax'; its inputs are logits, temperature" -- \
  limit "$bin" golden verify --golden "$tmp/in" --backend reference
$edit "$golden" top_k/random_v31_f32/vllm "$tmp/param" extra_param=ks_maxx
check unknown-param 1 "parameter 'ks_maxx' is not a parameter of stage 'top_k'; its parameters are ks_max" -- \
  limit "$bin" golden verify --golden "$tmp/param" --backend reference

# --- Hangs and unbounded reads --------------------------------------------------------------
mk_set() {  # mk_set DIR: a greedy-only copy of golden/v1
  mkdir -p "$1"; cp -r "$golden/greedy" "$1/"
  $py -c "import json,sys; m=json.load(open(sys.argv[1])); m['cases']=[c for c in m['cases'] if c['stage']=='greedy']; json.dump(m, open(sys.argv[2],'w'))" \
    "$golden/manifest.json" "$1/manifest.json"
}
mk_set "$tmp/fifo"; f=$(ls "$tmp"/fifo/greedy/edges/*.safetensors | head -1); rm "$f"; mkfifo "$f"
check fifo-case 1 'is a FIFO; sampcheck reads only regular files' -- limit "$bin" golden verify --golden "$tmp/fifo" --backend reference
mk_set "$tmp/zero"; f=$(ls "$tmp"/zero/greedy/edges/*.safetensors | head -1); rm "$f"; ln -s /dev/zero "$f"
check dev-zero-case 1 'is a character device' -- limit "$bin" golden verify --golden "$tmp/zero" --backend reference
mk_set "$tmp/mfifo"; rm "$tmp/mfifo/manifest.json"; mkfifo "$tmp/mfifo/manifest.json"
check fifo-manifest 2 'manifest.json: is a FIFO' -- limit "$bin" golden verify --golden "$tmp/mfifo" --backend reference
check oversized-manifest 2 'exceeds the limit of 100 bytes \(raise it with SAMPCHECK_MAX_MANIFEST_BYTES\)' -- \
  limit env SAMPCHECK_MAX_MANIFEST_BYTES=100 "$bin" golden verify --golden "$golden" --backend reference
check oversized-case 1 'exceeds the limit of 64 bytes \(raise it with SAMPCHECK_MAX_CASE_BYTES\)' -- \
  limit env SAMPCHECK_MAX_CASE_BYTES=64 "$bin" golden verify --golden "$golden" --backend reference --stage greedy
check bad-limit-variable 2 "SAMPCHECK_MAX_CASE_BYTES='12x' is not a byte count" -- \
  limit env SAMPCHECK_MAX_CASE_BYTES=12x "$bin" golden verify --golden "$golden" --backend reference --stage greedy
check fifo-response 1 '0000.safetensors: is a FIFO' -- \
  limit "$bin" golden verify --golden "$golden" --stage greedy --backend "exec:$hostile fifo_response {cases} {responses}"
# A 3.2 GB valid response used to be read whole (6.3 GB RSS) before "wrong shape".
check oversized-response 1 'exceeds the limit of 1073741824 bytes \(raise it with SAMPCHECK_MAX_RESPONSE_BYTES\)' -- \
  limit "$bin" golden verify --golden "$golden" --stage greedy --backend "exec:$hostile huge_response {cases} {responses}"
check wrong-shape-response-header 1 "output 'token' has the wrong shape: \[400000000\], the case needs \[[0-9]+\]; its data was not read" -- \
  limit env SAMPCHECK_MAX_RESPONSE_BYTES=8000000000 "$bin" golden verify --golden "$golden" --stage greedy \
  --backend "exec:$hostile huge_response {cases} {responses}"
# A 10 MiB .error used to be copied whole into every line of output.
out=$(limit "$bin" golden verify --golden "$golden" --stage greedy --backend "exec:$hostile huge_error {cases} {responses}" 2>&1)
if grep -q 'more bytes cut\]' <<<"$out" && [[ ${#out} -lt $((16 * 4096 * 20)) ]]; then pass; else
  fail "huge-error-text: reason not cut (output of ${#out} bytes)"; fi
# An exec command that exits but leaves a child holding its stdout used to keep sampcheck
# waiting for the whole time limit (here 200 s per case). The run itself takes 3.5 s under the
# asan preset (10 s with a quarter of a core): the bound of 150 s parts the two on any load.
start=$(date +%s)
check grandchild-holds-stdout 0 ', 0 failed' -- limit "$bin" golden verify --golden "$golden" --stage greedy --case-timeout 200 \
  --backend "exec:sleep 600 & $py $src/examples/python_backend/backend.py {cases} {responses}"
elapsed=$(( $(date +%s) - start ))
if [[ $elapsed -lt 150 ]]; then pass; else fail "grandchild-holds-stdout: took $elapsed s"; fi
# A process forked by an isolated plugin used to outlive the run.
export SAMPCHECK_TEST_PID_FILE=$tmp/helper.pids
check plugin-forks-helper 0 ', 0 failed' -- limit "$bin" golden verify --golden "$golden" --stage greedy --backend "plugin:$(broken fork_helper)"
# A killed helper may stay a zombie (reparented to a PID 1 that does not reap): that is dead.
helpers_alive() {  # helpers_alive [kill]: counts the live helpers, killing them if asked
  local pid state n=0
  while read -r pid; do
    state=$(ps -o stat= -p "$pid" 2>/dev/null)
    if [[ -n $state && $state != Z* ]]; then n=$((n + 1)); [[ $# -eq 0 ]] || kill -9 "$pid"; fi
  done <"$SAMPCHECK_TEST_PID_FILE"
  echo "$n"
}
# SIGKILL takes effect when the helper next runs, later on a loaded machine: wait up to 30 s
# for that (a helper that outlives the run sleeps 300 s).
for _ in $(seq 1 300); do [[ $(helpers_alive) -eq 0 ]] && break; sleep 0.1; done
alive=$(helpers_alive kill)
if [[ -s $SAMPCHECK_TEST_PID_FILE && $alive -eq 0 ]]; then pass; else fail "plugin-forks-helper: $alive helper(s) outlived the run"; fi
unset SAMPCHECK_TEST_PID_FILE
# Exchange directories are removed on every path, a time-out included.
export TMPDIR=$tmp/exchange_tmp; mkdir -p "$TMPDIR"
limit "$bin" golden verify --golden "$golden" --stage greedy --case-timeout 0.2 --backend "exec:sleep 5; : {cases} {responses}" >/dev/null 2>&1
left=$(ls "$TMPDIR" | wc -l)
if [[ $left -eq 0 ]]; then pass; else fail "exchange-dir-timeout: $left directories left"; fi
"$bin" golden verify --golden "$golden" --stage greedy --case-timeout 30 --backend "exec:sleep 30; : {cases} {responses}" >/dev/null 2>&1 &
victim=$!
# SIGTERM once the exchange directory exists and the command runs (a child of sampcheck), not
# after a fixed delay: on a slow start the signal would come before any directory existed and
# the check would pass without testing the removal.
for _ in $(seq 1 600); do
  [[ -n $(ls "$TMPDIR") ]] && pgrep -P "$victim" >/dev/null && break
  sleep 0.1
done
kill -TERM "$victim"; wait "$victim" 2>/dev/null
left=$(ls "$TMPDIR" | wc -l)
if [[ $left -eq 0 ]]; then pass; else fail "exchange-dir-sigterm: $left directories left"; fi
unset TMPDIR

# A case whose tensors hold 0 bytes but declare B = 0, V = 2^30 used to make the reference
# allocate in proportion to V (penalties: 9.4 GB RSS, then PASS): the declared extent is capped.
mkdir -p "$tmp/wide/penalties"
$py - "$tmp/wide" <<'PY'
import hashlib, json, struct, sys
meta = {"id": "penalties/wide/canonical", "stage": "penalties", "profile": "canonical", "params": {}, "comparison": "exact"}
header = {"__metadata__": {"sampcheck.case": json.dumps(meta)},
          "in.logits": {"dtype": "F32", "shape": [0, 1 << 30], "data_offsets": [0, 0]},
          "out.logits": {"dtype": "F32", "shape": [0, 1 << 30], "data_offsets": [0, 0]}}
h = json.dumps(header).encode()
h += b" " * (-len(h) % 8)
data = struct.pack("<Q", len(h)) + h
open(sys.argv[1] + "/penalties/wide.safetensors", "wb").write(data)
manifest = {"format": "sampcheck-golden", "format_version": 1, "generator": {"name": "sampcheck"},
            "cases": [{"id": meta["id"], "stage": "penalties", "profile": "canonical", "file": "penalties/wide.safetensors",
                       "sha256": hashlib.sha256(data).hexdigest(), "comparison": "exact"}]}
json.dump(manifest, open(sys.argv[1] + "/manifest.json", "w"))
PY
check declared-extent 1 "wide.safetensors: tensor 'in.logits' declares shape \[0, 1073741824\], an extent .* above the limit of 1073741824 bytes" -- \
  limit "$bin" golden verify --golden "$tmp/wide" --backend reference

# --- Golden generate targets -----------------------------------------------------------------
# `golden generate --out DIR` used to swap the new set into DIR and remove whatever DIR was,
# exit 0: a checkout's golden/ (sources, CMakeLists.txt, a user's file), any directory, a file.
mkdir -p "$tmp/gen_src"; echo 'int x;' >"$tmp/gen_src/mine.cc"; echo 'project(x)' >"$tmp/gen_src/CMakeLists.txt"
check generate-over-source-dir 2 "gen_src: is not a golden set .*manifest.json.*refusing to replace it" -- \
  limit "$bin" golden generate --set v1 --out "$tmp/gen_src"
if [[ -f $tmp/gen_src/mine.cc && -f $tmp/gen_src/CMakeLists.txt ]]; then pass; else fail "generate-over-source-dir: files deleted"; fi
mk_set "$tmp/gen_set"; echo 'uncommitted' >"$tmp/gen_set/greedy/mine.cc"
check generate-over-set-with-user-file 2 "gen_set/greedy/mine.cc is not part of the set its manifest lists" -- \
  limit "$bin" golden generate --set v1 --out "$tmp/gen_set"
if [[ -f $tmp/gen_set/greedy/mine.cc ]]; then pass; else fail "generate-over-set-with-user-file: file deleted"; fi
echo 'precious' >"$tmp/gen_file"
check generate-over-file 2 "gen_file: exists and is not a directory" -- limit "$bin" golden generate --set v1 --out "$tmp/gen_file"
if [[ $(cat "$tmp/gen_file") == precious ]]; then pass; else fail "generate-over-file: file deleted"; fi
ln -s "$tmp/gen_src" "$tmp/gen_link"
check generate-over-symlink 2 "gen_link: is a symbolic link" -- limit "$bin" golden generate --set v1 --out "$tmp/gen_link"
$py -c "import json,sys; m=json.load(open(sys.argv[1])); m['generator']['name']='other'; json.dump(m, open(sys.argv[1],'w'))" \
  "$tmp/gen_set/manifest.json"; rm "$tmp/gen_set/greedy/mine.cc"
check generate-over-foreign-manifest 2 "does not name the sampcheck generator" -- \
  limit "$bin" golden generate --set v1 --out "$tmp/gen_set"
# What may be replaced still is: a golden set (here a greedy-only one) and an empty directory.
mk_set "$tmp/gen_ok"; mkdir "$tmp/gen_empty"
check generate-over-golden-set 0 'wrote [0-9]+ cases' -- limit "$bin" golden generate --set v1 --out "$tmp/gen_ok"
check generate-into-empty-dir 0 'wrote [0-9]+ cases' -- limit "$bin" golden generate --set v1 --out "$tmp/gen_empty"
if cmp -s "$tmp/gen_ok/manifest.json" "$golden/manifest.json"; then pass; else fail "generate-over-golden-set: manifest differs from golden/v1"; fi

# --- Noise faults ---------------------------------------------------------------------------
# An exec noise backend used to pass all 54 noise tests with 20 values of +inf per 2^20-sample
# source. Sorted streams and a backend that ignores seed and offset are planted in-process by
# tests/noise_harness_test.cc (no interpreter start per request). One run of the whole noise
# harness through Python: 31 s under the asan preset, 163 s with a quarter of a core; its limit
# only catches a hang.
check noise-plant-inf 1 '20 of 1048576 samples are not finite or outside the range .* \(first: sample 1000 = inf, inf\)' -- \
  timeout -k 5 900 "$bin" stats --stage noise \
  --backend "exec:$py $src/tests/support/noise_exchange_backend.py plant_inf {cases} {responses}"

# --- Robustness of the report ---------------------------------------------------------------
# A reason that is not valid UTF-8 used to abort the report writer (json type_error.316); raw
# escape sequences reached the terminal.
check bad-utf8-reason 1 'bad \\xEF\\xBF\\xBD|FAIL greedy' -- \
  limit "$bin" conform --golden "$golden" --stage greedy --no-batch-invariance --no-stats --report "$tmp/utf8" \
  --backend "exec:$hostile bad_utf8_error {cases} {responses}"
if $py -c "
import json,sys
r=json.load(open(sys.argv[1]))
reason=r['cases'][0]['reason']
assert '\ufffd\ufffd bytes' in reason and '\x1b[31m' in reason, reason
assert r['complete'] is True
" "$tmp/utf8/report.json"; then pass; else fail "bad-utf8-report"; fi
out=$(limit "$bin" golden verify --golden "$golden" --stage greedy --backend "exec:$hostile bad_utf8_error {cases} {responses}" 2>/dev/null)
if ! grep -q $'\x1b' <<<"$out" && ! grep -q $'\x07' <<<"$out" && grep -q '\\x1B\[31mred' <<<"$out"; then pass; else
  fail "control-chars-on-terminal: raw escape bytes printed"; fi
# CLI ranges: values out of range used to overflow, pass as NaN, or wrap to 2^64 - 1.
check case-timeout-1e20 2 '1e20 is not a number in \(0, 604800\]' -- "$bin" golden verify --golden "$golden" --backend reference --case-timeout 1e20
check case-timeout-nan 2 'nan is not a number in \(0, 604800\]' -- "$bin" golden verify --golden "$golden" --backend reference --case-timeout nan
check effect-tolerance-nan 2 'nan is not a number in \[0, 1e\+06\]' -- "$bin" gate --report "$tmp" --baseline "$tmp" --effect-tolerance nan
check seed-2-64 2 '18446744073709551616 is not an integer in \[0, 18446744073709551615\]' -- \
  "$bin" golden generate --set v1 --out "$tmp/gen" --seed 18446744073709551616
check seed-huge 2 '99999999999999999999 is not an integer in \[0, 18446744073709551615\]' -- \
  "$bin" golden generate --set v1 --out "$tmp/gen" --seed 99999999999999999999
check seed-negative 2 '-1 is not an integer in \[0, 18446744073709551615\]' -- \
  "$bin" golden generate --set v1 --out "$tmp/gen" --seed -1
check seed-epoch-negative 2 '-1 is not an integer in \[0, 18446744073709551615\]' -- \
  "$bin" stats --backend reference --stage inverse_cdf --seed-epoch -1
# --threads had no upper bound: 1000 threads under a memory limit aborted in std::terminate.
check threads-too-many 2 '--threads = 100000 must be in \[1, 1024\]' -- "$bin" --threads 100000 stages
# Messages name the file and the field.
check plugin-output-lying-size 1 "libbroken_plugin_huge_output.so: plugin output 'token' has shape \[1099511627776\] i64 of 8796093022208 bytes, above the limit" -- \
  limit "$bin" golden verify --golden "$golden" --stage greedy --backend "plugin:$(broken huge_output)"
$edit "$golden" softmax/random_v31_f32/canonical "$tmp/badrule" comparison=closeish
check case-metadata-names-file 1 "softmax/random_v31_f32/canonical.safetensors: metadata 'sampcheck.case' field 'comparison': unknown comparison rule 'closeish'" -- \
  limit "$bin" golden verify --golden "$tmp/badrule" --backend reference

finish
