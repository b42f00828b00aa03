// SPDX-License-Identifier: Apache-2.0
// ShardedBackend (distributed/sharded_backend.h).
#include "distributed/sharded_backend.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/error.h"
#include "core/exception_text.h"
#include "distributed/mpi_wait.h"
#include "distributed/shard_range.h"

namespace sampcheck::distributed {

ShardedBackend::ShardedBackend(std::unique_ptr<Backend> inner, MPI_Comm comm, double timeout_s)
    : inner_(std::move(inner)), comm_(comm), timeout_s_(timeout_s) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

template <typename Start>
void ShardedBackend::Collective(const std::string& what, const Case& c, Start start) {
  std::vector<MPI_Request> req(1);
  start(&req[0]);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<std::int64_t>(timeout_s_ * 1e6));
  const WaitOutcome w = WaitAll(req, deadline);
  if (w == WaitOutcome::kDone) return;
  const char* why = w == WaitOutcome::kTimedOut     ? "did not complete within the rank timeout"
                    : w == WaitOutcome::kTerminated ? "was interrupted: mpirun ended the job (a rank died)"
                                                    : "failed with an MPI error";
  std::fprintf(stderr,
               "sampcheck-mpi stats: rank %d: the %s for case '%s' %s (%g s): a rank stopped answering, died, or "
               "runs other cases; ending the job\n",
               rank_, what.c_str(), c.id.c_str(), why, timeout_s_);
  std::fflush(stderr);
  MPI_Abort(comm_, 3);
}

Tensor ShardedBackend::CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) {
  // The same case on every rank: FNV-1a 64 of (id, stage, draws, seed), compared by MIN / MAX.
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](const void* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      h ^= static_cast<const unsigned char*>(p)[i];
      h *= 0x100000001b3ull;
    }
  };
  mix(c.id.data(), c.id.size());
  mix(stage.data(), stage.size());
  mix(&draws, sizeof draws);
  mix(&seed, sizeof seed);
  unsigned long long fp[2] = {h, ~h}, agreed[2] = {0, 0};
  Collective("case agreement all-reduce", c, [&](MPI_Request* r) {
    MPI_Iallreduce(fp, agreed, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm_, r);
  });
  if (agreed[0] != fp[0] || agreed[1] != fp[1]) {  // min(h) == h and min(~h) == ~h only if all equal
    throw InputError("the ranks are not on the same case: this rank (" + std::to_string(rank_) + ") runs case '" + c.id +
                     "' with " + std::to_string(draws) + " draws and seed " + std::to_string(seed) +
                     "; every rank must be started with the same arguments");
  }
  if (!inner_->Capabilities(stage).count_draws_range) {
    if (rank_ == 0) local_draws_ += draws;  // every rank draws them all: count them once
    return inner_->CountDraws(stage, c, draws, seed);
  }
  const auto [lo, hi] = ShardRange(draws, size_, rank_);
  Tensor local;
  std::string error;
  try {
    local = inner_->CountDrawsRange(stage, c, lo, hi - lo, seed);
    if (local.dtype() != DType::kI64) error = "counts are " + std::string(DTypeName(local.dtype())) + ", not i64";
  } catch (const std::exception& e) {
    error = ExceptionText(e);
  }
  local_draws_ += hi - lo;
  // The first failing rank (or size_ when none), so that every rank fails the same way.
  const int mine = error.empty() ? size_ : rank_;
  int first = size_;
  Collective("status all-reduce", c, [&](MPI_Request* r) { MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_, r); });
  if (first != size_) {
    // The failing rank's message, broadcast so the report names it on every rank.
    int len = rank_ == first ? static_cast<int>(error.size()) : 0;
    Collective("error-length broadcast", c, [&](MPI_Request* r) { MPI_Ibcast(&len, 1, MPI_INT, first, comm_, r); });
    std::string text(static_cast<std::size_t>(len), ' ');
    if (rank_ == first) text = error;
    if (len > 0) {
      Collective("error broadcast", c, [&](MPI_Request* r) { MPI_Ibcast(text.data(), len, MPI_CHAR, first, comm_, r); });
    }
    throw InputError(text + (size_ > 1 ? " (rank " + std::to_string(first) + " of " + std::to_string(size_) + ")" : ""));
  }
  // Every rank's counts have the same shape: the case decides it.
  long long shape[4] = {local.rank() == 2 ? local.dim(0) : -1, local.rank() == 2 ? local.dim(1) : -1, 0, 0};
  shape[2] = -shape[0];
  shape[3] = -shape[1];
  long long lo_shape[4];
  // One MIN all-reduce of (d0, d1, -d0, -d1) gives the minima and the negated maxima.
  Collective("shape all-reduce", c, [&](MPI_Request* r) { MPI_Iallreduce(shape, lo_shape, 4, MPI_LONG_LONG, MPI_MIN, comm_, r); });
  if (lo_shape[0] != -lo_shape[2] || lo_shape[1] != -lo_shape[3] || lo_shape[0] < 0) {
    throw InputError("backend '" + Name() + "' returned counts of different shapes on different ranks for case '" +
                     c.id + "'");
  }
  Tensor total(DType::kI64, local.shape());
  static_assert(sizeof(std::int64_t) == 8, "MPI_INT64_T carries int64 counts");
  Collective("count all-reduce", c, [&](MPI_Request* r) {
    MPI_Iallreduce(local.data<std::int64_t>().data(), total.data<std::int64_t>().data(), static_cast<int>(local.numel()),
                   MPI_INT64_T, MPI_SUM, comm_, r);
  });
  return total;
}

}  // namespace sampcheck::distributed
