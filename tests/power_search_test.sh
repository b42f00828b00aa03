#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# harness/power_search.py end to end (docs/spec/harness.md "Smallest detected effects"):
# on the canonical pipeline cases at the CI size, logits scaled by 1.01 are rejected by
# stats/pipeline/temperature_v50/canonical (its exponent test is declared at 1.005, so 1.01 has
# power ~1: tests/statistical_power_proof_test.cc rejects the same sampler there) and the
# reference by no family (family-wise alpha 1e-4); a malformed size is an error, not a table.
#
# Usage: power_search_test.sh SAMPCHECK_BINARY SOURCE_DIR
set -euo pipefail
sampcheck="$1"
source_dir="$2"
work="$(mktemp -d "${TMPDIR:-/tmp}/sampcheck_power_search.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

/usr/bin/python3 "$source_dir/harness/power_search.py" --sampcheck "$sampcheck" --reference --fault temperature_x \
  --sizes 1.01 --epochs 0 --tests 246 --out "$work/out" -- --stage pipeline --profile canonical >"$work/table.md"
cat "$work/table.md"
row=$(grep -F '`stats/pipeline/temperature_v50/canonical`' "$work/table.md") || fail "no temperature_v50 row"
# Columns: family | reference | 1.01 | smallest.
[[ $(cut -d'|' -f3 <<<"$row") == " 0/1 " ]] || fail "the reference was rejected: $row"
[[ $(cut -d'|' -f4 <<<"$row") == " 1/1 "* ]] || fail "1.01 was not rejected: $row"
[[ $(cut -d'|' -f5 <<<"$row") == " 1.01 " ]] || fail "smallest size not 1.01: $row"
if grep -E '^\| `[^`]*` \| [1-9]' "$work/table.md"; then fail "the reference was rejected by a family"; fi

if /usr/bin/python3 "$source_dir/harness/power_search.py" --sampcheck "$sampcheck" --fault temperature_x \
  --sizes 1.0.1 --tests 246 --out "$work/bad" -- --stage pipeline --profile canonical >"$work/bad.md" 2>"$work/bad.err"; then
  fail "a malformed size gave a table"
fi
grep -q "not a decimal size" "$work/bad.err" || fail "no clear error for a malformed size: $(cat "$work/bad.err")"
echo "power_search: ok"
