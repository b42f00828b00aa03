// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launch of gpu-fast's fused sampling kernel (gpu/fast/fast_sampling.cuh, docs/gpu.md
// "gpu-fast"), or of its split form that reads a row with several blocks when the batch is
// small (gpu/fast/fast_sampling_slices.cuh), one launch either way: the options the kernels take, how many slices a
// row takes, and the launch description, in the scheme of
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
#include "gpu/block/row_slices.cuh"
#include "gpu/runners/kernel_launches.h"
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

// Several blocks per row (docs/gpu.md "gpu-fast", "Several blocks per row"): when the batch
// has fewer rows than the device has SMs, one block per row leaves most SMs idle and reads
// each row at one SM's share of the memory bandwidth. The launch then splits a row into
// contiguous slices, one block each (gpu/fast/fast_sampling_slices.cuh), whose partial results
// (a slice's first key, or its exact top-k keys in order) go to a small scratch of
// kFastSliceSlots keys per row; the row's last block merges them in a fixed order. The slicing
// never changes a token: a slice's partial is exact (integer keys), and the merge gives the
// same keys the one-block path finds.
//
// The budget and the per-slice top-k rule are the bit-exact filters' too: gpu/block/row_slices.cuh.
inline constexpr std::int64_t kFastSamplingSms = kRowSliceSms;
inline constexpr std::int64_t kFastSliceSlots = kRowSliceSlots;

// The slices a batch of `rows` rows offers each row: as many as one wave of blocks holds
// (rows x slices <= kFastSamplingSms), 1 when rows > kFastSamplingSms / 2.
SAMPCHECK_HOST_DEVICE constexpr std::int64_t FastSliceBudget(std::int64_t rows, std::int64_t vocab) {
  return RowSliceBudget(rows, vocab);
}

// A row's top-k as the kernels apply it (the planted k + 1 bug included).
SAMPCHECK_HOST_DEVICE constexpr std::int64_t FastTopKOf(std::int32_t top_k, FastSamplingBug bug) {
  return bug == FastSamplingBug::kTopKKeepsKPlusOne && top_k > 0 ? std::int64_t{top_k} + 1 : std::int64_t{top_k};
}

// The profile's temperature rule (reference/temperature.h): greedy iff double(t) < eps.
SAMPCHECK_HOST_DEVICE constexpr bool FastIsGreedy(float temperature, double greedy_below) {
  return static_cast<double>(temperature) < greedy_below;
}

// Whether a row's top-k filters: 0 < k < V (k <= 0 or k >= V keeps every token; k after
// FastTopKOf).
SAMPCHECK_HOST_DEVICE constexpr bool FastTopKOn(std::int64_t k, std::int64_t vocab) { return k > 0 && k < vocab; }

// A min-p-only row's probe (canonical; top-k and top-p off, min-p on): its first
// kFastMinPProbe order keys, gathered as a top-k row's survivors, hold every token min-p keeps
// whenever the last of them fails min-p (e_i only falls along the order); else the row reads
// on (docs/gpu.md "gpu-fast" item 2). 64: the warps' merge tree's lists and runs.
inline constexpr std::int64_t kFastMinPProbe = 64;

// The survivors a row gathers first: a min-p-only canonical row's probe (V > kFastMinPProbe),
// else its top-k k as given (the survivor path takes 1 <= k <= kFastSliceSlots, k < V).
SAMPCHECK_HOST_DEVICE constexpr std::int64_t FastSurvivorK(std::int64_t k, float p, float mp, std::int64_t vocab,
                                                           const FastFilterRule& rule) {
  const bool probe = rule.Canonical() && !FastTopKOn(k, vocab) && !(p < 1.0f) && mp > 0.0f && kFastMinPProbe < vocab;
  return probe ? kFastMinPProbe : k;
}

// The slices a row takes (1: the row is one block of the fused kernel): greedy rows every
// slice of the budget (a slice's partial is its argmax); canonical rows whose top-k
// survivors are gathered (1 <= k <= kFastSliceSlots, k < V; k: FastSurvivorK's, so a
// min-p-only row's probe too) as many as keep slices x k within the scratch and every slice
// longer than k (each slice gathers its own top k); every other row (vllm's and sglang's
// rules, top-k off or larger, top-p without top-k) 1.
SAMPCHECK_HOST_DEVICE constexpr std::int64_t FastRowSlices(std::int64_t budget, std::int64_t vocab, bool greedy,
                                                           std::int64_t k, const FastFilterRule& rule) {
  if (budget <= 1) return 1;
  if (greedy) return budget;
  if (!rule.Canonical()) return 1;
  return TopKRowSlices(budget, vocab, k);
}

template <int kBlockThreads>
struct FastSamplingSlicesKernel;
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
  // The batch the slices are planned for (FastSliceBudget); 0: rows. The cost model counts the
  // first rows of a large batch as that batch would slice them (bench/device_sampling_bench.cu).
  std::int64_t plan_rows = 0;

  // The slices the caller planned (> 0) when the arrays are on the device, where the host
  // cannot read temperature and top_k (gpu/runners/resident_sampling.h); 0: Slices() reads them.
  std::int64_t planned_slices = 0;

  std::int64_t PlanRows() const { return plan_rows > 0 ? plan_rows : rows; }

  // Whether every row is greedy (FastIsGreedy): such a batch takes the greedy stage's argmax
  // kernel (Describe). False with planned_slices: a caller whose arrays are on the device
  // launches GreedyLaunch itself for a greedy batch (LaunchResidentSampling), as it knows.
  bool AllGreedy() const {
    if (planned_slices > 0) return false;
    for (std::int64_t r = 0; r < rows; ++r) {
      if (!FastIsGreedy(temperature[r], options.greedy_below)) return false;
    }
    return rows > 0;
  }
  std::int64_t SliceBudget() const { return FastSliceBudget(PlanRows(), vocab); }

  // The slices of the first launch: the most any row takes (FastRowSlices; a row taking fewer
  // leaves its other blocks idle). 1: no first launch. Reads the host arrays unless
  // planned_slices is set.
  std::int64_t Slices() const {
    if (planned_slices > 0) return planned_slices;
    const std::int64_t budget = SliceBudget();
    std::int64_t slices = 1;
    for (std::int64_t r = 0; r < rows && budget > 1; ++r) {
      const std::int64_t k = FastSurvivorK(FastTopKOf(top_k[r], options.bug), top_p[r], min_p[r], vocab, options.rule);
      const std::int64_t n =
          FastRowSlices(budget, vocab, FastIsGreedy(temperature[r], options.greedy_below), k, options.rule);
      slices = n > slices ? n : slices;
    }
    return slices;
  }

  // One launch. With slices: FastSamplingSlicesKernel over rows x slices blocks writes each
  // slice's partial to a scratch of kFastSliceSlots keys per row, and the last block of each
  // row (a ticket per row, gpu/block/last_block.cuh) merges them and draws; an unsliced row
  // runs whole in its first block. Without, one block per row: FastSamplingSlicesKernel still
  // while the batch is one wave at one block per SM (PlanRows() <= kRowSliceSms), each row whole
  // (slice budget 1), as FastSamplingKernel's Row at 64 registers; FastSamplingKernel (two
  // blocks per SM at 32 registers, spilling) only for more rows, whose blocks it keeps in one
  // wave up to 2 x 132 (docs/gpu.md "Occupancy"). The kernels keep no row-sized work array.
  // A batch of greedy rows only takes the greedy stage's argmax kernel (GreedyLaunch,
  // gpu/kernels/greedy.cuh), as a serving engine skips its sampler when no row samples: the
  // fused kernel's greedy rows run the same read and merge (QuadRangeArgmaxF32,
  // MergeSliceWinnersF32), so the tokens are the same, without the fused kernel's registers
  // and shared memory (docs/gpu.md "gpu-fast", "Greedy batches").
  template <int kThreads, class L>
  void Describe(L& l) const {
    if (AllGreedy()) {
      GreedyLaunch{logits, rows, vocab, pitch, token, PlanRows()}.Describe(l);
      return;
    }
    const std::int64_t budget = SliceBudget();
    const std::int64_t slices = Slices();
    const auto logits_in = l.In(logits, rows * pitch, "logits");
    const auto temperature_in = l.In(temperature, rows, "temperature");
    const auto top_k_in = l.In(top_k, rows, "top_k");
    const auto top_p_in = l.In(top_p, rows, "top_p");
    const auto min_p_in = l.In(min_p, rows, "min_p");
    const auto seed_in = l.In(seed, rows, "seed");
    const auto position_in = l.In(position, rows, "position");
    const auto q_in = l.In(q, rows * pitch, "q");
    const auto partials = l.template Scratch<std::uint64_t>(slices > 1 ? rows * kFastSliceSlots : 0, "slices");
    const auto token_out = l.Out(token, rows, "token");
    if (slices > 1 || PlanRows() <= kRowSliceSms) {
      l.template Run<FastSamplingSlicesKernel<kThreads>>(rows * slices, logits_in, temperature_in, top_k_in, top_p_in,
                                                         min_p_in, seed_in, position_in, q_in, partials,
                                                         l.Tickets(slices > 1 ? rows : 0, "tickets"), token_out, vocab,
                                                         pitch, slices > 1 ? budget : std::int64_t{1}, slices, options);
      return;
    }
    l.template Run<FastSamplingKernel<kThreads>>(rows, logits_in, temperature_in, top_k_in, top_p_in, min_p_in, seed_in,
                                                 position_in, q_in, partials, token_out, vocab, pitch, std::int64_t{1},
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
