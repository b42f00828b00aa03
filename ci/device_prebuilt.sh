#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU checks in one short call, with binaries built here instead of on the device machine
# (docs/gpu.md "On a device"): a device lease is minutes, and building there costs several.
#
#   ci/device_prebuilt.sh pack        here, after `cmake --build --preset default` with CUDA on:
#                                     strips the device binaries of build/default and packs them,
#                                     with the shared libraries they load that a bare CUDA image
#                                     lacks, into .devbin/ (git-ignored; about 35 MB, xz);
#                                     the variants packed before stay (`ls .devbin/variants`),
#                                     but for `timeline` (this checkout's: pack-timeline again)
#   ci/device_prebuilt.sh pack-variant NAME DIR
#                                     here, after `pack`: adds the benchmark of another build
#                                     folder DIR (a worktree's build/default, say) as variant NAME,
#                                     for `run ab`
#   ci/device_prebuilt.sh pack-timeline
#                                     here, after `pack`: builds the device timeline's measuring
#                                     build in build/timeline (several minutes: nvcc compiles the
#                                     kernels again) and packs its benchmark as the variant
#                                     `timeline`, for `run timeline`
#   ci/device_prebuilt.sh run [all|bench|timeline|tests|conform|peers|ab|profile][,...]
#                                     there, in the checkout (with .devbin/ carried): unpacks and
#                                     runs the parts named (comma-separated, in the order below;
#                                     all = bench,timeline,tests,conform), each step under a time
#                                     limit, within SAMPCHECK_DEVICE_BUDGET
#                                     seconds in all (default 420); results to $OUT (else
#                                     build/device/out): every file in results.tar.xz (device.txt,
#                                     bench.json, tests.txt, sass-*.txt, conform-*.txt, the
#                                     reports, ab-*.json, timeline.jsonl),
#                                     beside it device_report.md, timeline_report.md,
#                                     flashinfer_verdicts.md and ab.md
#                                     (a device call brings back only a few files: one archive)
#   `timeline`: the benchmark of the variant named `timeline` (a build configured with
#   -DSAMPCHECK_DEVICE_TIMELINE=ON, packed by `pack-variant timeline DIR`; `ab` leaves it out)
#   on the typical, flat-row and min-p 1 rows of 1 and 64 x 128256, top-k V - 1, top-p 0.999,
#   min-p 1 alone and flat rows with min-p 1 alone at 64 x 128256 and the typical rows of
#   256 x 151936 (SAMPCHECK_TIMELINE_FILTER to change),
#   each followed by one launch with the
#   device timeline on: the cycles of every barrier interval of every block beside the
#   emulator's counted intervals (bench/timeline_report.py, timeline_report.md).
#   `profile`: Nsight Compute (ncu, when the device machine has it) on one timed launch of each
#   sampling mode at 1 x 128256 and 64 x 128256 (typical) and 64 x 128256 top-p 0.999: speed of
#   light, warp stall reasons, occupancy, DRAM and local-memory bytes, as profile-*.csv: where a
#   kernel's time goes, which the cost model cannot say (docs/gpu.md "Cost model").
#   `ab`: the pack's benchmark and every variant's, one after the other, on the shapes that
#   compare builds (SAMPCHECK_AB_FILTER, a --benchmark_filter; default: typical and worst cases
#   at 1 and 64 rows of V = 128256, typical at 256 x 151936, the stage kernels and the copies at 1
#   and 64 rows of V = 128256; a build without BM_DeviceStage runs the rest), times only, and ab.md:
#   each benchmark's median per build.
#
# The binaries name golden/v1 and the plugin by the absolute source folder they were built in
# (SAMPCHECK_SOURCE_DIR); `run` links that folder to the checkout when it does not exist there.
# Both machines must be x86-64 with a driver for the CUDA version that built the binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
verb=${1:-}
bins=(cli/sampcheck bench/sampcheck_device_bench tests/gpu_device_test tests/gpu_fast_sampling_device_test
      plugins/flashinfer/libsampcheck_flashinfer_plugin.so tests/flashinfer_plugin_test
      plugins/flashinfer/sampcheck_flashinfer_empty_residual_check)
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
    # The kernels' cubin, for the SASS check there (tests/sass_loop_check.py: the device
    # machine's toolkit has the nvdisasm the build machines lack).
    if [[ -f $build/gpu/libsampcheck_gpu_cuda.a ]]; then
      mkdir -p "$stage/$build/gpu" && cp "$build/gpu/libsampcheck_gpu_cuda.a" "$stage/$build/gpu/"
    fi
    # .devbin/ is this script's (git-ignored) folder: replace it only when it holds a pack.
    if [[ -e .devbin && ! -f .devbin/bin.tar.xz ]]; then
      echo "device_prebuilt: .devbin exists and holds no bin.tar.xz: not this script's; move it away first" >&2
      exit 1
    fi
    # The variants (pack-variant) are builds of other commits, which a new pack of this build
    # does not change: they stay, so that a variant built once serves every later pack. Not
    # `timeline`: it is this checkout's measuring build (pack-timeline), so it is made again.
    if [[ -d .devbin/variants ]]; then mv .devbin/variants "$stage/variants"; fi
    rm -rf .devbin && mkdir -p .devbin/lib
    if [[ -d $stage/variants ]]; then
      rm -f "$stage/variants/timeline.xz"
      mv "$stage/variants" .devbin/variants
    fi
    tar cf - -C "$stage" build | xz -6 -T0 >.devbin/bin.tar.xz
    # What a bare CUDA image lacks: Google Benchmark (Debian ships it shared) and OpenSSL's libcrypto.
    for l in $(ldd "$build/bench/sampcheck_device_bench" "$build/cli/sampcheck" | grep -oE '/[^ ]*lib(benchmark|crypto)[^ ]*' | sort -u); do
      cp -L "$l" .devbin/lib/
    done
    grep -m1 -o 'SAMPCHECK_SOURCE_DIR=[^ ]*' "$build/build.ninja" | tr -d '\\"' | cut -d= -f2 >.devbin/source_dir
    du -sh .devbin
    ;;
  pack-variant)
    name=${2:-}
    dir=${3:-}
    [[ $name =~ ^[A-Za-z0-9_-]+$ ]] || { echo "device_prebuilt: pack-variant NAME DIR: NAME of letters, digits, - and _" >&2; exit 2; }
    [[ -f .devbin/bin.tar.xz ]] || { echo "device_prebuilt: no .devbin/bin.tar.xz: run 'pack' first" >&2; exit 1; }
    [[ -f $dir/bench/sampcheck_device_bench ]] || { echo "device_prebuilt: no $dir/bench/sampcheck_device_bench" >&2; exit 1; }
    mkdir -p .devbin/variants
    strip -o ".devbin/variants/$name" "$dir/bench/sampcheck_device_bench"
    xz -6 -T0 -f ".devbin/variants/$name"
    du -sh .devbin
    ;;
  pack-timeline)
    # The measuring build of the device timeline (docs/gpu.md "Device timeline") in
    # build/timeline, configured as build/default (its CUDA architectures and FlashInfer headers)
    # with -DSAMPCHECK_DEVICE_TIMELINE=ON, its benchmark packed as the variant `timeline`.
    [[ -f .devbin/bin.tar.xz ]] || { echo "device_prebuilt: no .devbin/bin.tar.xz: run 'pack' first" >&2; exit 1; }
    cache=build/default/CMakeCache.txt
    [[ -f $cache ]] || { echo "device_prebuilt: no $cache (configure and build build/default first)" >&2; exit 1; }
    archs=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$cache")
    flashinfer=$(sed -n 's/^SAMPCHECK_FLASHINFER_INCLUDE_DIR:[A-Z]*=//p' "$cache")
    cmake -S . -B build/timeline -G Ninja -DCMAKE_BUILD_TYPE=Release -DSAMPCHECK_CUDA=ON \
      ${archs:+-DCMAKE_CUDA_ARCHITECTURES="$archs"} ${flashinfer:+-DSAMPCHECK_FLASHINFER_INCLUDE_DIR="$flashinfer"} \
      -DSAMPCHECK_DEVICE_TIMELINE=ON -DSAMPCHECK_BUILD_TESTS=OFF >/dev/null
    cmake --build build/timeline --target sampcheck_device_bench
    bash ci/device_prebuilt.sh pack-variant timeline build/timeline  # the script cd-ed to the checkout
    ;;
  run)
    what=${2:-all}
    [[ $what == all ]] && what=bench,timeline,tests,conform
    for part in ${what//,/ }; do
      case $part in
        bench | timeline | tests | conform | peers | ab | profile) ;;
        *) echo "device_prebuilt: run: unknown part '$part' (all, bench, timeline, tests, conform, peers, ab, profile)" >&2; exit 2 ;;
      esac
    done
    # wants PART: whether the comma-separated list names PART.
    wants() { [[ ",$what," == *",$1,"* ]]; }
    [[ -f .devbin/bin.tar.xz ]] || { echo "device_prebuilt: no .devbin/bin.tar.xz (run 'ci/device_prebuilt.sh pack' on the build machine and carry .devbin)" >&2; exit 1; }
    out=${OUT:-$PWD/build/device/out}
    mkdir -p "$out"
    t0=$(date +%s)
    budget=${SAMPCHECK_DEVICE_BUDGET:-420}
    # step NAME LIMIT CMD...: runs CMD under min(LIMIT, what is left of the budget). Its own
    # lines go to fd 3, the run's output: the callers redirect the step's stdout to files.
    exec 3>&1
    step() {
      local name=$1 limit=$2 left
      shift 2
      left=$((budget - ($(date +%s) - t0)))
      if ((left < 10)); then echo "=== $name: skipped (budget spent)" >&3; return 0; fi
      ((limit > left)) && limit=$left
      echo "=== $name (at most ${limit} s) at +$(($(date +%s) - t0)) s" >&3
      local rc=0
      timeout "$limit" "$@" || rc=$?
      echo "=== $name: exit $rc at +$(($(date +%s) - t0)) s" >&3
    }
    source_dir=$(cat .devbin/source_dir 2>/dev/null || true)
    if [[ -n $source_dir && ! -e $source_dir ]]; then mkdir -p "$(dirname "$source_dir")" && ln -s "$PWD" "$source_dir"; fi
    tar xJf .devbin/bin.tar.xz
    export LD_LIBRARY_PATH=$PWD/.devbin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    b=build/default
    reports=build/device/reports
    mkdir -p "$reports"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/device.txt" || true
    if wants bench; then
      step bench 240 "$b/bench/sampcheck_device_bench" --benchmark_repetitions=3 --benchmark_min_time=0.1 \
        --benchmark_out="$out/bench.json" --benchmark_out_format=json >/dev/null 2>"$out/bench.err"
      python3 bench/device_report.py "$out/bench.json" >"$out/device_report.md" && head -22 "$out/device_report.md"
    fi
    if wants timeline; then
      # The timeline build's benchmark (pack-variant timeline DIR, DIR configured with
      # -DSAMPCHECK_DEVICE_TIMELINE=ON): one more launch of each sampcheck mode with the device
      # timeline on (gpu/block/device_timeline.h), the cycles of every barrier interval beside
      # the emulator's counted ones; its times (timeline-bench.json) beside bench.json's say
      # what the stamps cost.
      if [[ -f .devbin/variants/timeline.xz ]]; then
        mkdir -p build/device/ab
        xz -dc .devbin/variants/timeline.xz >build/device/ab/timeline && chmod +x build/device/ab/timeline
        filter=${SAMPCHECK_TIMELINE_FILTER:-'^BM_Device(Deterministic|Fast)/B:(1|64)/V:128256/minp:0/case:(0|1|4)/|^BM_Device(Deterministic|Fast)/B:64/V:128256/minp:0/case:(2|3|6|7)/|^BM_Device(Deterministic|Fast)/B:256/V:151936/minp:0/case:0/'}
        rm -f "$out/timeline.jsonl"
        SAMPCHECK_BENCH_TIMELINE="$out/timeline.jsonl" step timeline 150 build/device/ab/timeline \
          --benchmark_filter="$filter" --benchmark_repetitions=1 --benchmark_min_time=0.05 \
          --benchmark_out="$out/timeline-bench.json" --benchmark_out_format=json >/dev/null 2>"$out/timeline.err"
        # `|| true`: head stops reading after 40 lines, grep then dies of SIGPIPE, and under
        # pipefail and -e that ended the whole run before its archive (2026-12-04).
        python3 bench/timeline_report.py "$out/timeline.jsonl" >"$out/timeline_report.md" &&
          { grep -E '^(## |critical|fit:|largest:)' "$out/timeline_report.md" | head -40 || true; }
      else
        echo "=== timeline: skipped (no timeline build packed: ci/device_prebuilt.sh pack-timeline here)"
      fi
    fi
    if wants tests; then
      # gpu-fast's suite on the device took 84.7 s on 2026-12-04 at 13:40 and more than 90 at
      # 16:40 (an H200 both times): 180 s.
      step gpu_device_test 90 "$b/tests/gpu_device_test" >>"$out/tests.txt" 2>&1
      step gpu_fast_sampling_device_test 180 "$b/tests/gpu_fast_sampling_device_test" >>"$out/tests.txt" 2>&1
      grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/tests.txt" || tail -5 "$out/tests.txt"
      # Stack-frame accesses in the loops of top_p's walk, the warp's running sum and gpu-fast's
      # slice kernel's sums before the proposals (must be none) and, for the record, of the two
      # filter kernels (docs/gpu.md "Reading the SASS").
      nvdisasm=$(command -v nvdisasm || echo /usr/local/cuda/bin/nvdisasm)
      if [[ -x $nvdisasm && -f $b/gpu/libsampcheck_gpu_cuda.a ]]; then
        step sass-walk 60 python3 tests/sass_loop_check.py "$b/gpu/libsampcheck_gpu_cuda.a" TopPWalkWords \
          --nvdisasm "$nvdisasm" >"$out/sass-walk.txt" 2>&1
        tail -1 "$out/sass-walk.txt"
        step sass-running-sum 60 python3 tests/sass_loop_check.py "$b/gpu/libsampcheck_gpu_cuda.a" GridRun \
          --nvdisasm "$nvdisasm" >"$out/sass-running-sum.txt" 2>&1
        tail -1 "$out/sass-running-sum.txt"
        step sass-proposal-sums 60 python3 tests/sass_loop_check.py "$b/gpu/libsampcheck_gpu_cuda.a" \
          'FastSamplingSlicesKernel*SumBeforeProposals' --nvdisasm "$nvdisasm" >"$out/sass-proposal-sums.txt" 2>&1
        tail -1 "$out/sass-proposal-sums.txt"
        step sass-filters 60 python3 tests/sass_loop_check.py "$b/gpu/libsampcheck_gpu_cuda.a" SamplingFilters \
          --nvdisasm "$nvdisasm" --list >"$out/sass-filters.txt" 2>&1
      else
        echo "=== sass: skipped (no nvdisasm on this machine, or no cubin in the pack)"
      fi
    fi
    if wants conform; then
      step conform-gpu 90 "$b/cli/sampcheck" --threads "$(nproc)" conform --backend gpu --no-stats --golden golden/v1 \
        --report "$reports/gpu" >"$out/conform-gpu.txt" 2>&1
      # gpu-fast with statistics: past 221 s on an H200 (2026-12-04, 128 cases done): its limit
      # SAMPCHECK_CONFORM_FAST_LIMIT seconds (default 120) for a run that wants it complete.
      step conform-gpu-fast "${SAMPCHECK_CONFORM_FAST_LIMIT:-120}" "$b/cli/sampcheck" --threads "$(nproc)" \
        conform --backend gpu-fast --golden golden/v1 --report "$reports/gpu-fast" >"$out/conform-gpu-fast.txt" 2>&1
      tail -n 3 "$out"/conform-gpu*.txt
    fi
    if wants peers; then
      plugin=plugin:$PWD/$b/plugins/flashinfer/libsampcheck_flashinfer_plugin.so
      for det in true false; do
        SAMPCHECK_FLASHINFER_DETERMINISTIC=$det step "flashinfer-det-$det" 120 "$b/cli/sampcheck" --threads "$(nproc)" \
          conform --backend "$plugin" --golden golden/v1 --stage flashinfer_sampling_from_probs --stage inverse_cdf \
          --stage gumbel_max --stage spec_random --stage top_k --stage top_p --stage softmax \
          --report "$reports/flashinfer-det-$det" >"$out/conform-flashinfer-det-$det.txt" 2>&1
      done
      # To a file first: a reader that stops early (head) must not cut the file.
      python3 plugins/flashinfer/verdict_table.py "det-true=$reports/flashinfer-det-true/report.json" \
        "det-false=$reports/flashinfer-det-false/report.json" >"$out/flashinfer_verdicts.md" || true
      head -40 "$out/flashinfer_verdicts.md"
      # The device check of one verdict (docs/peers/flashinfer.md "Verdicts"): exit 0 confirms it.
      step empty-residual-check 30 "$b/plugins/flashinfer/sampcheck_flashinfer_empty_residual_check" \
        >"$out/empty_residual_check.txt" 2>&1
      tail -5 "$out/empty_residual_check.txt"
    fi
    if wants ab; then
      filter=${SAMPCHECK_AB_FILTER:-'^BM_Device(Deterministic|Fast)/B:(1|64)/V:128256/|^BM_Device(Deterministic|Fast)/B:256/V:151936/minp:0/|^BM_DeviceCopyBaseline/B:(1|64)/V:128256/|^BM_DeviceStage/B:(1|64)/V:128256/'}
      mkdir -p build/device/ab
      cp "$b/bench/sampcheck_device_bench" build/device/ab/pack
      names=(pack)
      for v in .devbin/variants/*.xz; do
        [[ -e $v ]] || continue
        n=$(basename "$v" .xz)
        [[ $n == timeline ]] && continue  # the measuring build: `run timeline`
        xz -dc "$v" >"build/device/ab/$n" && chmod +x "build/device/ab/$n" && names+=("$n")
      done
      for n in "${names[@]}"; do
        SAMPCHECK_BENCH_NO_MODEL=1 step "ab-$n" 90 "build/device/ab/$n" --benchmark_filter="$filter" \
          --benchmark_repetitions=3 --benchmark_min_time=0.05 --benchmark_out="$out/ab-$n.json" \
          --benchmark_out_format=json >/dev/null 2>"$out/ab-$n.err"
      done
      python3 - "$out" "${names[@]}" >"$out/ab.md" <<'PY'
import json, os, sys
out, names = sys.argv[1], sys.argv[2:]
rows = {}
for n in names:
    try:
        data = json.load(open(os.path.join(out, f"ab-{n}.json")))
    except (OSError, ValueError):
        continue
    for e in data.get("benchmarks", []):
        if e.get("aggregate_name") == "median":
            rows.setdefault(e["run_name"].replace("/manual_time", ""), {})[n] = e["real_time"]
print("| benchmark (median us) | " + " | ".join(names) + " |")
print("| --- |" + " --- |" * len(names))
for k, r in rows.items():
    print(f"| {k} | " + " | ".join(f"{r[n]:.1f}" if n in r else "-" for n in names) + " |")
PY
      cat "$out/ab.md"
    fi
    if wants profile; then
      if ! command -v ncu >/dev/null; then
        echo "=== profile: skipped (no ncu on this machine)"
      else
        metrics=dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
        metrics+=,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,gpu__time_duration.sum
        for run in Deterministic/B:1/V:128256/minp:0/case:0 Fast/B:1/V:128256/minp:0/case:0 \
                   Deterministic/B:64/V:128256/minp:0/case:0 Fast/B:64/V:128256/minp:0/case:0 \
                   Deterministic/B:64/V:128256/minp:0/case:3 Fast/B:64/V:128256/minp:0/case:3; do
          name=$(echo "$run" | tr '/:' '__')
          # The warm-up launch is skipped; one launch of each of the mode's kernels is profiled.
          SAMPCHECK_BENCH_NO_MODEL=1 step "profile-$name" 60 ncu --clock-control none -k regex:KernelEntry \
            --launch-skip 1 --launch-count 2 --section SpeedOfLight --section WarpStateStats --section LaunchStats \
            --section Occupancy --metrics "$metrics" --csv --page details \
            "$b/bench/sampcheck_device_bench" --benchmark_filter="^BM_Device$run/" --benchmark_min_time=0.01 \
            --benchmark_repetitions=1 >"$out/profile-$name.csv" 2>"$out/profile-$name.err"
        done
      fi
    fi
    [[ -d build/device/reports ]] && tar cf "$out/reports.tar" -C build/device reports
    # One archive of everything (a device call brings back only a few files), the readable
    # summaries beside it.
    archive=$(mktemp)
    tar cJf "$archive" -C "$out" . && mv "$archive" "$out/results.tar.xz" &&
      find "$out" -type f ! -name results.tar.xz ! -name device_report.md ! -name flashinfer_verdicts.md ! -name ab.md \
        ! -name timeline_report.md -delete
    echo "=== done at +$(($(date +%s) - t0)) s"
    ;;
  *)
    echo "usage: ci/device_prebuilt.sh pack | pack-variant NAME DIR | pack-timeline | run [all|bench|timeline|tests|conform|peers|ab|profile][,...]" >&2
    exit 2
    ;;
esac
