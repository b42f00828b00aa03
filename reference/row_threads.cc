// SPDX-License-Identifier: Apache-2.0
// Rows of a reference stage in parallel (reference/row_threads.h).
#include "reference/row_threads.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace sampcheck::reference {

namespace {
std::atomic<int> g_threads{1};
}  // namespace

void SetRowThreads(int threads) {
  if (threads < 1) throw std::invalid_argument("--threads = " + std::to_string(threads) + " must be >= 1");
  g_threads.store(threads);
}

int RowThreads() { return g_threads.load(); }

void ParallelRows(std::int64_t rows, const std::function<void(std::int64_t)>& fn) {
  const std::int64_t t_count = std::min<std::int64_t>(RowThreads(), rows);
  if (t_count <= 1) {
    for (std::int64_t b = 0; b < rows; ++b) fn(b);
    return;
  }
  std::vector<std::exception_ptr> error(static_cast<std::size_t>(t_count));
  auto range = [&](std::int64_t t) {
    try {
      for (std::int64_t b = t * rows / t_count; b < (t + 1) * rows / t_count; ++b) fn(b);
    } catch (...) {
      error[static_cast<std::size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (std::int64_t t = 1; t < t_count; ++t) pool.emplace_back(range, t);
  range(0);
  for (auto& th : pool) th.join();
  for (const auto& e : error) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace sampcheck::reference
