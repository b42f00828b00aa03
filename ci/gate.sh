#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How a kernel project gates its CI on sampcheck (README "Gate your CI"): run the conformance
# suite against the project's backend, then compare the report with a baseline report (one
# saved from the project's main branch) and fail on regressions (docs/spec/cli.md
# `sampcheck gate`). Copy this script into your project and adjust the variables.
#
# Usage: ci/gate.sh BACKEND BASELINE [REPORT_DIR]
#   BACKEND     backend name given to `sampcheck conform --backend`
#   BASELINE    the baseline report.json (or a directory holding one)
#   REPORT_DIR  where this run's report.{json,xml,md,html} go (default: reports/gate)
# Environment:
#   SAMPCHECK                  the sampcheck executable (default: build/default/cli/sampcheck)
#   SAMPCHECK_GOLDEN           golden set (default: golden/v1)
#   SAMPCHECK_EFFECT_TOLERANCE --effect-tolerance (default: the gate's, 0.25 mde)
#   SAMPCHECK_CONFORM_ARGS     extra conform arguments, e.g. "--stage top_p min_p"
#   GITHUB_STEP_SUMMARY        set by GitHub Actions: report.md is appended to the job summary
# Exit status: the gate's: 0 no regression, 1 regression, 2 bad input (or conform could not run).
# Publish REPORT_DIR/report.xml as the JUnit result and report.html as an artifact either way.
set -uo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 2 ]]; then
  echo "usage: ci/gate.sh BACKEND BASELINE [REPORT_DIR]" >&2
  exit 2
fi
backend=$1 baseline=$2 report_dir=${3:-reports/gate}
bin=${SAMPCHECK:-build/default/cli/sampcheck}

# conform exits 1 when a case fails: that is for the gate to judge against the baseline (a
# failure the baseline shares is not a regression). Exit 2 means no report: stop.
# shellcheck disable=SC2086
"$bin" conform --backend "$backend" --golden "${SAMPCHECK_GOLDEN:-golden/v1}" --report "$report_dir" \
  ${SAMPCHECK_CONFORM_ARGS:-}
conform_status=$?
if [[ $conform_status -ne 0 && $conform_status -ne 1 ]]; then
  echo "ci/gate.sh: sampcheck conform failed (exit $conform_status); no report to gate" >&2
  exit 2
fi

if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
  cat "$report_dir/report.md" >>"$GITHUB_STEP_SUMMARY"
fi

tolerance=()
[[ -n ${SAMPCHECK_EFFECT_TOLERANCE:-} ]] && tolerance=(--effect-tolerance "$SAMPCHECK_EFFECT_TOLERANCE")
"$bin" gate --report "$report_dir" --baseline "$baseline" "${tolerance[@]}"
