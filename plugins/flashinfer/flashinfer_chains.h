// SPDX-License-Identifier: Apache-2.0
#pragma once
// The two kernel chains FlashInfer's Python API runs for top_k_top_p_sampling_from_logits
// (python/flashinfer/sampling.py at the commit docs/peers.md names), on device pointers and
// without a synchronisation, so a benchmark can time them beside sampcheck's kernels in the
// same binary (bench/device_sampling_bench.cu; bench/README.md "Device"):
// - TopKFirstChain, filter_apply_order="top_k_first" with a per-row top_k tensor (what a
//   serving engine passes): top_k_mask_logits (RadixTopKMaskLogitsMultiCTA), softmax
//   (OnlineSoftmax), top_p_sampling_from_probs (TopPSamplingFromProb). An int top_k <= 256 at
//   V >= 65536 takes `_top_k_first_fast_path` instead, whose top-k binding (csrc/topk.cu) is
//   not among the sources the project builds against, so it is not timed.
// - JointChain, filter_apply_order="joint": softmax, then TopKTopPSamplingFromProb.
// Arguments are passed as FlashInfer's binding layer passes them (csrc/sampling.cu): float
// probabilities, int32 ids and top_k, per-row top_p, no `indices`, scalar seed and offset; the
// row-state buffer (zeroed once by the caller) and the softmax workspace are the 1 MiB buffers
// sampling.py allocates. Implemented in flashinfer_launch.cu, the project's one translation
// unit that includes FlashInfer's headers. Compiled by the host compiler and by nvcc (C++17).

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace sampcheck::flashinfer_plugin {

// Device buffers of one chain, all of the batch's size, allocated by the caller.
struct ChainBuffers {
  float* masked_logits = nullptr;  // [B, V], TopKFirstChain only
  float* probs = nullptr;          // [B, V]
  int* token = nullptr;            // [B]
  bool* valid = nullptr;           // [B]
  void* row_states = nullptr;      // kChainScratchBytes, zeroed once
  void* workspace = nullptr;       // kChainScratchBytes
  bool enable_pdl = false;         // sampling.py: compute capability 9 and above
};

inline constexpr std::size_t kChainScratchBytes = 1024 * 1024;

// logits [B, V] f32, top_k [B] int32, top_p [B] f32, all on the device. Returns the first
// launch status that is not cudaSuccess (the kernels run asynchronously on stream 0).
cudaError_t TopKFirstChain(float* logits, int* top_k, float* top_p, std::uint32_t rows, std::uint32_t vocab,
                           bool deterministic, std::uint64_t seed, std::uint64_t offset, const ChainBuffers& buffers);
cudaError_t JointChain(float* logits, int* top_k, float* top_p, std::uint32_t rows, std::uint32_t vocab,
                       bool deterministic, std::uint64_t seed, std::uint64_t offset, const ChainBuffers& buffers);

}  // namespace sampcheck::flashinfer_plugin
