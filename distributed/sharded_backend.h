// SPDX-License-Identifier: Apache-2.0
#pragma once
// ShardedBackend: a backend whose CountDraws is split across the ranks of an MPI job
// (docs/spec/sharded_statistics.md). Every rank runs the same statistical harness on the same
// cases in the same order; when the wrapped backend can count a range of draws
// (StageCapabilities::count_draws_range), rank k counts the draws of ShardRange(n, R, k)
// (distributed/shard_range.h) and MPI_Allreduce(MPI_SUM) over int64 counts gives every rank
// the whole count tensor, equal bit for bit to one process's CountDraws. Otherwise every rank
// calls the wrapped CountDraws itself (same counts, no speed-up). Name, stages, capabilities
// (core/stage_capabilities.h) and Run are the wrapped backend's, so the report is the
// single-process report byte for byte.
//
// Contract:
// - Collective: every rank must call CountDraws with the same arguments in the same order.
//   A rank whose shard throws still takes part: a status all-reduce comes first, and every
//   rank then throws InputError naming the first failing rank and its message.
// - Sizes: counts are int64; the sum of R shards is at most n per row, so no overflow.
// - Deadline: every collective is non-blocking and polled (distributed/mpi_wait.h) for at most
//   `timeout_s`; a collective that does not complete (a stopped or dead rank, a rank on
//   another case) ends the job: this rank prints the case and the collective to stderr and
//   calls MPI_Abort with status 3. A blocking collective would wait for ever.
// - Agreement: before the counts, the ranks compare a fingerprint of (case id, stage, draws,
//   seed); ranks on different cases throw InputError on every rank instead of mixing counts.
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "core/backend.h"

namespace sampcheck::distributed {

class ShardedBackend final : public Backend {
 public:
  ShardedBackend(std::unique_ptr<Backend> inner, MPI_Comm comm, double timeout_s = 300.0);
  std::string Name() const override { return inner_->Name(); }
  std::vector<std::string> SupportedStages() const override { return inner_->SupportedStages(); }
  TensorMap Run(const std::string& stage, const Case& c) override { return inner_->Run(stage, c); }
  StageCapabilities Capabilities(const std::string& stage) const override { return inner_->Capabilities(stage); }
  Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override;
  // One rank's range, not collective: the wrapped backend's.
  Tensor CountDrawsRange(const std::string& stage, const Case& c, std::int64_t first_draw, std::int64_t draws,
                         std::uint64_t seed) override {
    return inner_->CountDrawsRange(stage, c, first_draw, draws, seed);
  }
  std::vector<CaseOutcome> RunBatch(const std::string& stage, const std::vector<const Case*>& cases,
                                    const OutcomeCallback& on_outcome) override {
    return inner_->RunBatch(stage, cases, on_outcome);
  }
  // Draws this rank counted for the run so far (for the throughput line); draws every rank
  // repeats count on rank 0 only.
  std::int64_t local_draws() const { return local_draws_; }

 private:
  std::unique_ptr<Backend> inner_;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  double timeout_s_ = 300.0;
  // Runs a non-blocking collective (start fills the request) and waits with the deadline;
  // aborts the job naming `what` and the case when it does not complete.
  template <typename Start>
  void Collective(const std::string& what, const Case& c, Start start);
  std::int64_t local_draws_ = 0;
};

}  // namespace sampcheck::distributed
