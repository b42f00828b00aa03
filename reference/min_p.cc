// SPDX-License-Identifier: Apache-2.0
// min_p (reference/min_p.h, docs/spec/filters.md#min_p).
#include "reference/min_p.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "reference/filter_order.h"
#include "reference/filter_rows.h"
#include "reference/profile_rules.h"
#include "reference/reductions.h"
#include "reference/softmax.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

void MinPRowFromProbs(Profile profile, std::span<float> row, std::span<const float> probs, float m) {
  if (m <= 0.0f || !std::any_of(row.begin(), row.end(), [](float v) { return std::isfinite(v); })) return;
  if (MinPFirstOnlyAtOne(profile) && m >= 1.0f) {
    KeepOnly(row, TopIndices(row, 1));
    return;
  }
  const float threshold = CanonicalMax(probs) * std::min(m, 1.0f);
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (!(probs[i] >= threshold)) row[i] = -std::numeric_limits<float>::infinity();
  }
}

// MinPRow on a row whose entries other than the survivors are -inf (docs/spec/filters.md "Work
// on the survivors only"): the -inf entries' probabilities are +0, below the maximum 1/s > 0,
// so the threshold is the survivors' maximum probability times min(m, 1); they are -inf
// whether dropped or not.
void MinPSurvivors(Profile profile, std::span<float> row, float m, const Survivors& sv) {
  std::vector<std::uint8_t> keep(sv.index.size(), 0);
  if (MinPFirstOnlyAtOne(profile) && m >= 1.0f) {
    std::size_t top = 0;  // the first survivor in the canonical order (TopIndices(row, 1))
    for (std::size_t j = 1; j < sv.value.size(); ++j) {
      if (DescendingKey(sv.value[j], static_cast<std::int32_t>(j)) < DescendingKey(sv.value[top], static_cast<std::int32_t>(top))) top = j;
    }
    keep[top] = 1;
    return DropSurvivors(row, sv, keep);
  }
  std::vector<float> probs;
  const float s = SurvivorExponentials(sv, probs);
  for (float& q : probs) q = q / s;  // SoftmaxRow's probabilities
  const float threshold = CanonicalMax(probs) * std::min(m, 1.0f);
  for (std::size_t j = 0; j < probs.size(); ++j) keep[j] = probs[j] >= threshold ? 1 : 0;
  DropSurvivors(row, sv, keep);
}

void MinPRow(Profile profile, std::span<float> row, float m) {
  if (m <= 0.0f) return;
  Survivors survivors;
  if (GatherSurvivors(row, survivors)) return MinPSurvivors(profile, row, m, survivors);
  std::vector<float> probs(row.size());
  SoftmaxRow(row, probs);
  MinPRowFromProbs(profile, row, probs, m);
}

bool MinPDegenerateRow(Profile profile, std::span<float> row, float m) {
  if (!HoldsNanOrPosInf(row)) return false;
  DegenerateSoftmaxFilterRow(profile, row, m > 0.0f);  // m <= 0 is the disabled value
  return true;
}

MinPArgs ParseMinP(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "min_p");
  MinPArgs a;
  a.logits = FilterLogits(in);
  a.min_p = RowParams(in, "min_p", a.logits.dim(0));
  if (!a.min_p) in.Fail("missing input tensor 'min_p'");
  return a;
}

TensorMap RunMinP(const Case& c, Profile profile) {
  MinPArgs a = ParseMinP(c, profile);
  ForEachRow(a.logits, [&](std::int64_t b, std::span<float> row) {
    if (!MinPDegenerateRow(profile, row, a.min_p[b])) MinPRow(profile, row, a.min_p[b]);
  });
  return Outputs("logits", std::move(a.logits));
}

SAMPCHECK_REFERENCE_STAGE(min_p, RunMinP);

}  // namespace sampcheck::reference
