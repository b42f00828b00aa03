// SPDX-License-Identifier: Apache-2.0
// The one main of sampcheck_bench: every bench/*_bench.cc registers its benchmarks with
// SAMPCHECK_BENCHMARK and they all run from here (bench/README.md says how to read them).
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
