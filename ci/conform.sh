#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's main command: set-up (install, configure, build; incremental), then the
# conformance suite against the reference, gpu-emulated (the gpu/ kernels on the checking host
# emulator, docs/gpu.md), gpu-fast-emulated (the fused production-style sampling kernel on the
# emulator, judged by the statistical harness only: docs/gpu.md "gpu-fast") and, when the CUDA
# parts are built and a device is present, gpu and gpu-fast.
# Prints a per-stage summary per backend and writes reports/out/report.json
# (reports/out/<backend>/report.json for each backend), each with report.xml, report.md and
# report.html beside it.
# Exit status is non-zero when any backend fails a case.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
bin=build/${SAMPCHECK_PRESET:-default}/cli/sampcheck
status=0
# Every core: the reference's rows and the draw batches of the emulated backends' statistics
# spread over them, with the same results for any count (docs/spec/harness.md "Concurrent batches").
threads=$(nproc)
((threads <= 1024)) || threads=1024  # --threads' limit
backends=(reference gpu-emulated gpu-fast-emulated)
if [[ -e build/${SAMPCHECK_PRESET:-default}/gpu/libsampcheck_gpu_cuda.a ]] && command -v nvidia-smi >/dev/null &&
   nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  backends+=(gpu gpu-fast)
else
  echo "conform: backends gpu and gpu-fast not run (no CUDA build or no CUDA device)"
fi
for backend in "${backends[@]}"; do
  echo "== backend $backend"
  "$bin" --threads "$threads" conform --backend "$backend" --golden golden/v1 --report "reports/out/$backend" || status=1
done
# The first built-in backend's report is also the suite's headline report.
cp "reports/out/${backends[0]}/report.json" reports/out/report.json.tmp
mv reports/out/report.json.tmp reports/out/report.json
echo "report: reports/out/report.json"
# Its JUnit XML, Markdown and HTML renderings beside it (docs/spec/report.md "Formats").
"$bin" render --report reports/out/report.json >/dev/null
exit $status
