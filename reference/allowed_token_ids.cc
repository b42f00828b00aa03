// SPDX-License-Identifier: Apache-2.0
// allowed_token_ids (reference/allowed_token_ids.h, docs/spec/masks.md#allowed_token_ids).
#include "reference/allowed_token_ids.h"

#include <limits>
#include <utility>
#include <vector>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

AllowedTokenIdsArgs ParseAllowedTokenIds(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "allowed_token_ids");
  AllowedTokenIdsArgs a;
  a.logits = in.Logits();
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  a.allowed_ids = &in.Required("allowed_ids");
  in.ExpectDim("allowed_ids", *a.allowed_ids, 0, rows);
  in.ExpectIdsOrPadding("allowed_ids", *a.allowed_ids, vocab);
  return a;
}

TensorMap RunAllowedTokenIds(const Case& c, Profile profile) {
  AllowedTokenIdsArgs a = ParseAllowedTokenIds(c, profile);
  const std::int64_t rows = a.logits.dim(0);
  // Per row: save the allowed values, fill the row with -inf, write them back — one
  // branch-free pass over V plus work proportional to the list.
  LogitsMap x = AsArray(a.logits);
  std::vector<std::pair<std::int32_t, float>> kept;
  for (std::int64_t b = 0; b < rows; ++b) {
    kept.clear();
    for (std::int32_t t : Row(*a.allowed_ids, b)) {
      if (t >= 0) kept.emplace_back(t, x(b, t));
    }
    if (kept.empty()) continue;
    x.row(b).setConstant(-std::numeric_limits<float>::infinity());
    for (const auto& [t, v] : kept) x(b, t) = v;
  }
  return Outputs("logits", std::move(a.logits));
}

SAMPCHECK_REFERENCE_STAGE(allowed_token_ids, RunAllowedTokenIds);

}  // namespace sampcheck::reference
