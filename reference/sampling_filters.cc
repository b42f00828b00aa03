// SPDX-License-Identifier: Apache-2.0
// sampling_filters (reference/sampling_filters.h, docs/spec/filters.md#sampling_filters).
#include "reference/sampling_filters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "reference/filter_rows.h"
#include "reference/min_p.h"
#include "reference/softmax.h"
#include "reference/stage_io.h"
#include "reference/top_k.h"
#include "reference/top_p.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

std::string DefaultOrder(Profile profile) {
  switch (profile) {
    case Profile::kVllm: return "min_p_first";
    case Profile::kSglang: return "joint";
    default: return "top_k_first";
  }
}

}  // namespace

void ValidateFilterParams(const StageInputs& in, Profile profile, const std::string& order, std::int64_t ks_max) {
  if (!order.empty() && order != DefaultOrder(profile) && !(profile == Profile::kFlashinfer && order == "joint")) {
    in.Fail("profile " + std::string(ProfileName(profile)) + " has no order '" + order + "'; its order is '" +
            DefaultOrder(profile) + "'" + (profile == Profile::kFlashinfer ? " or 'joint'" : ""));
  }
  ValidateKsMax(in, ks_max);
}

namespace {

// The top_k_first order (canonical, flashinfer): one GatherSurvivors after top-k serves top-p,
// min-p and the caller's probs, where TopPRow, MinPRow and FilteredSoftmaxRow would each read
// the row again (docs/spec/filters.md "Work on the survivors only"). Returns true with `sv` =
// GatherSurvivors(row) of the filtered row when that holds; false when a dense path ran.
bool TopKFirstRow(Profile profile, std::span<float> row, const FilterParams& f, Survivors& sv) {
  TopKRow(profile, row, f.top_k);
  if (!GatherSurvivors(row, sv)) {
    TopPRow(profile, row, f.top_p);
    MinPRow(profile, row, f.min_p);
    return false;
  }
  if (!(f.top_p >= 1.0f)) {  // TopPRow's early return, NaN included
    TopPSurvivors(profile, row, f.top_p, sv);
    KeepLiveSurvivors(row, sv);
  }
  if (!(f.min_p <= 0.0f)) {  // MinPRow's early return
    if (sv.index.empty()) {  // GatherSurvivors would fail: MinPRow's dense path
      MinPRow(profile, row, f.min_p);
      return false;
    }
    MinPSurvivors(profile, row, f.min_p, sv);
    KeepLiveSurvivors(row, sv);
  }
  return !sv.index.empty();
}

// SamplingFiltersRow; true when `sv` holds GatherSurvivors(row) of the filtered row.
bool FilterRow(Profile profile, std::span<float> row, const FilterParams& f, Survivors& sv) {
  const std::string order = f.order.empty() ? DefaultOrder(profile) : f.order;
  if (order != DefaultOrder(profile) && !(profile == Profile::kFlashinfer && order == "joint")) {
    throw std::invalid_argument("sampling_filters: profile " + std::string(ProfileName(profile)) +
                                " has no order '" + order + "'; its order is '" + DefaultOrder(profile) + "'" +
                                (profile == Profile::kFlashinfer ? " or 'joint'" : ""));
  }
  const FilterOrder filter_order = FilterOrderFor(profile, order == "joint");
  if (filter_order == FilterOrder::kMinPFirst) {
    MinPRow(profile, row, f.min_p);
    TopKRow(profile, row, f.top_k);
    TopPRow(profile, row, f.top_p);
    return false;
  }
  if (filter_order == FilterOrder::kJoint || filter_order == FilterOrder::kJointThenMinP) {
    // top_k's set is a prefix of the order (exactly k, or every value >= the k-th), so its
    // intersection with top_p's prefix is top_p's rule walked over top_k's set alone.
    const bool min_p_joint = filter_order == FilterOrder::kJoint;  // min_p on the original too
    const bool top_p_every_p = TopPWalkFor(profile) == TopPWalk::kSglang;
    const std::vector<float> original(row.begin(), row.end());
    TopKRow(profile, row, f.top_k);
    const bool finite = std::any_of(row.begin(), row.end(), [](float v) { return std::isfinite(v); });
    std::vector<float> probs;
    // SGLang's sorted path masks top-p at every p, 1 included (top_p.h).
    const bool run_top_p = f.top_p < 1.0f || top_p_every_p;
    if (finite && (run_top_p || (min_p_joint && f.min_p > 0.0f))) {
      probs.resize(original.size());
      SoftmaxRow(original, probs);
    }
    if (finite && run_top_p) {
      const auto top_k_size = static_cast<std::int64_t>(
          std::count_if(row.begin(), row.end(), [](float v) { return v != -std::numeric_limits<float>::infinity(); }));
      const std::int64_t limit = std::max<std::int64_t>(top_k_size, 1);
      KeepOnly(row, TopPKept(profile, original, probs, f.top_p, limit));
    }
    if (min_p_joint) {
      if (!probs.empty()) MinPRowFromProbs(profile, row, probs, f.min_p);
    } else {
      MinPRow(profile, row, f.min_p);
    }
    return false;
  }
  if (filter_order == FilterOrder::kAscend) {
    TopKRow(profile, row, f.top_k, f.ks_max);
    std::vector<float> probs(row.size());
    if (f.min_p > 0.0f) FilteredSoftmaxRow(row, probs);  // the top-k survivors' softmax, read by min_p
    TopPRow(profile, row, f.top_p);
    if (f.min_p > 0.0f && std::any_of(row.begin(), row.end(), [](float v) { return std::isfinite(v); })) {
      MinPRowFromProbs(profile, row, probs, f.min_p);
    }
    return false;
  }
  return TopKFirstRow(profile, row, f, sv);  // canonical, flashinfer top_k_first
}

// A filter's rule on any row: its degenerate-row rule (top_p.h, min_p.h) or its usual one.
void TopPAnyRow(Profile profile, std::span<float> row, float p) {
  if (!TopPDegenerateRow(profile, row, p)) TopPRow(profile, row, p);
}
void MinPAnyRow(Profile profile, std::span<float> row, float m) {
  if (!MinPDegenerateRow(profile, row, m)) MinPRow(profile, row, m);
}

}  // namespace

bool SamplingFiltersDegenerateRow(Profile profile, std::span<float> row, const FilterParams& f) {
  if (!HoldsNanOrPosInf(row)) return false;
  const std::string order = f.order.empty() ? DefaultOrder(profile) : f.order;
  switch (FilterOrderFor(profile, order == "joint")) {
    case FilterOrder::kMinPFirst:
      MinPAnyRow(profile, row, f.min_p);
      TopKRow(profile, row, f.top_k);
      TopPAnyRow(profile, row, f.top_p);
      return true;
    case FilterOrder::kJoint:
    case FilterOrder::kJointThenMinP: {
      // top_p's set (and, joint, min_p's) of the original row: a degenerate row's rule is all
      // of it or nothing, so the intersection is top_k's set or empty.
      const bool joint = FilterOrderFor(profile, order == "joint") == FilterOrder::kJoint;
      const bool emptied = NanSoftmaxEmptiesRow(profile) && (f.top_p < 1.0f || (joint && f.min_p > 0.0f));
      TopKRow(profile, row, f.top_k);
      if (emptied) std::fill(row.begin(), row.end(), -std::numeric_limits<float>::infinity());
      if (!joint) MinPAnyRow(profile, row, f.min_p);
      return true;
    }
    case FilterOrder::kTopKFirst:
    case FilterOrder::kAscend:
      // ascend_v2's min_p reads the top-k survivors' softmax: NaN everywhere here (top_k keeps
      // the NaN and +inf entries, ranked first), the same rule as on the row after top_p.
      TopKRow(profile, row, f.top_k, f.ks_max);
      TopPAnyRow(profile, row, f.top_p);
      MinPAnyRow(profile, row, f.min_p);
      return true;
  }
  return false;
}

void SamplingFiltersRow(Profile profile, std::span<float> row, const FilterParams& f) {
  Survivors sv;
  FilterRow(profile, row, f, sv);
}

SamplingFiltersArgs ParseSamplingFilters(const Case& c, Profile profile) {
  StageInputs in(c, "sampling_filters");
  SamplingFiltersArgs a;
  a.logits = FilterLogits(in);
  const std::int64_t rows = a.logits.dim(0);
  a.top_k = in.Optional("top_k");
  if (a.top_k) in.ExpectDim("top_k", *a.top_k, 0, rows);
  a.top_p = RowParams(in, "top_p", rows);
  a.min_p = RowParams(in, "min_p", rows);
  if (c.params.contains("order")) {
    if (!c.params["order"].is_string()) in.Fail("parameter order must be a string");
    a.order = c.params["order"].get<std::string>();
  }
  a.ks_max = IntParam(in, c, "ks_max", kAscendDefaultKsMax);
  ValidateFilterParams(in, profile, a.order, a.ks_max);
  a.filter_order = FilterOrderFor(profile, a.order == "joint");
  return a;
}

TensorMap RunSamplingFilters(const Case& c, Profile profile) {
  SamplingFiltersArgs a = ParseSamplingFilters(c, profile);
  FilterParams base;
  base.order = a.order;
  base.ks_max = a.ks_max;
  Tensor probs = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  auto probs_all = probs.data<float>();
  const auto vocab = static_cast<std::size_t>(a.logits.dim(1));
  ForEachRow(a.logits, [&](std::int64_t b, std::span<float> row) {
    FilterParams f = base;
    const auto i = static_cast<std::size_t>(b);
    if (a.top_k) f.top_k = a.top_k->data<std::int32_t>()[i];
    if (a.top_p) f.top_p = a.top_p[i];
    if (a.min_p) f.min_p = a.min_p[i];
    Survivors sv;
    if (SamplingFiltersDegenerateRow(profile, row, f)) {
      FilteredSoftmaxRow(row, probs_all.subspan(i * vocab, vocab));
    } else if (FilterRow(profile, row, f, sv)) {
      SurvivorSoftmaxRow(sv, probs_all.subspan(i * vocab, vocab));
    } else {
      FilteredSoftmaxRow(row, probs_all.subspan(i * vocab, vocab));
    }
  });
  TensorMap out = Outputs("logits", std::move(a.logits));
  out.emplace("probs", std::move(probs));
  return out;
}

SAMPCHECK_REFERENCE_STAGE(sampling_filters, RunSamplingFilters);

}  // namespace sampcheck::reference
