// SPDX-License-Identifier: Apache-2.0
#pragma once
// The peers' constants and per-profile rule choices, each written once: the reference stages
// (reference/temperature.cc, logprobs.cc, logit_bias.cc, top_k.cc, top_p.cc, min_p.cc), the
// gpu glue (gpu/backend/) and the gpu kernels' rule structs (gpu/kernels/stage_rules.h,
// gpu/kernels/filter_rules.h) all read them from here (docs/spec/temperature.md,
// docs/spec/logit_bias.md, docs/spec/filters.md).
//
// Contract:
// - Plain constants, plain structs and constexpr functions: no exceptions, no allocation, no
//   iostreams, so the kernels' rule headers can alias the structs (docs/contributing.md
//   "Host and device").
// - A profile that a rule does not name takes the canonical choice.
// Example: TemperatureRuleFor(Profile::kVllm) is {1e-5, 1e-2}: 0 < t < 0.01 is raised to 0.01f,
// then a row is greedy iff double(t) < 1e-5.

#include <cstdint>

#include "core/profile.h"

namespace sampcheck::reference {

// docs/spec/draws.md "Degenerate rows": a draw's row with no candidate (every score -inf,
// every probability 0) draws token 0, the lowest index: what both peers' argmax returns on
// such a row (SGLang's torch.argmax(logprobs + noise) of all -inf sums, multinomial_with_seed;
// vLLM's probs.div_(q).argmax() of all +0 ratios, random_sample), and an id inside [0, V)
// whatever V (a kernel that stores its reduction's identity index, a pad lane >= V, is wrong).
inline constexpr std::int64_t kNoDrawToken = 0;

// docs/spec/temperature.md. vLLM's _SAMPLING_EPS = 1e-5 and _MAX_TEMP = 1e-2
// (vllm/sampling_params.py; vllm/v1/sample/sampler.py @3e342658), SGLang's _SAMPLING_EPS = 1e-6
// (python/sglang/srt/sampling/sampling_params.py @0bebedd8). Doubles, as the peers compare the
// temperature in Python before building the f32 tensor.
inline constexpr double kVllmSamplingEps = 1e-5;
inline constexpr double kVllmMinTemperature = 1e-2;
inline constexpr double kSglangSamplingEps = 1e-6;
// canonical (and every other profile): vLLM's epsilon, without the raise.
inline constexpr double kCanonicalSamplingEps = kVllmSamplingEps;

struct TemperatureRule {
  double eps;       // greedy iff double(t) < eps
  double min_temp;  // 0 < t < min_temp is raised to float(min_temp); 0: no raise
};

constexpr TemperatureRule TemperatureRuleFor(Profile profile) {
  switch (profile) {
    case Profile::kVllm: return {kVllmSamplingEps, kVllmMinTemperature};
    case Profile::kSglang: return {kSglangSamplingEps, 0.0};
    default: return {kCanonicalSamplingEps, 0.0};
  }
}

// docs/spec/logit_bias.md: what a profile does with the sparse bias lists.
struct LogitBiasRule {
  bool densify;  // sglang: every unlisted entry gets + 0.0f (only when sparse lists are given)
  bool clamp;    // vllm: bias clamped to [-100, 100], NaN to -100
};

constexpr LogitBiasRule LogitBiasRuleFor(Profile profile, bool sparse_given) {
  return {profile == Profile::kSglang && sparse_given, profile == Profile::kVllm};
}

// docs/spec/nan_handling.md: which non-finite values a profile replaces, and by what.
struct NanRule {
  bool nan = false;
  float nan_value = 0.0f;
  bool neg_inf = false;
  float neg_inf_value = 0.0f;
  bool pos_inf = false;
  float pos_inf_value = 0.0f;
};

// Older SGLang's replacement value, torch.full_like(logits, -1e5) in float32.
inline constexpr float kSglangDetectReplacement = -1e5f;
static_assert(kSglangDetectReplacement == -100000.0f, "-1e5 is exact in binary32");
// SGLang's sanitizer values, Python floats 1e30 rounded to the f32 logits: 1e30 =
// 1.5777218104420236 * 2^99, fraction 0.5777218104420236 * 2^23 = 4846281.80 -> 4846282
// (0x49f2ca), biased exponent 226 (0xe2): 0x7149f2ca = 1.0000000150474662e30.
inline constexpr float kSglangSanitizeBig = 1e30f;
static_assert(kSglangSanitizeBig == 1.0000000150474662e30f, "f32(1e30)");

// sglang's `nan_mode` (reference/nan_handling.h reads the parameter).
enum class SglangNanMode : std::uint8_t { kKeep, kDetect1e5, kSanitize };

constexpr NanRule NanRuleFor(Profile profile, SglangNanMode mode) {
  if (profile != Profile::kSglang || mode == SglangNanMode::kKeep) return {};
  if (mode == SglangNanMode::kDetect1e5) return {.nan = true, .nan_value = kSglangDetectReplacement};
  return {.nan = true,
          .nan_value = -kSglangSanitizeBig,
          .neg_inf = true,
          .neg_inf_value = -kSglangSanitizeBig,
          .pos_inf = true,
          .pos_inf_value = kSglangSanitizeBig};
}

// docs/spec/filters.md#top_k: vllm and flashinfer keep every entry >= the k-th value (ties
// kept); the others keep exactly k.
constexpr bool TopKKeepsTies(Profile profile) {
  return profile == Profile::kVllm || profile == Profile::kFlashinfer;
}

// docs/spec/filters.md#top_k: ascend_v2's top-k is active iff 1 <= k <= min(V, ks_max rounded up
// to 8, 1024); the others' iff 0 < k < V.
constexpr bool TopKAscendLimit(Profile profile) { return profile == Profile::kAscendV2; }

// docs/spec/filters.md "Degenerate rows": where an active top-k puts a NaN logit. Every profile
// but flashinfer ranks a NaN above every number, whatever its sign, and keeps it (torch.topk and
// torch.sort order NaN as the largest value; vLLM's `logits < kth` is false for a NaN);
// flashinfer orders a NaN by its bits (RadixTopKTraits<float>::ToOrdered: sign bit clear above
// +inf, set below -inf) and drops it (`logits >= pivot` is false for a NaN).
constexpr bool TopKDropsNaN(Profile profile) { return profile == Profile::kFlashinfer; }

// docs/spec/filters.md#top_p: the walk a profile's rule takes for 0 < p < 1.
enum class TopPWalk : std::uint8_t {
  kExclusive,      // canonical, ascend_v2: kept iff E_j < p
  kTieGroup,       // flashinfer: a tie group kept iff E at its first token < p
  kSglang,         // f32(C_j - prob_j) <= p per position, at every p (no p >= 1 shortcut)
  kVllmAscending,  // ascending inclusive sum c_j > f32(1 - p), the largest always kept
};

constexpr TopPWalk TopPWalkFor(Profile profile) {
  switch (profile) {
    case Profile::kFlashinfer: return TopPWalk::kTieGroup;
    case Profile::kSglang: return TopPWalk::kSglang;
    case Profile::kVllm: return TopPWalk::kVllmAscending;
    default: return TopPWalk::kExclusive;
  }
}

// docs/spec/filters.md "Degenerate rows" (top_p, min_p): on a row holding a NaN or a +inf, whose
// softmax is NaN everywhere, an enabled top-p or min-p keeps nothing under flashinfer (its
// kernels take the row maximum with fmaxf from 0, so the NaN probabilities leave a pivot of 0,
// and `prob > low` / `prob >= pivot` is false for each of them) and masks nothing elsewhere
// (torch compares with the NaN cumsum or NaN threshold: false, so nothing is dropped).
constexpr bool NanSoftmaxEmptiesRow(Profile profile) { return profile == Profile::kFlashinfer; }

// docs/spec/filters.md#min_p: ascend_v2's m >= 1 keeps the first token of the order only.
constexpr bool MinPFirstOnlyAtOne(Profile profile) { return profile == Profile::kAscendV2; }

// docs/spec/filters.md#sampling_filters "Order per profile". `joint_asked`: the case asked for
// order "joint" (flashinfer's alternative; reference/sampling_filters.h checks the name).
enum class FilterOrder : std::uint8_t {
  kTopKFirst,      // canonical, flashinfer top_k_first: top_k -> top_p -> min_p, renormalised
  kMinPFirst,      // vllm: min_p -> top_k -> top_p
  kJoint,          // sglang: top_k ∩ top_p ∩ min_p, all on the original distribution
  kJointThenMinP,  // flashinfer joint: top_k ∩ top_p on the original, then min_p renormalised
  kAscend,         // ascend_v2: top_k -> top_p -> min_p on the top-k softmax (no renormalisation)
};

constexpr FilterOrder FilterOrderFor(Profile profile, bool joint_asked) {
  switch (profile) {
    case Profile::kVllm: return FilterOrder::kMinPFirst;
    case Profile::kSglang: return FilterOrder::kJoint;
    case Profile::kAscendV2: return FilterOrder::kAscend;
    case Profile::kFlashinfer: return joint_asked ? FilterOrder::kJointThenMinP : FilterOrder::kTopKFirst;
    default: return FilterOrder::kTopKFirst;
  }
}

}  // namespace sampcheck::reference
