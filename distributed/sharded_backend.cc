// SPDX-License-Identifier: Apache-2.0
// ShardedBackend (distributed/sharded_backend.h).
#include "distributed/sharded_backend.h"

#include <cstring>

#include "core/error.h"
#include "distributed/shard_range.h"

namespace sampcheck::distributed {

ShardedBackend::ShardedBackend(std::unique_ptr<Backend> inner, MPI_Comm comm) : inner_(std::move(inner)), comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

Tensor ShardedBackend::CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) {
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
    error = e.what();
  }
  local_draws_ += hi - lo;
  // The first failing rank (or size_ when none), so that every rank fails the same way.
  const int mine = error.empty() ? size_ : rank_;
  int first = size_;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_);
  if (first != size_) {
    // The failing rank's message, broadcast so the report names it on every rank.
    int len = rank_ == first ? static_cast<int>(error.size()) : 0;
    MPI_Bcast(&len, 1, MPI_INT, first, comm_);
    std::string text(static_cast<std::size_t>(len), ' ');
    if (rank_ == first) text = error;
    if (len > 0) MPI_Bcast(text.data(), len, MPI_CHAR, first, comm_);
    throw InputError(text + (size_ > 1 ? " (rank " + std::to_string(first) + " of " + std::to_string(size_) + ")" : ""));
  }
  // Every rank's counts have the same shape: the case decides it.
  long long shape[2] = {local.rank() == 2 ? local.dim(0) : -1, local.rank() == 2 ? local.dim(1) : -1};
  long long lo_shape[2], hi_shape[2];
  MPI_Allreduce(shape, lo_shape, 2, MPI_LONG_LONG, MPI_MIN, comm_);
  MPI_Allreduce(shape, hi_shape, 2, MPI_LONG_LONG, MPI_MAX, comm_);
  if (lo_shape[0] != hi_shape[0] || lo_shape[1] != hi_shape[1] || lo_shape[0] < 0) {
    throw InputError("backend '" + Name() + "' returned counts of different shapes on different ranks for case '" +
                     c.id + "'");
  }
  Tensor total(DType::kI64, local.shape());
  static_assert(sizeof(std::int64_t) == 8, "MPI_INT64_T carries int64 counts");
  MPI_Allreduce(local.data<std::int64_t>().data(), total.data<std::int64_t>().data(),
                static_cast<int>(local.numel()), MPI_INT64_T, MPI_SUM, comm_);
  return total;
}

}  // namespace sampcheck::distributed
