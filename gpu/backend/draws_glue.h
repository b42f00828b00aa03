// SPDX-License-Identifier: Apache-2.0
#pragma once
// Stage glue of the gpu backends for the draws (gumbel_max, exponential_race, inverse_cdf,
// qsample), the seeded draws (multinomial_with_seed, multinomial_with_seed_token_ids) and
// speculative verification (spec_greedy, spec_random), finish_rules and tp_consensus: each reads and checks the case's
// inputs with the reference's own boundary code (reference/stage_io.h, reference/draft_tokens.h), in the reference's
// order and with its messages, resolves the profile into flags, and launches one kernel (gpu/<stem>.cuh) through the
// KernelRunner. gpu/backend/gpu_backend.cc lists them in its stage table (docs/gpu.md "Stages with kernels").

#include <cstdint>
#include <vector>

#include "core/case.h"
#include "core/profile.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

// spec_random's inputs checked in the reference's order with its messages, and the kernels' view
// of them (SpecRandomInputs, pointing into `target`, `draft`, `counts` and the case's noise):
// the gpu glue launches the bit-exact kernels on it, the gpu-fast glue (gpu/fast/fast_backend.cc)
// its own kernel.
struct SpecRandomKernelArgs {
  KernelRunner::SpecRandomInputs in;
  SpecShape shape;
  Tensor target, draft;
  std::vector<std::int64_t> counts;
};
SpecRandomKernelArgs PrepareSpecRandom(const Case& c, Profile profile);
// The speculative verifiers' outputs: emitted [B, K + 1] and num_accepted [B].
TensorMap SpecOutputs(Tensor emitted, Tensor accepted);

// One function per stage, the shape of gpu_backend.cc's stage table entries.
TensorMap GpuGumbelMax(const Case& c, Profile profile, KernelRunner& runner);
TensorMap GpuExponentialRace(const Case& c, Profile profile, KernelRunner& runner);
TensorMap GpuInverseCdf(const Case& c, Profile profile, KernelRunner& runner);
TensorMap GpuQSample(const Case& c, Profile profile, KernelRunner& runner);
TensorMap GpuMultinomialWithSeed(const Case& c, Profile profile, KernelRunner& runner);
TensorMap GpuMultinomialWithSeedTokenIds(const Case& c, Profile profile, KernelRunner& runner);
TensorMap GpuSpecGreedy(const Case& c, Profile profile, KernelRunner& runner);
TensorMap GpuSpecRandom(const Case& c, Profile profile, KernelRunner& runner);
TensorMap GpuFinishRules(const Case& c, Profile profile, KernelRunner& runner);
TensorMap GpuTpConsensus(const Case& c, Profile profile, KernelRunner& runner);

}  // namespace sampcheck::gpu
