// SPDX-License-Identifier: Apache-2.0
#pragma once
// One case of the FlashInfer plugin (docs/peers/flashinfer.md "The adapter"), checked and
// widened on the host before any CUDA call, so a bad argument is refused with a named reason
// on a machine without a device too.
//
// Contract:
// - ParseRequest(stage, profile, params_json, inputs) -> Request, or an error message naming
//   the stage, the tensor or parameter and the value (never throws across the C ABI: the
//   plugin turns the message into its error code 1).
// - Tensors are widened exactly to f32 (f16, bf16) as FlashInfer's Python API does with
//   `.float()`; ids stay int32 (`.int()`).
// - The Philox key: FlashInfer draws with curand_init(seed, subsequence = row, offset). The
//   case gives no seed; the adapter derives `seed` from the bytes of every input (FNV-1a 64 over
//   names, dtypes, shapes and data), so every batch the harness sends (fresh noise tensors)
//   draws fresh numbers and a repeated case repeats its draws; `offset` is 0.
// - top_k / flashinfer: the catalogue's disabled k (<= 0) is passed as V, FlashInfer's callers'
//   encoding (k >= V copies the row); `flashinfer_sampling_from_probs` keeps FlashInfer's raw k
//   (k = 0 passes nothing), since that stage models the kernels' own reading.
// - inverse_cdf / canonical: the catalogue's row is weights that need not sum to 1;
//   sampling_from_probs reads a distribution (its uniform in (0, 1] against the raw running sum),
//   so each row is divided by its sum, as the function's docstring example does before calling.
// - top_p / flashinfer: the probabilities top_p_renorm_probs receives are torch.softmax's, as
//   FlashInfer's own logits entry points and vLLM's flashinfer_sample compute them (`probs`).
// - spec_random / flashinfer: a row with n < K drafts (trailing -1) runs in a call of its own
//   with K = n (SpecCalls below).
// - `deterministic`: the case's `deterministic` parameter where the stage has one, else true
//   (the default of every FlashInfer Python function); SAMPCHECK_FLASHINFER_DETERMINISTIC=true
//   or false overrides both (ci/device.sh runs the suite once with each).
// This header is compiled by the host compiler (C++20) and by nvcc (C++17): plain types only.

#include <cstdint>
#include <string>
#include <vector>

#include "sampcheck/backend_abi.h"

namespace sampcheck::flashinfer_plugin {

// The FlashInfer entry points the adapter calls (python/flashinfer/sampling.py names).
enum class Call {
  kSamplingFromProbs,           // inverse_cdf / canonical
  kSamplingFromLogits,          // gumbel_max / canonical
  kTopKTopPSamplingJoint,       // flashinfer_sampling_from_probs, kernel top_k_top_p, joint
  kTopKTopPSamplingTopKFirst,   // ... top_k_top_p, top_k_first: top_k_renorm_probs, then top_p
  kTopKSampling,                // ... kernel top_k
  kTopPSampling,                // ... kernel top_p
  kMinPSampling,                // ... kernel min_p
  kTopKMaskLogits,              // top_k / flashinfer
  kTopPRenormMask,              // top_p / flashinfer: softmax, top_p_renorm_probs, mask
  kSoftmax,                     // softmax / canonical
  kChainSpeculativeSampling,    // spec_random / flashinfer
};

struct Request {
  Call call = Call::kSamplingFromProbs;
  std::int64_t rows = 0;   // B
  std::int64_t vocab = 0;  // V
  std::int64_t drafts = 0; // K (chain_speculative_sampling)
  std::vector<float> values;        // probs or logits [B, V]; target_probs [B, K + 1, V]
  std::vector<float> probs;         // top_p: torch.softmax(values) [B, V], top_p_renorm_probs' input
  std::vector<float> draft_probs;   // [B, K, V]
  std::vector<std::int32_t> draft_ids;  // [B, K]
  std::vector<std::int32_t> top_k;  // [B]
  std::vector<float> top_p;         // [B]
  std::vector<float> min_p;         // [B]
  std::vector<float> temperature;   // [B] or empty
  bool deterministic = true;
  std::uint64_t seed = 0;
  std::uint64_t offset = 0;
};

// The stage's outputs, in the catalogue's names and dtypes, filled by the launcher.
struct Result {
  std::vector<std::int64_t> token;   // [B] (or emitted [B, K + 1])
  std::vector<std::uint8_t> valid;   // [B], sampling kernels with a valid flag
  std::vector<std::int64_t> num_accepted;  // [B], chain_speculative_sampling
  std::vector<float> values;         // logits or probs [B, V]
};

// Empty on success, else the reason (naming stage, tensor or parameter).
std::string ParseRequest(const char* stage, const char* profile, const char* params_json,
                         const sampcheck_tensor* inputs, std::int32_t n_in, Request& out);

// top_p / flashinfer: the logits after the mask read off top_p_renorm_probs' output `renormed`
// [B, V] (FlashInfer has no top-p mask on logits; docs/peers/flashinfer.md, mapping table).
// Every dropped token gets -inf, every kept one keeps its logit's bits.
std::vector<float> TopPMaskedLogits(const Request& r, const std::vector<float>& renormed);

// spec_random / flashinfer: chain_speculative_sampling takes one K per call (its
// num_speculate_tokens is draft_probs.size(1)), and the profile verifies each row's own n drafts
// (docs/spec/speculative.md "flashinfer": positions past n unread, which equals the kernel with
// K = n). The rows are grouped by n in order of first appearance, one call per group with that
// group's slices; call g's Philox offset is the request's offset advanced as FlashInfer's
// get_seed_and_offset advances a generator between calls, by ceil4(rows * (K + 1)) per earlier
// call, so no two calls share a uniform. A batch with every row full is one call, unchanged.
struct SpecCall {
  std::int64_t drafts = 0;               // this call's K: the group's n
  std::vector<std::int64_t> rows;        // the request's rows in the call, in order
  std::uint64_t offset = 0;              // Philox offset
  std::vector<std::int32_t> draft_ids;   // [rows, K]
  std::vector<float> draft_probs;        // [rows, K, V]
  std::vector<float> target_probs;       // [rows, K + 1, V]
};
std::vector<SpecCall> SpecCalls(const Request& r);

// Writes one call's outputs (emitted [rows, K + 1], FlashInfer's -1 padding included, and
// output_emitted_draft_token_num [rows]) into the request's result: emitted [B, K + 1] padded
// with -1 past the call's K + 1, num_accepted [B]. `result` must be sized for the request.
void ScatterSpecCall(const Request& r, const SpecCall& call, const std::vector<std::int32_t>& emitted,
                     const std::vector<std::int32_t>& emitted_drafts, Result& result);

// Runs the request on the current CUDA device (flashinfer_launch.cu). Empty on success, else
// the reason: "no CUDA device: ..." when none is usable, or the failing FlashInfer function
// with cudaGetErrorName and cudaGetErrorString.
std::string Launch(const Request& request, Result& result);

}  // namespace sampcheck::flashinfer_plugin
