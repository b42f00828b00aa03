// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared plumbing of the filter stages (top_k, top_p, min_p, sampling_filters;
// docs/spec/filters.md): the precondition on their logits, per-row iteration, scalar
// parameters, and the walk along the canonical order that finds where a prefix rule stops
// without sorting the whole row.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/profile.h"
#include "reference/stage_io.h"

namespace sampcheck::reference {

// logits upcast to f32, any values: a row holding NaN or +inf has a result in every filter
// (docs/spec/filters.md "Degenerate rows"); a bad dtype or shape throws.
Tensor FilterLogits(const StageInputs& in);
// docs/spec/filters.md "Degenerate rows": the row holds a NaN or a +inf (its softmax is NaN
// everywhere).
bool HoldsNanOrPosInf(std::span<const float> row);
// top_p's and min_p's result on such a row, in place: all -inf when `enabled` (the filter's
// parameter is not its disabled value) and the profile's kernel keeps nothing
// (NanSoftmaxEmptiesRow), else unchanged.
void DegenerateSoftmaxFilterRow(Profile profile, std::span<float> row, bool enabled);
// fn(b, row b) for every row; rows in parallel under --threads (reference/row_threads.h), so
// fn must write only row b's outputs.
void ForEachRow(Tensor& logits, const std::function<void(std::int64_t, std::span<float>)>& fn);
// Integer parameter from the case's JSON params, or `fallback`.
std::int64_t IntParam(const StageInputs& in, const Case& c, const std::string& name, std::int64_t fallback);
// Per-row f32 parameter tensor [B] (dtype f32), or nullptr.
const float* RowParams(const StageInputs& in, const std::string& name, std::int64_t rows);

// A rule that walks the canonical order from the top and keeps a prefix: Keep() is called for
// consecutive tokens and returns false at the first dropped one. It must be monotone — once it
// returns false it would return false for every later token — which every top-p rule here is
// (their running sums of non-negative f32 values never decrease).
class PrefixRule {
 public:
  virtual ~PrefixRule() = default;
  virtual void Reset() = 0;
  virtual bool Keep(std::int32_t index) = 0;
};

// The kept prefix of the canonical order under `rule`. Sorts only a prefix of the row — first
// `initial_count` entries, then 8 times more each time — until the rule stops inside it, so
// the result equals walking the fully sorted row (tests/top_p_test.cc compares with a full
// sort). A good `initial_count` (CountReachingMass) makes one round the usual case.
std::vector<std::int32_t> KeptPrefix(std::span<const float> logits, PrefixRule& rule, std::int64_t initial_count = 64);

// Sets every entry not listed in `kept` to -inf.
void KeepOnly(std::span<float> row, std::span<const std::int32_t> kept);

// The entries of a row that are not -inf, gathered when an earlier filter (top-k) left few:
// later filters then exponentiate, sum and order only these (docs/spec/filters.md "Work on the
// survivors only" says why each result is bit-identical to the dense computation).
struct Survivors {
  std::vector<std::int32_t> index;  // strictly increasing
  std::vector<float> value;         // row[index[j]], every one finite
};

// Fills `out` and returns true when 1 <= (entries not -inf) <= row.size() / 8 and all of
// them are finite; otherwise returns false (the caller takes its dense path). One read of the
// row (16-lane compares, the rare hits picked out one by one).
bool GatherSurvivors(std::span<const float> row, Survivors& out);

// SoftmaxRow's exponentials and sum restricted to the survivors: e[j] = ExpF32Cr(value[j] - M)
// with M = CanonicalMax(row), and the returned s = CanonicalSum of the dense exponentials —
// the same bits as SoftmaxRow's e and s (every -inf entry's exponential is +0, the maximum's
// is 1, so CanonicalSumAt applies), and probs[j] = e[j] / s are SoftmaxRow's probabilities.
float SurvivorExponentials(const Survivors& survivors, std::vector<float>& e);

// SoftmaxRow(row, probs) (reference/softmax.h), bit for bit; when GatherSurvivors succeeds only
// the survivors are exponentiated and the rest of probs is +0 (a -inf logit's exp(-inf) / s).
void FilteredSoftmaxRow(std::span<const float> row, std::span<float> probs);

// FilteredSoftmaxRow(row, probs) when GatherSurvivors(row) gave `survivors` (no second read).
void SurvivorSoftmaxRow(const Survivors& survivors, std::span<float> probs);

// Removes the survivors that are -inf in `row` now (a filter dropped them). What remains is
// what GatherSurvivors(row) gives when it is not empty: a subset keeps the order, the count
// bound and finiteness.
void KeepLiveSurvivors(std::span<const float> row, Survivors& survivors);

// Sets row[index[j]] = -inf for every survivor j with keep[j] == 0.
void DropSurvivors(std::span<float> row, const Survivors& survivors, std::span<const std::uint8_t> keep);

}  // namespace sampcheck::reference
