// SPDX-License-Identifier: Apache-2.0
// The one main of sampcheck_bench: every bench/*_bench.cc registers its benchmarks with
// SAMPCHECK_BENCHMARK and they all run from here (bench/README.md says how to read them).
#include <malloc.h>

#include <benchmark/benchmark.h>

int main(int argc, char** argv) {
  // Every stage returns a new [64, 151936] f32 tensor (38.9 MB). glibc serves blocks that
  // large with a fresh mmap each time (its threshold tops out at 32 MiB), so every call would
  // pay ~10k first-touch page faults that the baselines, which write into one reused buffer,
  // never pay — the ratio would measure the kernel, not the stage. Keeping large blocks in
  // the heap lets both sides reuse warm memory. BM_NanHandlingFreshCopy still shows the
  // cost of one fresh tensor plus a copy.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
