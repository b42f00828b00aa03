// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared driver of the filter benchmarks (top_k, top_p, min_p, sampling_filters): every
// shape of the issue — B in {1, 64} x V in {32000, 151936} — for every profile, each beside a
// naive full-sort implementation (tests/support/naive_filters.h, the oracle the reference is
// tested bitwise equal to) run on the same rows in the same process.
//
// Names: BM_<Stage>B<rows>V<vocab>Baseline is the naive full sort, and
// BM_<Stage>B<rows>V<vocab><Profile> the reference; ratios.py pairs them by that prefix, so
// each ratio is time(reference) / time(naive full sort) for one shape: the goal is <= 0.1.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/support/bench_support.h"
#include "core/profile.h"

namespace sampcheck::bench {

// One row in place, under one profile.
using FilterRowFn = std::function<void(Profile, std::span<float>)>;

inline void RegisterFilterBenchmarks(const std::string& stage, FilterRowFn reference, FilterRowFn naive) {
  for (std::int64_t rows : {1, 64}) {
    for (std::int64_t vocab : {32000, 151936}) {
      const std::string prefix = "BM_" + stage + "B" + std::to_string(rows) + "V" + std::to_string(vocab);
      auto run = [rows, vocab](FilterRowFn fn, Profile profile) {
        return [rows, vocab, fn, profile](benchmark::State& state) {
          const Tensor logits = RandomLogits(rows, vocab, kSeedLogits);
          std::vector<float> work(logits.data<float>().begin(), logits.data<float>().end());
          for (auto _ : state) {
            state.PauseTiming();  // restore the input rows; not part of the filter
            std::copy(logits.data<float>().begin(), logits.data<float>().end(), work.begin());
            state.ResumeTiming();
            for (std::int64_t b = 0; b < rows; ++b) {
              fn(profile, std::span<float>(work).subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab)));
            }
            benchmark::DoNotOptimize(work.data());
            benchmark::ClobberMemory();
          }
          state.SetItemsProcessed(state.iterations() * rows * vocab);
        };
      };
      benchmark::RegisterBenchmark((prefix + "Baseline").c_str(), run(naive, Profile::kCanonical))
          ->Unit(benchmark::kMillisecond)->UseRealTime();
      for (Profile p : {Profile::kCanonical, Profile::kVllm, Profile::kSglang, Profile::kFlashinfer, Profile::kAscendV2}) {
        std::string name(ProfileName(p));
        name[0] = static_cast<char>(name[0] - 'a' + 'A');
        if (name == "Ascend_v2") name = "AscendV2";
        benchmark::RegisterBenchmark((prefix + name).c_str(), run(reference, p))->Unit(benchmark::kMillisecond)->UseRealTime();
      }
    }
  }
}

}  // namespace sampcheck::bench
