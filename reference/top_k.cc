// SPDX-License-Identifier: Apache-2.0
// top_k (reference/top_k.h, docs/spec/filters.md#top_k).
#include "reference/top_k.h"

#include <algorithm>
#include <cmath>
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

bool TopKActive(Profile profile, std::int64_t k, std::int64_t vocab, std::int64_t ks_max) {
  return TopKAscendLimit(profile) ? AscendTopKActive(k, vocab, ks_max) : (k > 0 && k < vocab);
}

namespace {

// The stage's rule on a row without NaN.
void TopKNumbersRow(Profile profile, std::span<float> row, std::int64_t k, std::int64_t ks_max) {
  if (!TopKActive(profile, k, static_cast<std::int64_t>(row.size()), ks_max)) return;
  const std::vector<std::int32_t> top = TopIndices(row, k);
  if (TopKKeepsTies(profile)) {
    const float kth = row[static_cast<std::size_t>(top.back())];
    for (float& v : row) v = v >= kth ? v : kNegInf;  // -0.0 >= +0.0: zeros tie
    return;
  }
  KeepOnly(row, top);
}

}  // namespace

std::int64_t TopKSetAsideNaNs(Profile profile, std::span<float> row, std::int64_t k, std::int64_t ks_max,
                              TopKNaNs& nans) {
  nans = TopKNaNs{};
  if (!TopKActive(profile, k, static_cast<std::int64_t>(row.size()), ks_max)) return k;
  std::int64_t ranked_first = 0;  // NaNs that rank above every number
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (!std::isnan(row[i])) continue;
    nans.index.push_back(static_cast<std::int32_t>(i));
    nans.value.push_back(row[i]);
    // flashinfer orders by the bits: only a NaN whose sign bit is clear is above +inf.
    if (!TopKDropsNaN(profile) || !std::signbit(row[i])) ++ranked_first;
    row[i] = kNegInf;
  }
  nans.k = k;
  return k - ranked_first;
}

void TopKRestoreNaNs(Profile profile, std::span<float> row, const TopKNaNs& nans) {
  if (nans.index.empty()) return;
  const auto n = static_cast<std::int64_t>(nans.index.size());
  if (TopKDropsNaN(profile)) {
    // The pivot is a NaN when the k-th key is one: k within the sign-clear NaNs ranked first,
    // or past the V - (sign-set NaNs) entries ranked before the sign-set ones.
    std::int64_t sign_set = 0;
    for (float v : nans.value) sign_set += std::signbit(v) ? 1 : 0;
    const std::int64_t sign_clear = n - sign_set;
    if (nans.k <= sign_clear || nans.k > static_cast<std::int64_t>(row.size()) - sign_set) {
      std::fill(row.begin(), row.end(), kNegInf);
    }
    return;  // every NaN dropped: the -inf TopKSetAsideNaNs left stays
  }
  // Every NaN ranks above the numbers and is kept; with n >= k the first k NaNs are the whole
  // kept set under exactly k, while vllm's NaN k-th value masks nothing (the numbers ran with
  // k - n <= 0, i.e. unchanged).
  const bool first_k_only = !TopKKeepsTies(profile) && n >= nans.k;
  if (first_k_only) std::fill(row.begin(), row.end(), kNegInf);
  const std::int64_t kept = first_k_only ? nans.k : n;
  for (std::int64_t j = 0; j < kept; ++j) {
    row[static_cast<std::size_t>(nans.index[static_cast<std::size_t>(j)])] = nans.value[static_cast<std::size_t>(j)];
  }
}

void TopKRow(Profile profile, std::span<float> row, std::int64_t k, std::int64_t ks_max) {
  TopKNaNs nans;
  TopKNumbersRow(profile, row, TopKSetAsideNaNs(profile, row, k, ks_max, nans), ks_max);
  TopKRestoreNaNs(profile, row, nans);
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
