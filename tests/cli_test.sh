#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Tests of the sampcheck command line (docs/spec/cli.md): exit codes, error messages that
# list the valid names, --help on every command, and the conform report.
# Usage: cli_test.sh PATH/TO/sampcheck
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/support/cli_check.sh"

check version 0 '^sampcheck [0-9]+\.[0-9]+\.[0-9]+' -- "$bin" --version
check stages 0 'token_bitmask +exact' -- "$bin" stages
check stages-json 0 '"name": "greedy"' -- "$bin" stages --json
for cmd in "" "stages" "golden" "golden generate" "golden verify" "conform"; do
  # shellcheck disable=SC2086
  check "help $cmd" 0 'Usage|OPTIONS|Options' -- "$bin" $cmd --help
done
check no-command 2 'subcommand' -- "$bin"
check unknown-backend 2 "unknown backend 'nope'; valid backends: reference" -- \
  "$bin" conform --backend nope --report "$tmp/r"
check unknown-stage 2 "unknown stage 'top_q'; valid stages: .*greedy" -- \
  "$bin" golden verify --golden "$tmp" --backend reference --stage top_q
check unknown-profile 2 "unknown profile 'tgi'; valid profiles: canonical, vllm, sglang" -- \
  "$bin" conform --backend reference --report "$tmp/r" --profile tgi
check missing-golden 2 "manifest.json" -- "$bin" golden verify --golden "$tmp/none" --backend reference
check generate 0 'wrote [0-9]+ cases' -- "$bin" golden generate --set v1 --out "$tmp/g"
check verify 0 ', 0 failed' -- "$bin" golden verify --golden "$tmp/g" --backend reference
check conform 0 'report: ' -- "$bin" conform --backend reference --golden "$tmp/g" --report "$tmp/r" --stage greedy
if ! grep -q '"format": "sampcheck-report"' "$tmp/r/report.json"; then
  echo "FAIL conform-report: report.json lacks the format name"; failed=$((failed + 1))
else
  passed=$((passed + 1))
fi
check canonical-rule 0 ', 0 failed' -- "$bin" golden verify --golden "$tmp/g" --backend reference --stage softmax --canonical-rule 'ulp(2)'
check bad-canonical-rule 2 "unknown comparison rule 'close'" -- "$bin" golden verify --golden "$tmp/g" --backend reference --canonical-rule close
check empty-selection 2 "no case was run" -- "$bin" conform --backend reference --golden "$tmp/g" --report "$tmp/r" --stage greedy --profile vllm
# A corrupted case fails verification with exit 1 and names the file.
f=$(find "$tmp/g/greedy" -name '*.safetensors' | sort | head -1)
printf 'x' >>"$f"
check corrupted 1 'SHA-256' -- "$bin" golden verify --golden "$tmp/g" --backend reference --stage greedy

# sampcheck stats (docs/spec/harness.md): the reference passes, a planted bug fails with exit 1
# and names the case, bad names exit 2.
check "help stats" 0 'Usage|OPTIONS|Options' -- "$bin" stats --help
# What is tested here is the command and its report, not a stage's harness (the statistical
# tests run those): qsample's 4 statistical cases take 0.4 s of CPU in the sanitizer build,
# exponential_race's 33 took 5 s and inverse_cdf's 5 (conform-stats below) 15 s.
check stats-reference 0 'total' -- "$bin" stats --backend reference --stage qsample --report "$tmp/s"
if ! grep -q '"p_adjusted"' "$tmp/s/report.json"; then
  echo "FAIL stats-report: report.json lacks the statistics fields"; failed=$((failed + 1))
else
  passed=$((passed + 1))
fi
# A cheap planted bug (temperature 1.01 before the Gumbel race): the CLI's exit code and FAIL line
# are what is tested here; each planted fault's rejection is tested in the statistical tests.
check stats-wrong 1 'FAIL stats/gumbel_max/scores_v100/canonical/L3' -- \
  "$bin" stats --backend wrong:temperature_x1010 --stage gumbel_max
check stats-unknown-wrong 2 "unknown wrong sampler 'nope'" -- "$bin" stats --backend wrong:nope
check stats-empty 2 'no statistical case was run' -- "$bin" stats --backend reference --stage greedy
# The statistical phase reports its progress (docs/spec/cli.md "Progress": no failure count).
check conform-stats 0 'progress: [0-9]+/[0-9]+ cases done, elapsed' -- \
  "$bin" conform --backend reference --golden "$tmp/g" --report "$tmp/c" --stage qsample
if ! grep -q '"stats/qsample/decay_v100/ascend_v2/L3"' "$tmp/c/report.json"; then
  echo "FAIL conform-stats: the report lacks the statistical cases"; failed=$((failed + 1))
else
  passed=$((passed + 1))
fi

finish
