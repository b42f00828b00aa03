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
// The most threads --threads accepts: far above the cores of any machine this runs on, and
// low enough that their stacks (8 MiB of address space each by default) stay bounded.
constexpr int kMaxRowThreads = 1024;
// Whether this thread is running a range of a ParallelRows call (nested calls run in order).
thread_local bool t_inside_rows = false;
}  // namespace

void SetRowThreads(int threads) {
  if (threads < 1 || threads > kMaxRowThreads) {
    throw std::invalid_argument("--threads = " + std::to_string(threads) + " must be in [1, " +
                                std::to_string(kMaxRowThreads) + "]");
  }
  g_threads.store(threads);
}

int RowThreads() { return g_threads.load(); }

void ParallelRows(std::int64_t rows, const std::function<void(std::int64_t)>& fn) {
  const std::int64_t t_count = std::min<std::int64_t>(RowThreads(), rows);
  if (t_count <= 1 || t_inside_rows) {
    for (std::int64_t b = 0; b < rows; ++b) fn(b);
    return;
  }
  std::vector<std::exception_ptr> error(static_cast<std::size_t>(t_count));
  auto range = [&](std::int64_t t) {
    const bool was_inside = t_inside_rows;
    t_inside_rows = true;
    try {
      for (std::int64_t b = t * rows / t_count; b < (t + 1) * rows / t_count; ++b) fn(b);
    } catch (...) {
      error[static_cast<std::size_t>(t)] = std::current_exception();
    }
    t_inside_rows = was_inside;
  };
  std::vector<std::thread> pool;
  // A thread that cannot be created (memory or process limits) is not an error: its rows run
  // here instead, with the same results. An exception leaving this function with joinable
  // threads in `pool` would call std::terminate.
  std::int64_t started = 1;
  try {
    pool.reserve(static_cast<std::size_t>(t_count - 1));
    for (std::int64_t t = 1; t < t_count; ++t) {
      pool.emplace_back(range, t);
      started = t + 1;
    }
  } catch (const std::exception&) {  // std::system_error, std::bad_alloc
  }
  range(0);
  for (std::int64_t t = started; t < t_count; ++t) range(t);
  for (auto& th : pool) th.join();
  for (const auto& e : error) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace sampcheck::reference
