// SPDX-License-Identifier: Apache-2.0
#pragma once
// Rows of a reference stage computed in parallel (docs/spec/cli.md "Global options").
//
// Contract:
// - SetRowThreads(n) sets the number of threads ParallelRows uses (1 <= n <= 1024, else
//   std::invalid_argument naming --threads; 1, the default and
//   what every test uses, runs the rows in order on the calling thread). The CLI's --threads
//   sets it once before any stage runs; it is process-wide and not meant to change while a
//   stage runs.
// - ParallelRows(rows, fn) calls fn(b) once for every b in [0, rows): with T = min(threads,
//   rows) threads, thread t takes the contiguous rows [t rows / T, (t + 1) rows / T) in order.
//   Every fn(b) must touch only row b's outputs (every stage's rows are independent), so the
//   results are the same bits for every thread count. If calls throw, the exception of the
//   lowest row that threw is rethrown after all threads finish — the one a sequential run
//   would throw, since each thread stops at its first throw and earlier ranges had none.
// - A ParallelRows called from inside fn (a stage composed of stages; a reference stage run by
//   the draw harness's concurrent batches, harness/draw_harness.h) runs its rows in order on
//   the calling thread: the threads are spent once, by the outermost call, not multiplied.
// - A thread that cannot be created (a memory or process limit) is not an error: the ranges
//   of the threads not started run on the calling thread after its own, with the same results.
// Example: SetRowThreads(2); ParallelRows(64, fn) runs rows 0..31 and 32..63 concurrently.

#include <cstdint>
#include <functional>

namespace sampcheck::reference {

void SetRowThreads(int threads);
int RowThreads();
void ParallelRows(std::int64_t rows, const std::function<void(std::int64_t)>& fn);

}  // namespace sampcheck::reference
