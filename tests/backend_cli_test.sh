#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The command line with plugin and exec backends (docs/spec/cli.md "Backends"): --backend
# plugin:PATH and exec:COMMAND, --isolate/--no-isolate, --case-timeout, fault reasons in the
# report, and a run killed midway that leaves a valid partial report.json ("complete": false).
# Usage: backend_cli_test.sh PATH/TO/sampcheck PATH/TO/example_plugin.so TESTS_BINARY_DIR SOURCE_DIR
set -u
bin=$1 plugin=$2 plugins_dir=$3 src=$4
golden=$src/golden/v1
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/support/cli_check.sh"

check_py() {  # check_py NAME PYTHON_ASSERTIONS (report in r)
  if "$py" -c "import json,sys; r=json.load(open(sys.argv[1])); $2" "$3" 2>"$tmp/py.err"; then
    passed=$((passed + 1))
  else
    echo "FAIL $1:"; cat "$tmp/py.err"; failed=$((failed + 1))
  fi
}

broken() { echo "$plugins_dir/libbroken_plugin_$1.so"; }

check plugin-verify 0 ', 0 failed' -- "$bin" golden verify --golden "$golden" --backend "plugin:$plugin" --stage greedy
check plugin-no-isolate 0 ', 0 failed' -- "$bin" golden verify --golden "$golden" --backend "plugin:$plugin" --stage greedy --no-isolate
check builtin-isolated 0 ', 0 failed' -- "$bin" golden verify --golden "$golden" --backend reference --stage greedy --isolate
check plugin-missing 2 'cannot load plugin' -- "$bin" golden verify --golden "$golden" --backend "plugin:$tmp/none.so"
check plugin-abi 2 'plugin ABI version 99 is not supported; this sampcheck supports ABI version 1' -- \
  "$bin" golden verify --golden "$golden" --backend "plugin:$(broken unknown_abi)"
check isolate-conflict 2 'excludes' -- "$bin" golden verify --golden "$golden" --backend "plugin:$plugin" --isolate --no-isolate
check bad-timeout 2 'case-timeout' -- "$bin" golden verify --golden "$golden" --backend "plugin:$plugin" --case-timeout 0
check exec-placeholders 2 'must contain both \{cases\} and \{responses\}' -- \
  "$bin" golden verify --golden "$golden" --backend "exec:true"
check exec-fails 2 'exec backend command exited with status 5' -- \
  "$bin" golden verify --golden "$golden" --backend "exec:exit 5; : {cases} {responses}"

# A crashing plugin: the crashing case fails with the signal, the rest pass, exit status 1.
check segfault-conform 1 'FAIL greedy/single_column/canonical' -- \
  "$bin" conform --golden "$golden" --backend "plugin:$(broken segfault)" --report "$tmp/seg" --stage greedy
check_py segfault-report "
c={x['id']: x for x in r['cases']}
assert r['complete'] is True, r['complete']
assert 'crashed with SIGSEGV' in c['greedy/single_column/canonical']['reason']
assert r['summary']['failed'] == 1 and r['summary']['passed'] >= 15, r['summary']
" "$tmp/seg/report.json"

# An exec backend through conform: verification in one command per case group, and the
# batch-invariance check in one command per case.
check exec-conform 0 'report: ' -- "$bin" conform --golden "$golden" --report "$tmp/exec" --stage greedy \
  --backend "exec:$py $src/examples/python_backend/backend.py {cases} {responses}"
check_py exec-report "
assert r['complete'] is True and r['backend'].startswith('exec:')
assert r['summary']['failed'] == 0 and r['summary']['skipped'] == 0, r['summary']
assert sum(c['stage'] == 'batch_invariance' for c in r['cases']) == 16
" "$tmp/exec/report.json"

# A run killed midway: the plugin hangs on greedy/single_column, the second greedy case; kill the whole process
# group once some cases are in the report, then the report must be valid JSON, marked
# incomplete, and hold the cases judged so far.
setsid "$bin" conform --golden "$golden" --backend "plugin:$(broken hang)" --report "$tmp/killed" \
  --stage greedy --case-timeout 600 >"$tmp/killed.log" 2>&1 &
pid=$!
# The kill must come after the first verdict whatever the load: the loop waits up to 300 s for
# it (about a second on an idle machine), not a fixed time.
for _ in $(seq 1 3000); do
  if [[ -f "$tmp/killed/report.json" ]] && grep -q '"verdict"' "$tmp/killed/report.json"; then break; fi
  sleep 0.1
done
sleep 0.5
kill -9 -- "-$pid" 2>/dev/null || kill -9 "$pid"
wait "$pid" 2>/dev/null
check_py killed-report "
assert r['format'] == 'sampcheck-report'
assert r['complete'] is False, r['complete']
assert len(r['cases']) >= 1 and all(c['verdict'] == 'pass' for c in r['cases']), r['cases'][:3]
assert r['summary']['cases'] == len(r['cases'])
" "$tmp/killed/report.json"

finish
