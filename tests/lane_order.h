// SPDX-License-Identifier: Apache-2.0
#pragma once
// The expected canonical lane grouping of a set of order keys (docs/spec/reductions.md: index i
// on lane i mod 1024, each lane in index order), written from that definition with std::sort,
// for the tests of GroupCandidatesByLane and the gathers that call it
// (tests/gpu_merge_runs_test.cc, tests/gpu_kernels_test.cc "GpuTopKSurvivors").

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace sampcheck {

// `keys` (the index in the low 32 bits) sorted by (index mod 1024, index).
inline std::vector<std::uint64_t> ByCanonicalLane(std::vector<std::uint64_t> keys) {
  auto lane_order = [](std::uint64_t key) {
    const std::uint64_t index = key & 0xffffffffu;
    return std::pair{index % 1024, index};
  };
  std::sort(keys.begin(), keys.end(), [&](std::uint64_t x, std::uint64_t y) { return lane_order(x) < lane_order(y); });
  return keys;
}

}  // namespace sampcheck
