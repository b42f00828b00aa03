// SPDX-License-Identifier: Apache-2.0
#pragma once
// The Exp(1) noise of a vLLM request with its own seed, as the pipeline and decode_steps
// stages model it (docs/spec/pipeline.md "vLLM's per-request generators").
//
// Contract:
// - vLLM 9aaf83ef gives a request with `SamplingParams.seed` its own generator
//   (`vllm/v1/worker/gpu_model_runner.py`, `GPUModelRunner._update_states`:
//   `torch.Generator(device).manual_seed(seed)`), and each step fills that request's row of q
//   from it (`vllm/v1/sample/ops/topk_topp_sampler.py`, `random_sample`:
//   `q[i].exponential_(generator=generator)`), after `q.exponential_()` from the batch-global
//   generator filled every row when some request has no seed. So a seeded row's noise at a
//   step is a function of (seed, steps the generator drew before) alone.
// - The bits of PyTorch's CUDA generator depend on its kernel launch (the Philox subsequence
//   is the thread index, the grid the device's), so no backend can be held to them. The
//   reference's generator keeps the law (Exp(1) as torch's CUDA `exponential_`) and the keying
//   (seed, step), on sampcheck's position-keyed Philox word (reference/rng/philox.h,
//   PhiloxCanonicalWord, request 0, draw 0):
//     q(seed, step, token) = ExponentialTorchCudaF32(UniformOpenClosedCurandF32(
//                              PhiloxCanonicalWord(seed, 0, step, token, 0)))   in [2^-24, 33 ln2]
// - Canonical tier: IEEE + owned log only; no state, no exceptions; host and device.
// Example (tests/pipeline_test.cc, VllmGenerator.HeaderExample): seed 0, step 0, token 0 reads
// word 0 of Philox4x32_10({0, 0, 0, 0}, {0, 0}) = 0x6627e8d5 (Random123 kat_vectors), so
// q = -log(RN(RN_f32(0x6627e8d5) 2^-32 + 2^-33)) = -log(0x1.989fa4p-2).

#include <cstdint>

#include "core/portability.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/rng/uniform.h"

namespace sampcheck::rng {

SAMPCHECK_HOST_DEVICE inline float VllmGeneratorExponentialF32(std::uint64_t seed, std::uint32_t step, std::uint32_t token) {
  return ExponentialTorchCudaF32(UniformOpenClosedCurandF32(PhiloxCanonicalWord(seed, 0, step, token, 0)));
}

}  // namespace sampcheck::rng
