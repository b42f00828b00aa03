# SPDX-License-Identifier: Apache-2.0
# Shared by the command-line tests (tests/*_cli_test.sh, tests/cli_test.sh): `check` runs a
# command and compares its exit status and output with what is expected, counting into
# `passed` / `failed`; `finish` prints the counts and sets the script's exit status.
# Sourced, not run.
passed=0 failed=0

check() {  # check NAME EXPECTED_RC PATTERN -- COMMAND...
  local name=$1 want_rc=$2 pattern=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -ne $want_rc ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: rc=$rc (want $want_rc), output:"; echo "$out" | head -20
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}

finish() {
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
}
