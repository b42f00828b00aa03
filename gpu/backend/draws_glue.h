// SPDX-License-Identifier: Apache-2.0
#pragma once
// Stage glue of the gpu backends for the draws (gumbel_max, exponential_race, inverse_cdf,
// qsample), the seeded draws (multinomial_with_seed, multinomial_with_seed_token_ids) and
// speculative verification (spec_greedy, spec_random), finish_rules and tp_consensus: each takes the case's
// inputs from the reference's parse function of its stage (reference/<stem>.h), so a check and its message exist
// once, resolves the profile into flags, and launches one kernel (gpu/<stem>.cuh) through the KernelRunner. gpu/backend/gpu_backend.cc lists them in its stage table (docs/gpu.md "Stages with kernels").

#include "core/case.h"
#include "core/profile.h"
#include "gpu/runners/kernel_runner.h"
#include "reference/spec_random.h"

namespace sampcheck::gpu {

// spec_random's inputs checked by the reference's parse (reference/spec_random.h
// ParseSpecRandom), and the kernels' view of them (SpecRandomInputs, pointing into `parsed` and
// the case's noise): the gpu glue launches the bit-exact kernels on it, a fast glue its own
// kernel. Not copyable: `in` points into `parsed`'s heap buffers, which a move keeps.
struct SpecRandomKernelArgs {
  SpecRandomKernelArgs() = default;
  SpecRandomKernelArgs(const SpecRandomKernelArgs&) = delete;
  SpecRandomKernelArgs& operator=(const SpecRandomKernelArgs&) = delete;
  SpecRandomKernelArgs(SpecRandomKernelArgs&&) = default;
  SpecRandomKernelArgs& operator=(SpecRandomKernelArgs&&) = default;
  KernelRunner::SpecRandomInputs in;
  SpecShape shape;
  reference::SpecRandomArgs parsed;
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
