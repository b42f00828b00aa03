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
  std::string fault = "none";  // none, die, hang, garbage
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
};
int RunShardedStats(const ShardedStatsOptions& options);

}  // namespace sampcheck::distributed
