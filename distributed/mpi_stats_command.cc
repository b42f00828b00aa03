// SPDX-License-Identifier: Apache-2.0
// `sampcheck-mpi stats` (distributed/mpi_commands.h, docs/spec/sharded_statistics.md): the
// statistical harnesses of `sampcheck stats` with every case's draws sharded across the ranks
// (distributed/sharded_backend.h). Rank 0 prints and writes exactly what `sampcheck stats`
// prints and writes; the throughput goes to stderr.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/backend_registry.h"
#include "core/error.h"
#include "distributed/mpi_commands.h"
#include "distributed/sharded_backend.h"
#include "reports/conform_report.h"
#include "reports/report_set.h"

namespace sampcheck::distributed {

int RunShardedStats(const ShardedStatsOptions& options) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (options.run.budget_seconds > 0.0) {
    // A time budget skips cases by each rank's own clock: ranks would disagree on the cases
    // and the collectives would not match.
    throw InputError("--budget is not available in a sharded run");
  }
  auto sharded =
      std::make_unique<ShardedBackend>(cli::MakeBackend(options.backend, cli::BackendOptions{}), MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  const auto results = cli::RunStatisticalCases(*sharded, options.run);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  long long mine = sharded->local_draws(), total = 0;
  MPI_Reduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0) return 0;
  std::fprintf(stderr, "sampcheck-mpi stats: %d ranks, %lld draws counted in %.3f s (%.4g draws/s)\n", size, total,
               seconds, seconds > 0 ? static_cast<double>(total) / seconds : 0.0);
  // From here on: StatsCommand::Run's output (cli/stats_command.cc), byte for byte.
  int failed = 0, ran = 0;
  for (const auto& r : results) {
    ran += r.verdict != Verdict::kSkip;
    if (r.verdict == Verdict::kFail) {
      ++failed;
      std::printf("FAIL %s\n     %s\n", r.id.c_str(), r.reason.c_str());
    }
  }
  if (ran == 0) {
    throw InputError("no statistical case was run: the selection is empty or backend '" + options.backend +
                     "' supports none of the selected stages");
  }
  std::printf("statistical harnesses on backend '%s' (seed epoch %llu%s)\n", options.backend.c_str(),
              static_cast<unsigned long long>(options.run.seed_epoch), options.run.thorough ? ", thorough" : "");
  std::cout << reports::SummaryTable(reports::SummariseByStage(results));
  if (!options.report_dir.empty()) {
    const auto path = reports::WriteJsonReport(options.report_dir, {options.backend, ""}, results);
    std::printf("report: %s\n", path.c_str());
    for (const auto& rendered : reports::WriteRenderedReports(path)) std::printf("report: %s\n", rendered.c_str());
  }
  std::fflush(stdout);
  return failed ? 1 : 0;
}

}  // namespace sampcheck::distributed
