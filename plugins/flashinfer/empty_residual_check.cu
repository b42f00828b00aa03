// SPDX-License-Identifier: Apache-2.0
// A device check of one verdict (docs/peers/flashinfer.md "Verdicts", the (a) on
// chain_speculative_sampling; docs/spec/speculative.md "flashinfer"): does FlashInfer's
// ChainSpeculativeSampling emit whatever its block's shared memory held when a row's residual is
// empty? The kernel falls back to `temp_storage.last_valid_id`, a field it never initialises.
// Each input runs right after a kernel that fills every SM's shared memory with a sentinel; if
// the emitted token is that sentinel, for two different sentinels, the token is the stale word.
//   1. K = 0, an all-zero target row (the bonus draw has nothing to draw from).
//   2. K = 1, draft == target == one-hot at token 1, seed 16390493 (its first curand_uniform,
//      curand_init(seed, 0, 0), is exactly 1.0: `1.0 * 1 < 1` is false, the draft is rejected
//      and max(q - p, 0) is 0 everywhere). A valid input.
//   3. Control: input 2 with seed 0 (u < 1): the draft is accepted, `[1, t]` with t < V.
// Exit status: 0 when inputs 1 and 2 return the sentinel both times and the control is valid
// (the reading confirmed), 1 otherwise, 2 on a CUDA error or without a device.
// The calls are made as flashinfer_launch.cu makes them (float probabilities, int32 ids, zeroed
// counters, scalar seed and offset).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include <flashinfer/sampling.cuh>

namespace {

constexpr std::uint32_t kVocab = 4;
constexpr std::uint32_t kFillBytes = 48 * 1024;  // the default dynamic shared memory limit per block

// Every SM several times over (1024 blocks), so the chain kernel's block lands on filled memory.
__global__ void FillSharedMemory(std::uint32_t sentinel) {
  extern __shared__ std::uint32_t words[];
  for (std::uint32_t i = threadIdx.x; i < kFillBytes / 4; i += blockDim.x) words[i] = sentinel;
  __syncthreads();
}

bool Ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::printf("%s failed: %s (%s)\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
  return false;
}

// One chain_speculative_sampling call on B = 1 row with K drafts (all token 1); returns its K + 1
// output ids, or nothing on a CUDA error.
std::vector<int> Chain(std::uint32_t sentinel, std::uint32_t k, const std::vector<float>& draft_probs,
                       const std::vector<float>& target_probs, std::uint64_t seed) {
  const std::vector<int> draft_ids(k, 1);
  float *draft = nullptr, *target = nullptr;
  int *ids = nullptr, *out = nullptr, *accepted = nullptr, *emitted = nullptr;
  std::vector<int> host(k + 1, 0);
  bool ok = Ok(cudaMalloc(&draft, sizeof(float) * (draft_probs.size() + 1)), "cudaMalloc") &&
            Ok(cudaMalloc(&target, sizeof(float) * target_probs.size()), "cudaMalloc") &&
            Ok(cudaMalloc(&ids, sizeof(int) * (k + 1)), "cudaMalloc") && Ok(cudaMalloc(&out, sizeof(int) * (k + 1)), "cudaMalloc") &&
            Ok(cudaMalloc(&accepted, sizeof(int)), "cudaMalloc") && Ok(cudaMalloc(&emitted, sizeof(int)), "cudaMalloc") &&
            (k == 0 || Ok(cudaMemcpy(draft, draft_probs.data(), sizeof(float) * draft_probs.size(), cudaMemcpyHostToDevice), "cudaMemcpy")) &&
            Ok(cudaMemcpy(target, target_probs.data(), sizeof(float) * target_probs.size(), cudaMemcpyHostToDevice), "cudaMemcpy") &&
            (k == 0 || Ok(cudaMemcpy(ids, draft_ids.data(), sizeof(int) * k, cudaMemcpyHostToDevice), "cudaMemcpy")) &&
            Ok(cudaMemset(out, 0, sizeof(int) * (k + 1)), "cudaMemset") && Ok(cudaMemset(accepted, 0, sizeof(int)), "cudaMemset") &&
            Ok(cudaMemset(emitted, 0, sizeof(int)), "cudaMemset");
  if (ok) {
    FillSharedMemory<<<1024, 256, kFillBytes>>>(sentinel);
    ok = Ok(cudaGetLastError(), "FillSharedMemory") && Ok(cudaDeviceSynchronize(), "FillSharedMemory");
  }
  if (ok) {
    ok = Ok(flashinfer::sampling::ChainSpeculativeSampling<float, int>(draft, ids, target, out, accepted, emitted, 1, k, kVocab,
                                                                       /*deterministic=*/true, nullptr, seed, nullptr, 0),
            "ChainSpeculativeSampling") &&
         Ok(cudaDeviceSynchronize(), "ChainSpeculativeSampling") &&
         Ok(cudaMemcpy(host.data(), out, sizeof(int) * (k + 1), cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  for (void* p : {static_cast<void*>(draft), static_cast<void*>(target), static_cast<void*>(ids), static_cast<void*>(out),
                  static_cast<void*>(accepted), static_cast<void*>(emitted)}) {
    cudaFree(p);
  }
  return ok ? host : std::vector<int>{};
}

}  // namespace

int main() {
  const std::vector<float> one_hot = {0, 1, 0, 0};
  const std::vector<float> zeros(kVocab, 0.0f);
  std::vector<float> accept_target = one_hot;  // target row 0, then a uniform bonus row
  accept_target.insert(accept_target.end(), kVocab, 0.25f);
  bool confirmed = true;
  for (const std::uint32_t sentinel : {0x5a5a5a5au, 0x3c3c3c3cu}) {
    const std::vector<int> empty_bonus = Chain(sentinel, 0, {}, zeros, 7);
    const std::vector<int> rejected = Chain(sentinel, 1, one_hot, accept_target, 16390493);
    const std::vector<int> control = Chain(sentinel, 1, one_hot, accept_target, 0);
    if (empty_bonus.empty() || rejected.empty() || control.empty()) return 2;
    std::printf("sentinel %#x: K = 0, all-zero target: [%#x]; K = 1, p = q, seed 16390493: [%#x, %d]; control, seed 0: [%d, %d]\n",
                sentinel, static_cast<unsigned>(empty_bonus[0]), static_cast<unsigned>(rejected[0]), rejected[1], control[0], control[1]);
    confirmed = confirmed && empty_bonus[0] == static_cast<int>(sentinel) && rejected[0] == static_cast<int>(sentinel) &&
                control[0] == 1 && control[1] >= 0 && control[1] < static_cast<int>(kVocab);
  }
  std::printf(confirmed ? "confirmed: an empty residual emits the stale shared-memory word\n"
                        : "not confirmed: see the tokens above\n");
  return confirmed ? 0 : 1;
}
