#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's main command: set-up (install, configure, build; incremental), then the
# conformance suite against every built-in backend. Prints a per-stage summary per backend
# and writes reports/out/report.json (reports/out/<backend>/report.json for each backend), each
# with report.xml, report.md and report.html beside it.
# Exit status is non-zero when any backend fails a case.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
bin=build/${SAMPCHECK_PRESET:-default}/cli/sampcheck
status=0
backends=(reference)
for backend in "${backends[@]}"; do
  "$bin" conform --backend "$backend" --golden golden/v1 --report "reports/out/$backend" || status=1
done
# The first built-in backend's report is also the suite's headline report.
cp "reports/out/${backends[0]}/report.json" reports/out/report.json.tmp
mv reports/out/report.json.tmp reports/out/report.json
echo "report: reports/out/report.json"
# Its JUnit XML, Markdown and HTML renderings beside it (docs/spec/report.md "Formats").
"$bin" render --report reports/out/report.json >/dev/null
exit $status
