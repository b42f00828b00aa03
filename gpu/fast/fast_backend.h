// SPDX-License-Identifier: Apache-2.0
#pragma once
// The gpu-fast backends (docs/gpu.md "gpu-fast"): the pipeline's temperature, filters and
// draw, under each of its profiles, in one fused kernel written like a production sampler
// (gpu/fast/fast_sampling.cuh), and the draw stages whose sums a production kernel takes in a
// free order (inverse_cdf, flashinfer_sampling_from_probs, spec_random, spec_step's verifier), judged by the
// statistical harness only.
//
// Contract:
// - Names: "gpu-fast-emulated" (the kernel on the checking host emulator, always built) and
//   "gpu-fast" (a CUDA device; built with the CUDA parts), as gpu-emulated and gpu.
// - Stage `pipeline`, profiles canonical, vllm and sglang (Capabilities; the kernel follows
//   each profile's filter order and rules, FastFilterRuleFor). Claims the distributional tier
//   only: claims_bitwise is false for `pipeline`, so golden verify skips its golden cases with
//   that reason, and the draw harness judges its tokens (structural, targeted and omnibus
//   layers) against the exact target of the profile.
// - Inputs: every pipeline input of the profile. Every step before the filters (penalties,
//   min_new_tokens, token_bitmask, logit_bias, temperature's greedy rows), the profile's batch
//   rules (vllm's top_k_one, SGLang's greedy and sampling paths, SGLang's refusal of a seeded
//   min-p), the degenerate rows (docs/spec/pipeline.md "Degenerate rows": their tokens are
//   pinned there) and every input check up to the noise, the filters' included, run through
//   the reference's composition (reference::ComposePipeline) with the filter step deferred to
//   the kernel; the noise is read and checked by reference::ParsePipelineNoise (vllm: q [B, V],
//   a seeded row's from its generator; else seed and positions). The kernel then takes the
//   processed logits, each random row's divisor (vllm's raise applied), top_k, top_p, min_p and
//   the noise, and follows the profile's filter order and rules. A greedy row whose logits hold
//   no NaN or +inf takes the kernel's argmax; every other pinned row its pinned token. Bad input
//   throws std::invalid_argument naming case, tensor and expectation.
// - Reproducibility claimed: a row's token depends only on its own inputs, seed and position
//   (the Philox subsequence; vllm: its q row), so the same case gives the same tokens run to
//   run and in any batch composition (harness/reproducibility.h checks both), except where the
//   profile itself depends on the batch (sglang's path choice, reference/pipeline.h). Not
//   claimed: equal tokens between gpu-fast-emulated and gpu-fast (different block sizes,
//   different summation order), nor with the reference.
// - Stage `inverse_cdf` (canonical profile): gpu/fast/fast_inverse_cdf.cuh, the draw given u
//   with its running sum in the block scan's free order; inputs checked by the reference's
//   parse (reference::ParseInverseCdf). Distributional tier only, as `pipeline`.
// - Stage `flashinfer_sampling_from_probs` (profile flashinfer, every `kernel` and
//   `filter_apply_order`): gpu/fast/fast_flashinfer_sampling_from_probs.cuh, FlashInfer's rejection
//   rounds with free-order sums; inputs and row parameters checked by the reference's parse
//   (through gpu/backend/flashinfer_sampling_from_probs_glue.h FlashinferRowsOf). Distributional.
// - Stage `spec_random` (profiles vllm and flashinfer): gpu/fast/fast_spec_random.cuh, the
//   acceptance tests per position, vLLM's race as a reduction of order keys, FlashInfer's residual
//   draw by the block-scan inverse CDF; inputs checked by gpu/backend/draws_glue.h
//   PrepareSpecRandom (the reference's parse). Distributional. typical_acceptance is not
//   claimed (docs/gpu.md "Skips").
// - Stage `spec_step` (profiles canonical and vllm; every backend built with a bit-exact kernel
//   runner, the planted spec_random fault's included): the bit-exact glue's composition
//   (gpu/backend/spec_step_glue.h GpuSpecStepWith: the reference's parse, the min_tokens mask,
//   greedy rows, temperature and the filters on the bit-exact kernels) with the random rows
//   verified by gpu-fast's spec_random kernel (vllm rule). Distributional. block_verification
//   and sglang are not claimed: their verifiers have no fast kernel (docs/gpu.md "Skips").
// - Stage `noise` too (not in the `wrong:` variants): the device's own Philox4_32_10 uniforms,
//   exponentials and Gumbels through gpu/kernels/noise.cuh, so the noise harness judges the generator
//   the fused kernel draws from (docs/spec/noise.md); canonical tier, bitwise goldens.
// - `wrong:` variants (MakeGpuFastWrongBackend): the emulated backend with a planted kernel
//   fault (gpu/fast/fast_sampling_launch.h FastSamplingBug); the statistical suite must reject them.
//   The faults of the later stages register with the harness instead
//   (harness/wrong/wrong_gpu_fast_speculative.cc, through MakeGpuFastPlantedBackend).
// Example: MakeGpuFastEmulatedBackend()->Name() == "gpu-fast-emulated";
//   MakeGpuFastWrongBackend("gpu_fast_top_p_off_by_one")->Name() == "wrong:gpu_fast_top_p_off_by_one".

#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "gpu/fast/fast_flashinfer_sampling_from_probs_launch.h"
#include "gpu/fast/fast_inverse_cdf_launch.h"
#include "gpu/fast/fast_sampling_launch.h"
#include "gpu/fast/fast_spec_random_launch.h"
#include "gpu/runners/kernel_runner.h"

namespace sampcheck::gpu {

// Where the gpu-fast kernels run: the checking emulator or a CUDA device.
struct FastRunners {
  void (*sampling)(const FastSamplingLaunch&) = nullptr;
  void (*inverse_cdf)(const FastInverseCdfLaunch&) = nullptr;
  void (*flashinfer_sampling_from_probs)(const FastFlashinferSamplingFromProbsLaunch&) = nullptr;
  void (*spec_random)(const FastSpecRandomLaunch&) = nullptr;
  // Whether the four may run on several threads at once (the emulator: its state is per thread).
  bool reentrant = false;
};

class GpuFastBackend final : public Backend {
 public:
  // exact_runner: where the bit-exact kernels gpu-fast borrows run: the `noise` stage's
  // (gpu/kernels/noise.cuh, the same Philox stream the fused kernel draws from; declared only
  // with declares_noise) and spec_step's composed steps; null: the backend declares neither.
  GpuFastBackend(std::string name, FastRunners runners, FastSamplingBug bug = FastSamplingBug::kNone,
                 std::unique_ptr<KernelRunner> exact_runner = nullptr, bool declares_noise = true)
      : name_(std::move(name)),
        runners_(runners),
        bug_(bug),
        exact_runner_(std::move(exact_runner)),
        declares_noise_(declares_noise) {}
  std::string Name() const override { return name_; }
  std::vector<std::string> SupportedStages() const override;
  StageCapabilities Capabilities(const std::string& stage) const override;
  TensorMap Run(const std::string& stage, const Case& c) override;

 private:
  TensorMap RunInverseCdf(const Case& c, Profile profile);
  TensorMap RunFlashinferSamplingFromProbs(const Case& c);
  TensorMap RunSpecRandom(const Case& c, Profile profile);
  TensorMap RunSpecStep(const Case& c, Profile profile);

  std::string name_;
  FastRunners runners_;
  FastSamplingBug bug_;
  std::unique_ptr<KernelRunner> exact_runner_;
  bool declares_noise_;
};

std::unique_ptr<Backend> MakeGpuFastEmulatedBackend();
// Defined only when the CUDA parts are built (SAMPCHECK_HAVE_CUDA): gpu/runners/cuda_runner.cu.
std::unique_ptr<Backend> MakeGpuFastCudaBackend();

// The names after "wrong:" of the planted-bug variants, and the backend for one of them
// (nullptr for any other name).
std::vector<std::string> GpuFastWrongNames();
std::unique_ptr<Backend> MakeGpuFastWrongBackend(const std::string& name);
// The emulated backend named "wrong:" + name with `bug` planted, for the planted faults that
// register themselves with the harness (harness/wrong/wrong_gpu_fast_speculative.cc).
std::unique_ptr<Backend> MakeGpuFastPlantedBackend(const std::string& name, FastSamplingBug bug);

}  // namespace sampcheck::gpu
