#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU checks in one command, for a machine with a CUDA device and nvcc but no Debian
# packages (the libraries come from .devdeps/, made here beforehand by ci/device_bundle.sh):
# configure and build for the device's architecture, run the `gpu` tests, the conformance
# suite on the device backends, and the device benchmarks. docs/gpu.md "On a device".
# `huge` (not part of `all`: minutes, 13 GB of host memory, 4.3 GB of disk) runs the huge set,
# B V above 2^31 elements, on the device backends (docs/spec/input_classes.md "Large indices").
#
# `peers` (not part of `all`) judges FlashInfer's own sampling kernels through their plugin
# (plugins/flashinfer/, docs/peers/flashinfer.md): conform on golden/v1 and the statistical
# cases with `deterministic` true and false, then gpu and gpu-fast on the same stages, and a
# side-by-side table of the verdicts ($OUT/flashinfer_verdicts.md). FlashInfer's headers come
# from .devdeps/flashinfer/include (ci/device_bundle.sh copies them there). Each conform run
# is cut at SAMPCHECK_PEERS_TIMEOUT seconds (default 120; its report stays valid, `complete: false`).
#
#   ci/device.sh [all|test|bench|huge|peers]     (default all)
#
# Results go to $OUT when it is set (the device tool's output folder), else to build/device/out:
# ctest's log, the conform reports, the benchmark JSON and the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
prefix=$PWD/.devdeps/usr
[[ -d $prefix ]] || { echo "device.sh: no .devdeps/ (run ci/device_bundle.sh on the build machine first)" >&2; exit 1; }
out=${OUT:-$PWD/build/device/out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
# FlashInfer's sources, when carried: the peers run needs them; the benchmark times them as the
# anchor when they are there and says so in its report when they are not.
peers_args=()
fi_include=$PWD/.devdeps/flashinfer/include
if [[ -f $fi_include/flashinfer/sampling.cuh ]]; then
  peers_args=(-DSAMPCHECK_FLASHINFER_INCLUDE_DIR="$fi_include")
elif [[ $what == peers ]]; then
  echo "device.sh peers: no $fi_include/flashinfer/sampling.cuh (run ci/device_bundle.sh where FlashInfer's sources are)" >&2
  exit 1
fi
cmake -S . -B build/device "${peers_args[@]}" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSAMPCHECK_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${arch}" -DCMAKE_PREFIX_PATH="$prefix" -DOPENSSL_ROOT_DIR="$prefix" \
  -DOPENSSL_USE_STATIC_LIBS=ON -DCMAKE_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu" >"$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; exit 1; }
jobs=$(nproc)
if [[ $what == all || $what == test ]]; then
  cmake --build build/device -j "$jobs" >"$out/build.log" 2>&1 || { grep -E 'error|Error' "$out/build.log" | head -40; exit 1; }
  ctest --test-dir build/device -L gpu --output-on-failure 2>&1 | tee "$out/ctest.log" | tail -15
  for b in gpu gpu-fast; do
    timeout 240 build/device/cli/sampcheck conform --backend "$b" --golden golden/v1 --report "build/device/reports/$b" \
      >"$out/conform-$b.txt" 2>&1 || true
    cp "build/device/reports/$b/report.json" "$out/conform-$b.json" || true
    tail -25 "$out/conform-$b.txt"
  done
fi
if [[ $what == all || $what == bench ]]; then
  cmake --build build/device -j "$jobs" --target sampcheck_device_bench >"$out/build-bench.log" 2>&1 ||
    { grep -E 'error|Error' "$out/build-bench.log" | head -40; exit 1; }
  build/device/bench/sampcheck_device_bench --benchmark_repetitions=3 --benchmark_min_time=0.2 \
    --benchmark_format=json >"$out/bench.json"
  python3 bench/device_report.py "$out/bench.json" | tee "$out/device_report.md"
fi
if [[ $what == peers ]]; then
  cmake --build build/device -j "$jobs" --target sampcheck sampcheck_flashinfer_plugin flashinfer_plugin_test >"$out/build-peers.log" 2>&1 ||
    { grep -E 'error|Error' "$out/build-peers.log" | head -40; exit 1; }
  build/device/tests/flashinfer_plugin_test 2>&1 | tail -5 | tee "$out/flashinfer_plugin_test.txt"
  plugin=plugin:$PWD/build/device/plugins/flashinfer/libsampcheck_flashinfer_plugin.so
  # The stages the plugin declares (docs/peers/flashinfer.md "Mapping"); gpu and gpu-fast run the same.
  stages=(--stage flashinfer_sampling_from_probs --stage inverse_cdf --stage gumbel_max --stage spec_random --stage top_k --stage top_p --stage softmax)
  tables=()
  for run in flashinfer-det-true flashinfer-det-false gpu gpu-fast; do
    case $run in
      flashinfer-det-*) backend=$plugin; det=${run##*-} ;;
      *) backend=$run; det= ;;
    esac
    SAMPCHECK_FLASHINFER_DETERMINISTIC=$det timeout "${SAMPCHECK_PEERS_TIMEOUT:-120}" build/device/cli/sampcheck conform --backend "$backend" \
      --golden golden/v1 "${stages[@]}" --report "build/device/reports/$run" >"$out/conform-$run.txt" 2>&1 || true
    cp "build/device/reports/$run/report.json" "$out/conform-$run.json" || true
    tail -3 "$out/conform-$run.txt"
    tables+=("$run=$out/conform-$run.json")
  done
  # To a file first: a reader that stops early (head) must not cut the file.
  python3 plugins/flashinfer/verdict_table.py "${tables[@]}" >"$out/flashinfer_verdicts.md" || true
  head -60 "$out/flashinfer_verdicts.md"
fi
if [[ $what == huge ]]; then
  cmake --build build/device -j "$jobs" --target sampcheck >"$out/build.log" 2>&1 || { grep -E 'error|Error' "$out/build.log" | head -40; exit 1; }
  set_dir=build/device/huge
  rm -rf "$set_dir"
  build/device/cli/sampcheck --threads "$jobs" golden generate --set huge --out "$set_dir" | tee "$out/huge.txt"
  for b in gpu gpu-fast; do
    SAMPCHECK_MAX_CASE_BYTES=8000000000 build/device/cli/sampcheck golden verify --golden "$set_dir" --backend "$b" \
      2>&1 | tee -a "$out/huge.txt" | tail -3
  done
  rm -rf "$set_dir"
fi
