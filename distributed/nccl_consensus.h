// SPDX-License-Identifier: Apache-2.0
#pragma once
// Consensus through NCCL (docs/spec/tp_consensus.md "NCCL"): ncclAllReduce with ncclMin on
// the ids (ncclInt64) in device memory, one GPU per rank, the communicator's unique id sent
// from rank 0 over MPI_COMM_WORLD. Built from nccl_consensus_nccl.cc when the CUDA toolkit and
// nccl.h are found, else from nccl_consensus_stub.cc (NcclConsensusAvailable() false).
#include <cstdint>
#include <string>
#include <vector>

namespace sampcheck::distributed {

bool NcclConsensusAvailable();
// "built with NCCL x.y.z" or why not.
std::string NcclConsensusStatus();
// agreed[i] = MIN over ranks of ids[i]; collective over MPI_COMM_WORLD's ranks, device
// (local rank mod device count). Throws InputError on a CUDA or NCCL error, or when built
// without NCCL.
void NcclAllReduceMin(const std::vector<std::int64_t>& ids, std::vector<std::int64_t>& agreed);

}  // namespace sampcheck::distributed
