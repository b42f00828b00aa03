// SPDX-License-Identifier: Apache-2.0
// min_p (reference/min_p.h, docs/spec/filters.md#min_p).
#include "reference/min_p.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "reference/filter_order.h"
#include "reference/filter_rows.h"
#include "reference/reductions.h"
#include "reference/softmax.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

void MinPRowFromProbs(Profile profile, std::span<float> row, std::span<const float> probs, float m) {
  if (m <= 0.0f || !std::any_of(row.begin(), row.end(), [](float v) { return std::isfinite(v); })) return;
  if (profile == Profile::kAscendV2 && m >= 1.0f) {
    KeepOnly(row, TopIndices(row, 1));
    return;
  }
  const float threshold = CanonicalMax(probs) * std::min(m, 1.0f);
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (!(probs[i] >= threshold)) row[i] = -std::numeric_limits<float>::infinity();
  }
}

void MinPRow(Profile profile, std::span<float> row, float m) {
  if (m <= 0.0f) return;
  std::vector<float> probs(row.size());
  SoftmaxRow(row, probs);
  MinPRowFromProbs(profile, row, probs, m);
}

TensorMap RunMinP(const Case& c, Profile profile) {
  StageInputs in(c, "min_p");
  Tensor logits = FilterLogits(in);
  const float* ms = RowParams(in, "min_p", logits.dim(0));
  if (!ms) in.Fail("missing input tensor 'min_p'");
  ForEachRow(logits, [&](std::int64_t b, std::span<float> row) { MinPRow(profile, row, ms[b]); });
  return Outputs("logits", std::move(logits));
}

SAMPCHECK_REFERENCE_STAGE(min_p, RunMinP);

}  // namespace sampcheck::reference
