// SPDX-License-Identifier: Apache-2.0
#pragma once
// A row for the survivor gathers' cache tests (tests/gpu_kernels_test.cc "GpuTopKSurvivors",
// tests/gpu_fast_sampling_test.cc "SurvivorGather"): `vocab` exact values in [0, 1) (24-bit
// multiples of 2^-24 from SplitMix64 `seed`), plus 2 on the first `crowd` indices i with
// share_of(i) == share, so that the crowd holds the row's largest values, all in one thread's
// (or virtual lane's) share of the row.

#include <cstdint>
#include <vector>

#include "core/split_mix64.h"

namespace sampcheck {

template <class ShareOf>
std::vector<float> CrowdedRow(std::uint64_t seed, std::int64_t vocab, int crowd, ShareOf share_of,
                              std::int64_t share) {
  SplitMix64 rng(seed);
  std::vector<float> row(static_cast<std::size_t>(vocab));
  for (float& x : row) x = static_cast<float>(rng.Next() >> 40) * 0x1p-24f;
  int crowded = 0;
  for (std::int64_t i = 0; i < vocab && crowded < crowd; ++i) {
    if (share_of(i) != share) continue;
    row[static_cast<std::size_t>(i)] += 2.0f;
    ++crowded;
  }
  return row;
}

}  // namespace sampcheck
