// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launch of gpu-fast's fused sampling kernel (gpu/fast/fast_sampling.cuh, docs/gpu.md
// "gpu-fast"): the options the kernel takes and its launch description, in the scheme of
// every other kernel (gpu/runners/kernel_launches.h), run by the emulator's launcher
// (gpu/runners/emulated_runner.cc) or the device's (gpu/runners/cuda_runner.cu). The kernel header includes
// this one for the options, so the kernel is only declared here.
//
// Contract: host pointers in, host pointers out; a runner copies to and from its device
// itself. Row-major [rows, pitch] logits (pitch >= vocab; [vocab, pitch) is padding). A runner
// throws std::runtime_error when the kernel cannot run or the emulator's checks fail (the
// device's message starts with "no CUDA device" when there is none); it never aborts.

#include <cstdint>

#include "core/portability.h"
#include "reference/profile_rules.h"

namespace sampcheck::gpu {

// A planted fault of a gpu-fast kernel for the statistical harness's negative control
// (`wrong:` variants, gpu/fast/fast_backend.h); kNone in every real backend.
enum class FastSamplingBug : int {
  kNone = 0,
  kTopKKeepsKPlusOne = 1,  // the top-k select runs with k + 1
  kTopPOffByOne = 2,       // top-p accepts iff (mass before j) - e_j < p * S: one token more
  kInverseCdfSkipsRenormalisation = 3,  // inverse_cdf: x = u, not u * total (gpu/fast/fast_inverse_cdf.cuh)
  // flashinfer_sampling_from_probs: count and mass of p >= pivot, not p > pivot
  // (gpu/fast/fast_flashinfer_sampling_from_probs.cuh)
  kFlashinferMassIncludesPivot = 4,
  // spec_random: the recovered token drawn from the target row, not the residual max(t - d, 0)
  // (gpu/fast/fast_spec_random.cuh)
  kSpecRandomRecoveredFromTarget = 5,
};

// The pipeline profile's filter and draw rules the fused kernel follows (docs/spec/pipeline.md
// "Order per profile", docs/spec/filters.md), derived from reference/profile_rules.h by
// FastFilterRuleFor so that each rule is written once. The default is the canonical profile.
struct FastFilterRule {
  // vllm (TopKKeepsTies): top-k keeps every token whose value equals the k-th value.
  bool top_k_keeps_ties = false;
  // vllm (FilterOrder::kMinPFirst): min-p runs first on the full softmax, so the mass top-p
  // renormalises by is that of the tokens passing both min-p and top-k.
  bool min_p_first = false;
  // vllm (TopPWalk::kVllmAscending): top-p walks a stable ascending sort, so among equal values
  // the higher index comes first in the descending order the kernel walks.
  bool ties_high_index_first = false;
  // sglang (FilterOrder::kJoint, TopPWalk::kSglang): top-p reads the whole row's mass (not the
  // top-k set's), keeps j iff E_j <= p * S, and runs at every p, 1 included.
  bool top_p_joint = false;
  // vllm: the draw is vLLM's exponential race, argmax over the kept tokens of e_j / q_j with
  // the given Exp(1) noise q, instead of the inverse CDF on the row's Philox stream.
  bool race = false;

  // Whether a rule other than the canonical one is on: the kernel's survivor and near-V
  // shortcuts implement the canonical rule only, so such rows take the rejection rounds.
  SAMPCHECK_HOST_DEVICE constexpr bool Canonical() const {
    return !top_k_keeps_ties && !min_p_first && !ties_high_index_first && !top_p_joint && !race;
  }
};

constexpr FastFilterRule FastFilterRuleFor(Profile profile) {
  const reference::FilterOrder order = reference::FilterOrderFor(profile, false);
  const reference::TopPWalk walk = reference::TopPWalkFor(profile);
  return {.top_k_keeps_ties = reference::TopKKeepsTies(profile),
          .min_p_first = order == reference::FilterOrder::kMinPFirst,
          .ties_high_index_first = walk == reference::TopPWalk::kVllmAscending,
          .top_p_joint = order == reference::FilterOrder::kJoint && walk == reference::TopPWalk::kSglang,
          .race = profile == Profile::kVllm};
}

struct FastSamplingOptions {
  // The profile's temperature rule: greedy iff double(t) < eps (reference/profile_rules.h);
  // the glue applies vllm's raise to the temperatures it passes.
  double greedy_below = reference::kCanonicalSamplingEps;
  FastFilterRule rule{};
  FastSamplingBug bug = FastSamplingBug::kNone;
};

template <int kBlockThreads>
struct FastSamplingKernel;

struct FastSamplingLaunch {
  const float* logits = nullptr;         // [rows, pitch], after the steps before temperature
  const float* temperature = nullptr;    // [rows]
  const std::int32_t* top_k = nullptr;   // [rows], <= 0 or >= vocab: disabled
  const float* top_p = nullptr;          // [rows], >= 1: disabled
  const float* min_p = nullptr;          // [rows], <= 0: disabled
  const std::uint64_t* seed = nullptr;   // [rows]: the Philox key
  const std::uint64_t* position = nullptr;  // [rows]: the cuRAND subsequence
  const float* q = nullptr;              // [rows, pitch]: Exp(1) noise when options.rule.race, else null
  std::int64_t rows = 0, vocab = 0, pitch = 0;
  FastSamplingOptions options;
  std::int64_t* token = nullptr;         // [rows] out

  // One block of kThreads threads per row; the kernel keeps no row-sized work array.
  template <int kThreads, class L>
  void Describe(L& l) const {
    l.template Run<FastSamplingKernel<kThreads>>(
        rows, l.In(logits, rows * pitch, "logits"), l.In(temperature, rows, "temperature"), l.In(top_k, rows, "top_k"),
        l.In(top_p, rows, "top_p"), l.In(min_p, rows, "min_p"), l.In(seed, rows, "seed"),
        l.In(position, rows, "position"), l.In(q, rows * pitch, "q"), l.Out(token, rows, "token"), vocab, pitch,
        options);
  }
};

// The emulator runs blocks of kFastSamplingEmulatedThreads threads (CI time: the emulator's
// cost grows with threads x phases), the device blocks of kFastSamplingDeviceThreads (one
// block per row, as FlashInfer's sampling kernels at large vocabularies). The reduction order
// differs between the two, which the distributional tier allows; the emulator checks the
// device's block size too (tests/gpu_fast_sampling_test.cc).
inline constexpr int kFastSamplingEmulatedThreads = 128;
inline constexpr int kFastSamplingDeviceThreads = 1024;

void RunFastSamplingEmulated(const FastSamplingLaunch& launch);
// The emulator at the device's block size (tests).
void RunFastSamplingEmulatedDeviceBlock(const FastSamplingLaunch& launch);
// Defined only when the CUDA parts are built (SAMPCHECK_HAVE_CUDA).
void RunFastSamplingCuda(const FastSamplingLaunch& launch);

}  // namespace sampcheck::gpu
