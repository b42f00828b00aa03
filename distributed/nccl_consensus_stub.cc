// SPDX-License-Identifier: Apache-2.0
// NCCL consensus when sampcheck-mpi is built without NCCL (distributed/nccl_consensus.h).
#include "core/error.h"
#include "distributed/nccl_consensus.h"

namespace sampcheck::distributed {

bool NcclConsensusAvailable() { return false; }

std::string NcclConsensusStatus() { return "built without NCCL: no CUDA toolkit or no nccl.h at configure time"; }

void NcclAllReduceMin(const std::vector<std::int64_t>&, std::vector<std::int64_t>&) {
  throw InputError("ncclAllReduce: " + NcclConsensusStatus());
}

}  // namespace sampcheck::distributed
