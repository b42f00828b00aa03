// SPDX-License-Identifier: Apache-2.0
#pragma once
// The subcommands of `sampcheck-mpi` (docs/spec/tp_consensus.md "Real ranks",
// docs/spec/sharded_statistics.md), run under `mpirun -np R`.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/stats_command.h"

namespace sampcheck::distributed {

struct TpOptions {
  std::string backend = "reference";
  std::vector<std::string> cases;     // case names (DivergenceCases()); empty: all
  std::vector<std::string> profiles;  // sglang, vllm; empty: both
  std::int64_t draws = 20000;
  std::uint64_t seed_epoch = 0;
  // The collective that makes consensus: "min" (MPI_Allreduce, MPI_MIN), "planted-sum"
  // (MPI_SUM in its place: the field bug the rank-level check must catch), "nccl-min"
  // (ncclAllReduce with ncclMin, when built with NCCL).
  std::string collective = "min";
  // none, die, die-ahead (die while rank 0 still finishes the case before: it sleeps 2 s
  // there), hang, garbage, lie (valid ids that are not the rank's draws: token 0 always)
  std::string fault = "none";
  int fault_rank = 1;
  std::string fault_case;  // empty: the first selected case
  double rank_timeout_s = 30.0;
  std::string report_dir;
};

// Exit status: 0 all passed, 1 a case failed, 2 bad options; a rank fault ends the job
// through MPI_Abort with status 3 after rank 0 wrote the report.
int RunTp(const TpOptions& options);

struct ShardedStatsOptions {
  std::string backend = "reference";
  cli::StatsRunOptions run;
  std::string report_dir;
  // How long a rank waits in one collective for the others (a stopped or dead rank, ranks on
  // different cases): then the job ends with status 3 and a message naming the collective.
  // The ranks do equal work per case, so this bounds their skew, not a case's time.
  double rank_timeout_s = 300.0;
  // A planted rank fault for tests (docs/spec/sharded_statistics.md "How"): "hang"
  // stops rank fault_rank after the argument check, as a SIGSTOP would.
  std::string fault = "none";
  int fault_rank = 1;
};
// Before any case, the ranks compare their arguments (backend, stages, profiles, seed epoch,
// thorough): ranks that disagree would run different cases into each other's collectives, so
// every rank then fails with status 2 and names what it was given.
int RunShardedStats(const ShardedStatsOptions& options);

}  // namespace sampcheck::distributed
