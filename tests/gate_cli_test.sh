#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `sampcheck gate` on the hand-made fixtures of tests/data/reports (docs/spec/cli.md): exit 0
# on a clean run, 1 with each regression printed, 2 with a message naming the file on an
# unreadable, invalid or incomplete report. Also `sampcheck render`.
# Usage: gate_cli_test.sh PATH/TO/sampcheck SOURCE_DIR
set -u
bin=$1
src=$2
data=$src/tests/data/reports
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/support/cli_check.sh"

check help 0 'baseline' -- "$bin" gate --help
check clean 0 'gate: PASS' -- "$bin" gate --report "$data/clean_run.json" --baseline "$data/baseline.json"
check regressed 1 'REGRESSION new-failure greedy/ties/vllm' -- \
  "$bin" gate --report "$data/mixed_run.json" --baseline "$data/baseline.json"
check regressed-summary 1 'gate: FAIL: 3 regression\(s\)' -- \
  "$bin" gate --report "$data/mixed_run.json" --baseline "$data/baseline.json"
check fixed 0 'note: greedy/ties/vllm: fixed' -- \
  "$bin" gate --report "$data/baseline.json" --baseline "$data/mixed_run.json"
# Tolerance 3 mde lets the 2.75 mde growth through; the rejection and the new failure remain.
check tolerance 1 'gate: FAIL: 2 regression\(s\)' -- \
  "$bin" gate --report "$data/mixed_run.json" --baseline "$data/baseline.json" --effect-tolerance 3
check negative-tolerance 2 'effect-tolerance' -- \
  "$bin" gate --report "$data/mixed_run.json" --baseline "$data/baseline.json" --effect-tolerance -1

# Directories holding report.json are accepted.
mkdir -p "$tmp/run" "$tmp/base"
cp "$data/clean_run.json" "$tmp/run/report.json"
cp "$data/baseline.json" "$tmp/base/report.json"
check directories 0 'gate: PASS' -- "$bin" gate --report "$tmp/run" --baseline "$tmp/base"

# Bad files: exit 2, the file named, what was expected said.
check missing-file 2 "$tmp/none.json: cannot open" -- "$bin" gate --report "$tmp/none.json" --baseline "$data/baseline.json"
check empty-dir 2 "$tmp/empty/report.json" -- bash -c "mkdir -p '$tmp/empty' && '$bin' gate --report '$tmp/empty' --baseline '$data/baseline.json'"
printf '{"format": ' >"$tmp/truncated.json"
check not-json 2 'truncated.json: not a valid sampcheck report: expected JSON' -- \
  "$bin" gate --report "$tmp/truncated.json" --baseline "$data/baseline.json"
sed 's/"sampcheck-report"/"other-report"/' "$data/clean_run.json" >"$tmp/format.json"
check wrong-format 2 'format.json: not a valid sampcheck report: expected "format": "sampcheck-report"' -- \
  "$bin" gate --report "$tmp/format.json" --baseline "$data/baseline.json"
sed 's/"format_version": 1/"format_version": 2/' "$data/baseline.json" >"$tmp/version.json"
check wrong-version 2 'version.json: not a valid sampcheck report: expected "format_version": 1, found 2' -- \
  "$bin" gate --report "$data/clean_run.json" --baseline "$tmp/version.json"
sed 's/"format": "sampcheck-report",/"complete": false, "format": "sampcheck-report",/' "$data/clean_run.json" >"$tmp/partial.json"
check incomplete 2 'partial.json: the report is incomplete' -- \
  "$bin" gate --report "$tmp/partial.json" --baseline "$data/baseline.json"
sed 's/"verdict": "pass"/"verdict": "passed"/' "$data/clean_run.json" >"$tmp/verdict.json"
check bad-verdict 2 "verdict.json: not a valid sampcheck report: cases\[[0-9]+\]\.verdict must be pass, fail or skip" -- \
  "$bin" gate --report "$tmp/verdict.json" --baseline "$data/baseline.json"

# render: the three renderings of a report.json.
check render 0 'report: .*report.html' -- "$bin" render --report "$data/mixed_run.json" --out "$tmp/rendered"
for f in report.xml report.md report.html; do
  if [[ -s $tmp/rendered/$f ]]; then passed=$((passed + 1)); else echo "FAIL render: no $f"; failed=$((failed + 1)); fi
done
check render-bad 2 'truncated.json' -- "$bin" render --report "$tmp/truncated.json" --out "$tmp/r2"
if [[ -e $tmp/r2/report.html ]]; then echo "FAIL render-bad wrote a file"; failed=$((failed + 1)); fi

# ci/gate.sh, the example wiring: a baseline from the same code passes; against a baseline
# holding other cases, the cases it passed are dropped, so the gate fails.
export SAMPCHECK=$bin SAMPCHECK_CONFORM_ARGS="--stage greedy --no-batch-invariance"
"$bin" conform --backend reference --report "$tmp/gate-base" --stage greedy --no-batch-invariance >/dev/null 2>&1
check ci-gate-pass 0 'gate: PASS' -- bash "$src/ci/gate.sh" reference "$tmp/gate-base" "$tmp/gate-run"
for f in report.json report.xml report.md report.html; do
  if [[ -s $tmp/gate-run/$f ]]; then passed=$((passed + 1)); else echo "FAIL ci-gate: no $f"; failed=$((failed + 1)); fi
done
# The renderings of a real run agree with its report.json (the same independent checks as for
# the fixtures).
check real-junit 0 '' -- /usr/bin/python3 "$src/tests/python/check_junit_xml.py" "$tmp/gate-run/report.xml" "$tmp/gate-run/report.json"
check real-html 0 '' -- /usr/bin/python3 "$src/tests/python/check_html_report.py" "$tmp/gate-run/report.html" "$tmp/gate-run/report.json"
GITHUB_STEP_SUMMARY=$tmp/summary.md check ci-gate-regressed 1 'REGRESSION dropped greedy/ties/vllm' -- \
  bash "$src/ci/gate.sh" reference "$data/baseline.json" "$tmp/gate-run"
if grep -q '^| \*\*total\*\* |' "$tmp/summary.md" 2>/dev/null; then
  passed=$((passed + 1))
else
  echo "FAIL ci-gate: the job summary did not get report.md"; failed=$((failed + 1))
fi
check ci-gate-usage 2 'usage: ci/gate.sh' -- bash "$src/ci/gate.sh" reference

finish
