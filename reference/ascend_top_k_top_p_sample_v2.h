// SPDX-License-Identifier: Apache-2.0
#pragma once
// ascend_top_k_top_p_sample_v2: CANN TopKTopPSampleV2 (hicann/ops-nn
// index/top_k_top_p_sample_v2/) as one stage: top-k -> top-p -> min-p -> argmax or QSample,
// with the op's attributes and outputs (docs/spec/ascend_top_k_top_p_sample_v2.md).
//
// Contract:
// - Profile ascend_v2 only. Canonical tier: exact given the canonical softmax (reference/softmax.h).
// - Inputs (op names in snake_case): logits [B, V] f32|f16|bf16 (upcast exactly to f32);
//   top_k [B] i32 (required); top_p [B] (required) and min_p [B] (optional) of the same
//   dtype as logits (the op rejects a mismatch; values upcast exactly); q [B, V] f32
//   (optional). Throws std::invalid_argument on NaN or +inf in logits, NaN in top_p, min_p or
//   q, and, when input_is_logits, on a row with no finite logit (the op's softmax is NaN
//   there: nothing to sample); when !input_is_logits, on any entry that is not a finite
//   value >= 0 (the entries are probabilities).
// - Params (JSON): eps (number, default 1e-8; rounded to f32, as the op's tiling reads it;
//   finite, >= 0), is_need_logits (bool, false), top_k_guess (int, 32; any int32: it only
//   sizes the kernel's top-p fast path, values <= 0 disable it and values > 1024 act as
//   1024; results never depend on it), ks_max (int, 1024; in [1, 1024] as the op documents,
//   checked by ValidateKsMax; rounded up to a multiple of 8, then capped at 1024: 1017..1024
//   all give 1024), input_is_logits (bool, true), is_need_sample_result (bool,
//   false; with q present it is an error, as in the op).
// - Per row b, with k = top_k[b], p = top_p[b], m = min_p[b] (0 when absent):
//   1. Order: reference/filter_order.h (larger value first, ties by lower index) on the
//      input values. top-k is active iff 1 <= k <= min(V, ks_max rounded up to 8, 1024).
//   2. List L (the survivors, in the kernel's list order):
//      p <= 0: L = the first entry of the order (the kernel runs top-k with k = 1, whatever
//        top_k says). Else top-k active: L = the first k entries of the order (-inf logits
//        included). Else 0 < p < 1: L = the whole order. Else (top-k off, p >= 1): L = all
//        V entries in vocab order (the kernel's unsorted path: GetRowMaxandIndex).
//   3. probs: input_is_logits: probs = SoftmaxRow of the row with every entry outside L (as
//      fixed by step 2's top-k / p <= 0 cut) set to -inf: the canonical softmax of the
//      top-k survivors, bit-identical to what sampling_filters (ascend_v2) reads; with top-k
//      off it is the softmax of the whole row. !input_is_logits: probs = the input values.
//   4. top-p, only when 0 < p < 1: E_j = f32 running sum of probs over L before position j,
//      from +0.0; L keeps the positions with E_j < p (the minimal prefix whose mass reaches
//      p; all of L when it never does). No renormalisation.
//   5. min-p, only when m > 0: m >= 1: L keeps only its argmax position (below); else
//      threshold = max_{j in L} probs * m (one f32 product) and L keeps, in order, the
//      entries with probs >= threshold. Reads the same probs (no renormalisation).
//   6. Sample (is_need_sample_result false): without q, the position j* of L maximising
//      probs[L[j]]; with q, maximising r_j = probs[L[j]] / (|q[b][j]| + eps) in f32 (fabs,
//      one add, one division), q indexed by position j in L, not by vocab id. Ties: lowest
//      position. A NaN r_j (0 / 0: probs 0, q 0, eps 0) wins, the first one if several
//      (torch.argmax in the op's ST golden; the device rule is UNVERIFIED, qsample.h).
//      logits_select_idx[b] = L[j*].
// - Outputs (names as the op defines them, snake_case):
//   logits_select_idx [B] i64: unless is_need_sample_result.
//   logits_top_kp_select [B, V] f32: only if is_need_logits: the upcast input at the vocab
//     ids in L, defLogit elsewhere (defLogit = -inf if input_is_logits, else +0.0).
//   logits_sort_masked [B, V] f32 and logits_idx [B, V] i64: only if is_need_sample_result:
//     positions j < |L| hold probs[L[j]] and L[j]; the rest +0.0 and -1 (the kernel zeroes
//     logits_sort_masked and leaves the tail of logits_idx unwritten: compare the prefix).
// - Ties follow the canonical order; -inf logits sort last and have probs +0.0. No RNG: q
//   is an input. Deterministic.
// Example (tests/ascend_top_k_top_p_sample_v2_test.cc, HeaderExample): logits
//   {0, -ln2, -2 ln2, -2 ln2} (f32(ln 2)): probs {0.5, 0.25, 0.125, 0.125}; top_k 3,
//   top_p 0.7: top-3 probs renormalised {4/7, 2/7, 1/7} rounded; E = 0, 0.571 < 0.7, 0.857:
//   L = {0, 1}. q = {1, 0.25}, eps 1e-8: r = {0.5714, 0.2857 / 0.25 = 1.143}: token 1.

#include <cstdint>
#include <span>
#include <vector>

#include "core/case.h"
#include "core/profile.h"
#include "reference/stage_io.h"

namespace sampcheck::reference {

struct AscendSampleParams {
  std::int32_t top_k = 0;
  float top_p = 1.0f;
  float min_p = 0.0f;  // <= 0 (or absent): min-p off
  std::int64_t ks_max = 1024;
  bool input_is_logits = true;
};

struct AscendSampleRow {
  std::vector<std::int32_t> list;  // L: survivor vocab ids in list order
  std::vector<float> probs;        // probs[L[j]] for each position j
};

// Steps 1-5 on one row (already validated). `row` is the upcast input row.
AscendSampleRow AscendFilterRow(std::span<const float> row, const AscendSampleParams& params);
// Step 6: the position in `filtered.list` chosen without q (q empty) or with q (q.size() >=
// list size, indexed by position).
std::size_t AscendSamplePosition(const AscendSampleRow& filtered, std::span<const float> q, float eps);

// The `eps` parameter (default 1e-8) rounded to f32; fails (through `in`) unless finite >= 0.
float AscendEpsParam(const StageInputs& in, const Case& c);

// The stage's inputs after every check RunAscendTopKTopPSampleV2 makes (same order, same
// messages), for backends that compute the rest themselves (gpu/backend/filters_glue.cc).
struct AscendInputs {
  Tensor logits;  // upcast to f32, [B, V]
  std::vector<std::int32_t> top_k;
  std::vector<float> top_p;
  std::vector<float> min_p;  // empty when absent
  const Tensor* q = nullptr;  // [B, V] f32 in the case's inputs, or null
  bool input_is_logits = true;
  bool is_need_logits = false;
  bool is_need_sample_result = false;
  float eps = 1e-8f;
  std::int64_t ks_max = 1024;
};
AscendInputs ReadAscendInputs(const StageInputs& in, const Case& c);

TensorMap RunAscendTopKTopPSampleV2(const Case& c, Profile profile);

}  // namespace sampcheck::reference
