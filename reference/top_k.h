// SPDX-License-Identifier: Apache-2.0
#pragma once
// top_k: keep the k largest logits of each row, mask the rest with -inf
// (docs/spec/filters.md#top_k).
//
// Contract:
// - Inputs: logits [B, V] (upcast to f32; NaN and +inf accepted: "Degenerate rows" below);
//   top_k [B] i32. Param ks_max (ascend_v2 only, default 1024). Output: logits [B, V] f32,
//   dropped entries -inf, kept entries bit-identical (a kept NaN keeps its bits).
// - Order (reference/filter_order.h): larger value first, ties by lower index.
// - Disabled rows are the identity: k <= 0 or k >= V (canonical, vllm, sglang, flashinfer);
//   ascend_v2: k <= 0, or k > min(V, ks_max rounded up to a multiple of 8, 1024).
// - Kept set:
//   canonical, sglang, ascend_v2: exactly the first k of the order (a tie at the k-th value
//     goes to the lower indices);
//   vllm (sort path: mask `logits < kth value`), flashinfer (kept iff fewer than k entries are
//     strictly greater): every entry >= the k-th value, so all ties at the k-th value stay.
// - Degenerate rows (docs/spec/filters.md "Degenerate rows"): +inf is the largest number and
//   needs no rule. n NaN entries in an active row (TopKSetAsideNaNs / TopKRestoreNaNs):
//   every profile but flashinfer ranks them first (by index) and keeps them: n >= k keeps the
//   first k NaNs (vllm: the whole row, nothing is < a NaN k-th value), else the NaNs and the
//   rule's k - n among the numbers. flashinfer: P NaNs with the sign bit clear rank first, the
//   others last, and every NaN is dropped; P >= k, or k > V - (the others), drops the whole row
//   (a NaN pivot keeps nothing), else its rule's k - P among the numbers.
// - Exact tier. Selection, not a full sort: O(V) per row.
// Example: {1, 3, 3, 2}, k = 1 -> canonical {-inf, 3, -inf, -inf}, vllm {-inf, 3, 3, -inf}.

#include <cstdint>
#include <span>
#include <vector>

#include "core/case.h"
#include "core/profile.h"
#include "reference/stage_io.h"

namespace sampcheck::reference {

inline constexpr std::int64_t kAscendDefaultKsMax = 1024;

// TopKTopPSampleV2 accepts ksMax in [1, 1024] (docs/research/peers_filters.md); throws
// through `in` otherwise.
void ValidateKsMax(const StageInputs& in, std::int64_t ks_max);
// ascend_v2: whether top-k runs, 1 <= k <= min(V, ks_max rounded up to 8, 1024) (tiling:
// ksMax aligned to 32-byte blocks of f32, capped at 1024; kernel: k > 0 && k <= min(V, ksMax)).
bool AscendTopKActive(std::int64_t k, std::int64_t vocab, std::int64_t ks_max);
// Whether top-k changes the row at all (the disabled values above).
bool TopKActive(Profile profile, std::int64_t k, std::int64_t vocab, std::int64_t ks_max);

// A row's NaN entries, set aside so that the ordering code (reference/filter_order.h, the gpu
// radix select) orders only numbers.
struct TopKNaNs {
  std::vector<std::int32_t> index;  // NaN columns, increasing; empty: nothing set aside
  std::vector<float> value;         // their values, bits kept
  std::int64_t k = 0;               // the row's own k
};
// When the row's top-k is active and the row holds a NaN: replaces each NaN by -inf, records
// it in `nans`, and returns the k to apply to the numbers (k minus the NaNs ranked above them;
// <= 0 means none). Otherwise returns k and leaves `nans` empty.
std::int64_t TopKSetAsideNaNs(Profile profile, std::span<float> row, std::int64_t k, std::int64_t ks_max,
                              TopKNaNs& nans);
// After the numbers were filtered with TopKSetAsideNaNs' k: the profile's NaN rule (header).
void TopKRestoreNaNs(Profile profile, std::span<float> row, const TopKNaNs& nans);

// In place on one row; `ks_max` is read by ascend_v2 only.
void TopKRow(Profile profile, std::span<float> row, std::int64_t k, std::int64_t ks_max = kAscendDefaultKsMax);
// The stage's inputs after every check (logits [B, V] of any values, top_k [B] i32, ks_max in
// [1, 1024]), one message each: what the reference below and the gpu glue
// (gpu/backend/filters_glue.cc) compute from. The profile's rule is TopKKeepsTies and
// TopKAscendLimit (reference/profile_rules.h). `top_k` points into the case, which must
// outlive the arguments.
struct TopKArgs {
  Tensor logits;                 // [B, V], upcast to f32
  const Tensor* top_k = nullptr;  // [B] i32
  std::int64_t ks_max = kAscendDefaultKsMax;
};
TopKArgs ParseTopK(const Case& c, Profile profile);

TensorMap RunTopK(const Case& c, Profile profile);

}  // namespace sampcheck::reference
