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
#include "reference/stage_io.h"

namespace sampcheck::reference {

// logits upcast to f32; throws when a row holds NaN or +inf (the filters' softmax is
// undefined there: run nan_handling first).
Tensor FilterLogits(const StageInputs& in);
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

}  // namespace sampcheck::reference
