// SPDX-License-Identifier: Apache-2.0
// `sampcheck-mpi`: tensor-parallel consensus on real ranks and sharded statistics
// (docs/spec/tp_consensus.md, docs/spec/sharded_statistics.md). Run it under
//   mpirun --allow-run-as-root --oversubscribe -np R sampcheck-mpi tp|stats ...
#include <mpi.h>

#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli/option_checks.h"
#include "core/exception_text.h"
#include "distributed/mpi_commands.h"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  // Errors come back as codes (and are reported with the rank), never as a silent abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  CLI::App app{"sampcheck-mpi: tensor-parallel consensus and sharded statistics on MPI ranks"};
  app.require_subcommand(1);
  sampcheck::distributed::TpOptions tp;
  auto* tp_cmd = app.add_subcommand("tp", "Each rank samples its own perturbed logits; consensus by a real collective");
  tp_cmd->add_option("--backend", tp.backend, "Backend that draws on each rank (reference, plugin:PATH, exec:CMD)")
      ->capture_default_str();
  tp_cmd->add_option("--case", tp.cases, "Only these divergence cases (shared_noise_4ulp, shared_noise_renorm, independent_noise)");
  tp_cmd->add_option("--profile", tp.profiles, "Only these profiles (sglang: MIN, vllm: rank 0)");
  tp_cmd->add_option("--draws", tp.draws, "Draws per case")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 24))->capture_default_str();
  tp_cmd->add_option("--seed-epoch", tp.seed_epoch, "Seeds are hash(case id, ranks, epoch)")
      ->capture_default_str()
      ->check(sampcheck::cli::Uint64Text());
  tp_cmd->add_option("--collective", tp.collective, "min | planted-sum | nccl-min")
      ->check(CLI::IsMember({"min", "planted-sum", "nccl-min"}))
      ->capture_default_str();
  tp_cmd->add_option("--fault", tp.fault, "Plant a rank fault: none | die | die-ahead | hang | garbage | lie")
      ->check(CLI::IsMember({"none", "die", "die-ahead", "hang", "garbage", "lie"}))
      ->capture_default_str();
  tp_cmd->add_option("--fault-rank", tp.fault_rank, "Rank that fails")->capture_default_str();
  tp_cmd->add_option("--fault-case", tp.fault_case, "Case name in which it fails (default: the first)");
  // At most a week, as the CLI's --case-timeout: 1e20 s overflowed the deadline's clock.
  tp_cmd->add_option("--rank-timeout", tp.rank_timeout_s, "Seconds a rank may take per exchange before it is reported hung")
      ->check(sampcheck::cli::FiniteInRange(0.0, sampcheck::cli::kMaxCaseTimeoutSeconds, /*min_open=*/true))
      ->capture_default_str();
  tp_cmd->add_option("--report", tp.report_dir, "Write report.json here (rank 0)");

  sampcheck::distributed::ShardedStatsOptions stats;
  auto* stats_cmd = app.add_subcommand("stats", "`sampcheck stats` with each case's draws sharded across the ranks");
  stats_cmd->add_option("--backend", stats.backend, "Backend name (built in, or wrong:<name>)")->required();
  stats_cmd->add_option("--stage", stats.run.stages, "Only these stages");
  stats_cmd->add_option("--profile", stats.run.profiles, "Only these profiles");
  stats_cmd->add_option("--seed-epoch", stats.run.seed_epoch, "Suite epoch: seeds are hash(case id, epoch)")
      ->capture_default_str()
      ->check(sampcheck::cli::Uint64Text());
  stats_cmd->add_option("--rank-timeout", stats.rank_timeout_s,
                        "Seconds a rank may wait in one collective for the others before the job is ended")
      ->check(sampcheck::cli::FiniteInRange(0.0, sampcheck::cli::kMaxCaseTimeoutSeconds, /*min_open=*/true))
      ->capture_default_str();
  stats_cmd->add_flag("--thorough", stats.run.thorough, "Large-n runs at the cases' thorough effect sizes");
  stats_cmd->add_option("--report", stats.report_dir, "Write report.json to this directory (rank 0)");
  stats_cmd->add_option("--fault", stats.fault, "Plant a rank fault: none | hang")
      ->check(CLI::IsMember({"none", "hang"}))
      ->capture_default_str();
  stats_cmd->add_option("--fault-rank", stats.fault_rank, "Rank that fails")->capture_default_str();

  int status = 0;
  try {
    app.parse(argc, argv);
    status = tp_cmd->parsed() ? sampcheck::distributed::RunTp(tp) : sampcheck::distributed::RunShardedStats(stats);
  } catch (const CLI::ParseError& e) {
    status = rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
    if (status != 0) status = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sampcheck-mpi: rank %d: error: %s\n", rank, sampcheck::ExceptionText(e).c_str());
    status = 2;
  }
  MPI_Finalize();
  return status;
}
