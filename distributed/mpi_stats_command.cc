// SPDX-License-Identifier: Apache-2.0
// `sampcheck-mpi stats` (distributed/mpi_commands.h, docs/spec/sharded_statistics.md): the
// statistical harnesses of `sampcheck stats` with every case's draws sharded across the ranks
// (distributed/sharded_backend.h). Rank 0 prints and writes exactly what `sampcheck stats`
// prints and writes; the throughput goes to stderr.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/backend_registry.h"
#include "core/error.h"
#include "distributed/mpi_commands.h"
#include "distributed/mpi_wait.h"
#include "distributed/sharded_backend.h"
#include "cli/stats_command.h"

namespace sampcheck::distributed {

namespace {

// Every rank must run the same cases in the same order (sharded_backend.h): ranks started with
// another backend, stage, profile, seed epoch or --thorough used to deadlock in the first
// collective or, with only the epoch different, to pass with counts of different seeds
// summed. The arguments' text is compared by one MIN all-reduce of (h, ~h), h its FNV-1a 64,
// under the rank timeout.
void AgreeOnArguments(const ShardedStatsOptions& o, int rank) {
  std::string text = "backend=" + o.backend + ";epoch=" + std::to_string(o.run.seed_epoch) +
                     ";thorough=" + (o.run.thorough ? "1" : "0") + ";stages=";
  for (const auto& s : o.run.stages) text += s + ",";
  text += ";profiles=";
  for (const auto& p : o.run.profiles) text += p + ",";
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  unsigned long long fp[2] = {h, ~h}, agreed[2] = {0, 0};
  std::vector<MPI_Request> req(1);
  MPI_Iallreduce(fp, agreed, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD, &req[0]);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::microseconds(static_cast<std::int64_t>(o.rank_timeout_s * 1e6));
  if (WaitAll(req, deadline) != WaitOutcome::kDone) {
    std::fprintf(stderr, "sampcheck-mpi stats: rank %d: the ranks did not all reach the argument check within the rank "
                 "timeout (%g s); ending the job\n", rank, o.rank_timeout_s);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  if (agreed[0] != fp[0] || agreed[1] != fp[1]) {
    std::string stages, profiles;
    for (const auto& s : o.run.stages) stages += (stages.empty() ? "" : " ") + s;
    for (const auto& p : o.run.profiles) profiles += (profiles.empty() ? "" : " ") + p;
    throw InputError("the ranks were started with different arguments; every rank must get the same --backend, "
                     "--stage, --profile, --seed-epoch and --thorough. This rank has --backend '" + o.backend +
                     "', --stage '" + stages + "', --profile '" + profiles + "', --seed-epoch " +
                     std::to_string(o.run.seed_epoch) + (o.run.thorough ? ", --thorough" : ""));
  }
}

}  // namespace

int RunShardedStats(const ShardedStatsOptions& options) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (options.run.budget_seconds > 0.0) {
    // A time budget skips cases by each rank's own clock: ranks would disagree on the cases
    // and the collectives would not match.
    throw InputError("--budget is not available in a sharded run");
  }
  AgreeOnArguments(options, rank);
  if (options.fault != "none" && (options.fault_rank < 0 || options.fault_rank >= size)) {
    throw InputError("--fault-rank " + std::to_string(options.fault_rank) + " is not a rank of this job (0.." +
                     std::to_string(size - 1) + ")");
  }
  if (options.fault == "hang" && rank == options.fault_rank) {
    for (;;) ::pause();  // the others must end the job by their deadline
  }
  auto sharded =
      std::make_unique<ShardedBackend>(cli::MakeBackend(options.backend, cli::BackendOptions{}), MPI_COMM_WORLD, options.rank_timeout_s);
  const auto start = std::chrono::steady_clock::now();
  const auto results = cli::RunStatisticalCases(*sharded, options.run);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  long long mine = sharded->local_draws(), total = 0;
  MPI_Reduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0) return 0;
  std::fprintf(stderr, "sampcheck-mpi stats: %d ranks, %lld draws counted in %.3f s (%.4g draws/s)\n", size, total,
               seconds, seconds > 0 ? static_cast<double>(total) / seconds : 0.0);
  return cli::PrintStatsOutcome(results, {.heading = cli::StatsHeading(options.backend, options.run),
                                          .empty_reason = "backend '" + options.backend + "' supports none of the selected stages",
                                          .report_backend = options.backend,
                                          .report_dir = options.report_dir});
}

}  // namespace sampcheck::distributed
