#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU checks in one short call, with binaries built here instead of on the device machine
# (docs/gpu.md "On a device"): a device lease is minutes, and building there costs several.
#
#   ci/device_prebuilt.sh pack        here, after `cmake --build --preset default` with CUDA on:
#                                     strips the device binaries of build/default and packs them,
#                                     with the shared libraries they load that a bare CUDA image
#                                     lacks, into .devbin/ (git-ignored; about 35 MB, xz)
#   ci/device_prebuilt.sh run [all|bench|tests|conform|peers]
#                                     there, in the checkout (with .devbin/ carried): unpacks and
#                                     runs, each step under a time limit, within SAMPCHECK_DEVICE_BUDGET
#                                     seconds in all (default 420); results to $OUT (else
#                                     build/device/out): device.txt, bench.json and device_report.md,
#                                     tests.txt, conform-*.txt and reports.tar.xz
#
# The binaries name golden/v1 and the plugin by the absolute source folder they were built in
# (SAMPCHECK_SOURCE_DIR); `run` links that folder to the checkout when it does not exist there.
# Both machines must be x86-64 with a driver for the CUDA version that built the binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
verb=${1:-}
bins=(cli/sampcheck bench/sampcheck_device_bench tests/gpu_device_test tests/gpu_fast_sampling_device_test
      plugins/flashinfer/libsampcheck_flashinfer_plugin.so tests/flashinfer_plugin_test)
case $verb in
  pack)
    build=build/default
    [[ -f $build/bench/sampcheck_device_bench ]] || { echo "device_prebuilt: no $build/bench/sampcheck_device_bench (build with CUDA first)" >&2; exit 1; }
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' EXIT
    for f in "${bins[@]}"; do
      [[ -f $build/$f ]] || { echo "device_prebuilt: skipping $f (not built)" >&2; continue; }
      mkdir -p "$stage/$build/$(dirname "$f")"
      strip -o "$stage/$build/$f" "$build/$f"
    done
    # .devbin/ is this script's (git-ignored) folder: replace it only when it holds a pack.
    if [[ -e .devbin && ! -f .devbin/bin.tar.xz ]]; then
      echo "device_prebuilt: .devbin exists and holds no bin.tar.xz: not this script's; move it away first" >&2
      exit 1
    fi
    rm -rf .devbin && mkdir -p .devbin/lib
    tar cf - -C "$stage" build | xz -6 -T0 >.devbin/bin.tar.xz
    # What a bare CUDA image lacks: Google Benchmark (Debian ships it shared) and OpenSSL's libcrypto.
    for l in $(ldd "$build/bench/sampcheck_device_bench" "$build/cli/sampcheck" | grep -oE '/[^ ]*lib(benchmark|crypto)[^ ]*' | sort -u); do
      cp -L "$l" .devbin/lib/
    done
    grep -m1 -o 'SAMPCHECK_SOURCE_DIR=[^ ]*' "$build/build.ninja" | tr -d '\\"' | cut -d= -f2 >.devbin/source_dir
    du -sh .devbin
    ;;
  run)
    what=${2:-all}
    [[ -f .devbin/bin.tar.xz ]] || { echo "device_prebuilt: no .devbin/bin.tar.xz (run 'ci/device_prebuilt.sh pack' on the build machine and carry .devbin)" >&2; exit 1; }
    out=${OUT:-$PWD/build/device/out}
    mkdir -p "$out"
    t0=$(date +%s)
    budget=${SAMPCHECK_DEVICE_BUDGET:-420}
    # step NAME LIMIT CMD...: runs CMD under min(LIMIT, what is left of the budget).
    step() {
      local name=$1 limit=$2 left
      shift 2
      left=$((budget - ($(date +%s) - t0)))
      if ((left < 10)); then echo "=== $name: skipped (budget spent)"; return 0; fi
      ((limit > left)) && limit=$left
      echo "=== $name (at most ${limit} s) at +$(($(date +%s) - t0)) s"
      local rc=0
      timeout "$limit" "$@" || rc=$?
      echo "=== $name: exit $rc at +$(($(date +%s) - t0)) s"
    }
    source_dir=$(cat .devbin/source_dir 2>/dev/null || true)
    if [[ -n $source_dir && ! -e $source_dir ]]; then mkdir -p "$(dirname "$source_dir")" && ln -s "$PWD" "$source_dir"; fi
    tar xJf .devbin/bin.tar.xz
    export LD_LIBRARY_PATH=$PWD/.devbin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    b=build/default
    reports=build/device/reports
    mkdir -p "$reports"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/device.txt" || true
    if [[ $what == all || $what == bench ]]; then
      step bench 240 "$b/bench/sampcheck_device_bench" --benchmark_repetitions=3 --benchmark_min_time=0.1 \
        --benchmark_out="$out/bench.json" --benchmark_out_format=json >/dev/null 2>"$out/bench.err"
      python3 bench/device_report.py "$out/bench.json" >"$out/device_report.md" && head -22 "$out/device_report.md"
    fi
    if [[ $what == all || $what == tests ]]; then
      for t in gpu_device_test gpu_fast_sampling_device_test; do
        step "$t" 90 "$b/tests/$t" >>"$out/tests.txt" 2>&1
      done
      grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/tests.txt" || tail -5 "$out/tests.txt"
    fi
    if [[ $what == all || $what == conform ]]; then
      step conform-gpu 90 "$b/cli/sampcheck" --threads "$(nproc)" conform --backend gpu --no-stats --golden golden/v1 \
        --report "$reports/gpu" >"$out/conform-gpu.txt" 2>&1
      step conform-gpu-fast 120 "$b/cli/sampcheck" --threads "$(nproc)" conform --backend gpu-fast --golden golden/v1 \
        --report "$reports/gpu-fast" >"$out/conform-gpu-fast.txt" 2>&1
      tail -n 3 "$out"/conform-gpu*.txt
    fi
    if [[ $what == peers ]]; then
      plugin=plugin:$PWD/$b/plugins/flashinfer/libsampcheck_flashinfer_plugin.so
      for det in true false; do
        SAMPCHECK_FLASHINFER_DETERMINISTIC=$det step "flashinfer-det-$det" 120 "$b/cli/sampcheck" --threads "$(nproc)" \
          conform --backend "$plugin" --golden golden/v1 --stage flashinfer_sampling_from_probs --stage inverse_cdf \
          --stage gumbel_max --stage spec_random --stage top_k --stage top_p --stage softmax \
          --report "$reports/flashinfer-det-$det" >"$out/conform-flashinfer-det-$det.txt" 2>&1
      done
      python3 plugins/flashinfer/verdict_table.py "det-true=$reports/flashinfer-det-true/report.json" \
        "det-false=$reports/flashinfer-det-false/report.json" | tee "$out/flashinfer_verdicts.md" | head -40
    fi
    tar cJf "$out/reports.tar.xz" -C build/device reports
    echo "=== done at +$(($(date +%s) - t0)) s"
    ;;
  *)
    echo "usage: ci/device_prebuilt.sh pack | run [all|bench|tests|conform|peers]" >&2
    exit 2
    ;;
esac
