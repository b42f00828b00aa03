// SPDX-License-Identifier: Apache-2.0
// top_k (reference/top_k.h, docs/spec/filters.md#top_k).
#include "reference/top_k.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "reference/filter_order.h"
#include "reference/filter_rows.h"
#include "reference/profile_rules.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

}  // namespace

bool AscendTopKActive(std::int64_t k, std::int64_t vocab, std::int64_t ks_max) {
  const std::int64_t rounded = (std::max<std::int64_t>(ks_max, 0) + 7) / 8 * 8;
  return k >= 1 && k <= std::min({vocab, rounded, std::int64_t{1024}});
}

void ValidateKsMax(const StageInputs& in, std::int64_t ks_max) {
  if (ks_max < 1 || ks_max > 1024) in.Fail("parameter ks_max = " + std::to_string(ks_max) + " must be in [1, 1024]");
}

void TopKRow(Profile profile, std::span<float> row, std::int64_t k, std::int64_t ks_max) {
  const auto vocab = static_cast<std::int64_t>(row.size());
  const bool disabled = TopKAscendLimit(profile) ? !AscendTopKActive(k, vocab, ks_max) : (k <= 0 || k >= vocab);
  if (disabled) return;
  const std::vector<std::int32_t> top = TopIndices(row, k);
  if (TopKKeepsTies(profile)) {
    const float kth = row[static_cast<std::size_t>(top.back())];
    for (float& v : row) v = v >= kth ? v : kNegInf;  // -0.0 >= +0.0: zeros tie
    return;
  }
  KeepOnly(row, top);
}

TopKArgs ParseTopK(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "top_k");
  TopKArgs a;
  a.logits = FilterLogits(in);
  a.top_k = &in.Required("top_k");
  in.ExpectDim("top_k", *a.top_k, 0, a.logits.dim(0));
  a.ks_max = IntParam(in, c, "ks_max", kAscendDefaultKsMax);
  ValidateKsMax(in, a.ks_max);
  return a;
}

TensorMap RunTopK(const Case& c, Profile profile) {
  TopKArgs a = ParseTopK(c, profile);
  ForEachRow(a.logits, [&](std::int64_t b, std::span<float> row) {
    TopKRow(profile, row, a.top_k->data<std::int32_t>()[static_cast<std::size_t>(b)], a.ks_max);
  });
  return Outputs("logits", std::move(a.logits));
}

SAMPCHECK_REFERENCE_STAGE(top_k, RunTopK);

}  // namespace sampcheck::reference
