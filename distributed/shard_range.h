// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which draws a rank counts in a sharded statistical run (docs/spec/sharded_statistics.md):
// rank k of R counts draws [floor(n k / R), floor(n (k + 1) / R)). The ranges are disjoint,
// cover [0, n) in order and differ in size by at most one; with draw d keyed by d in the
// counter-based noise, their counts add up to a single process's counts bit for bit.
// Example: n = 10, R = 4: [0, 2), [2, 5), [5, 7), [7, 10).
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace sampcheck::distributed {

// n in [0, 2^32] (a case's draw count), 1 <= ranks <= 2^20, 0 <= rank < ranks: n * rank < 2^52
// fits in int64 exactly.
inline std::pair<std::int64_t, std::int64_t> ShardRange(std::int64_t n, std::int64_t ranks, std::int64_t rank) {
  if (n < 0 || n > (std::int64_t{1} << 32) || ranks < 1 || ranks > (1 << 20) || rank < 0 || rank >= ranks) {
    throw std::invalid_argument("ShardRange: need 0 <= n <= 2^32, 1 <= ranks <= 2^20 and 0 <= rank < ranks");
  }
  return {n * rank / ranks, n * (rank + 1) / ranks};
}

}  // namespace sampcheck::distributed
