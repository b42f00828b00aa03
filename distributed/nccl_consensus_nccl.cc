// SPDX-License-Identifier: Apache-2.0
// NCCL consensus (distributed/nccl_consensus.h): ncclAllReduce(ncclInt64, ncclMin).
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include "core/error.h"
#include "distributed/nccl_consensus.h"

namespace sampcheck::distributed {
namespace {

void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw InputError(std::string(what) + ": " + cudaGetErrorString(e));
}
void Check(ncclResult_t e, const char* what) {
  if (e != ncclSuccess) throw InputError(std::string(what) + ": " + ncclGetErrorString(e));
}

// One communicator per process, made on first use (every rank reaches it in the same case).
ncclComm_t Communicator() {
  static ncclComm_t comm = nullptr;
  if (comm) return comm;
  int rank = 0, size = 1, devices = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  if (devices < 1) throw InputError("ncclAllReduce: no CUDA device on rank " + std::to_string(rank));
  Check(cudaSetDevice(rank % devices), "cudaSetDevice");
  ncclUniqueId id;
  if (rank == 0) Check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  Check(ncclCommInitRank(&comm, size, id, rank), "ncclCommInitRank");
  return comm;
}

}  // namespace

bool NcclConsensusAvailable() { return true; }

std::string NcclConsensusStatus() {
  return "built with NCCL " + std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + "." +
         std::to_string(NCCL_PATCH);
}

void NcclAllReduceMin(const std::vector<std::int64_t>& ids, std::vector<std::int64_t>& agreed) {
  ncclComm_t comm = Communicator();
  const std::size_t bytes = ids.size() * sizeof(std::int64_t);
  std::int64_t* in = nullptr;
  std::int64_t* out = nullptr;
  cudaStream_t stream = nullptr;
  Check(cudaMalloc(&in, bytes), "cudaMalloc");
  Check(cudaMalloc(&out, bytes), "cudaMalloc");
  Check(cudaStreamCreate(&stream), "cudaStreamCreate");
  Check(cudaMemcpy(in, ids.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  Check(ncclAllReduce(in, out, ids.size(), ncclInt64, ncclMin, comm, stream), "ncclAllReduce");
  Check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  agreed.resize(ids.size());
  Check(cudaMemcpy(agreed.data(), out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  cudaStreamDestroy(stream);
  cudaFree(in);
  cudaFree(out);
}

}  // namespace sampcheck::distributed
