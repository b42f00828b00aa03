// SPDX-License-Identifier: Apache-2.0
// top_p (reference/top_p.h, docs/spec/filters.md#top_p).
#include "reference/top_p.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "reference/filter_order.h"
#include "reference/filter_rows.h"
#include "reference/profile_rules.h"
#include "reference/math/exp_array.h"
#include "reference/reductions.h"
#include "reference/softmax.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

// The probability of token i is exponential[i] / sum, one f32 division: the same operations as
// SoftmaxRow, so the same bits, computed only for the tokens a rule visits.
struct Probabilities {
  const float* exponential;
  float sum;
  float operator[](std::int32_t i) const { return exponential[static_cast<std::size_t>(i)] / sum; }
};

// Exclusive prefix rule: canonical / ascend_v2 (E < p). sglang and vllm have their own walks.
class ExclusivePrefixRule final : public PrefixRule {
 public:
  ExclusivePrefixRule(Probabilities probs, float p) : probs_(probs), p_(p) {}
  void Reset() override { e_ = 0.0f; }
  bool Keep(std::int32_t index) override {
    const bool keep = e_ < p_;
    e_ = e_ + probs_[index];
    return keep;
  }

 private:
  Probabilities probs_;
  float p_;
  float e_ = 0.0f;
};

// FlashInfer: tokens of equal probability are kept or dropped together, by the mass before
// the group.
class TieGroupRule final : public PrefixRule {
 public:
  TieGroupRule(Probabilities probs, float p) : probs_(probs), p_(p) {}
  void Reset() override { e_ = 0.0f, started_ = false; }
  bool Keep(std::int32_t index) override {
    const float prob = probs_[index];
    if (!started_ || prob != group_prob_) {
      started_ = true;
      group_prob_ = prob;
      keep_group_ = e_ < p_;
    }
    e_ = e_ + prob;
    return keep_group_;
  }

 private:
  Probabilities probs_;
  float p_;
  float e_ = 0.0f, group_prob_ = 0.0f;
  bool started_ = false, keep_group_ = false;
};

std::unique_ptr<PrefixRule> MakeRule(Profile profile, Probabilities probs, float p) {
  if (p <= 0.0f) p = 0.0f;  // every rule below then keeps only the first token (or tie group)
  if (TopPWalkFor(profile) == TopPWalk::kTieGroup) {
    return std::make_unique<TieGroupRule>(probs, p > 0.0f ? p : 0x1p-149f);  // p <= 0: the first group
  }
  return std::make_unique<ExclusivePrefixRule>(probs, p);  // sglang has its own walk (SglangTopPKept)
}

std::vector<std::int32_t> KeptByRule(Profile profile, std::span<const float> row, Probabilities probs, float p,
                                     std::int64_t limit, double mass_hint) {
  std::unique_ptr<PrefixRule> rule = MakeRule(profile, probs, p);
  std::vector<std::int32_t> kept;
  if (limit < static_cast<std::int64_t>(row.size())) {
    // Only the first `limit` positions can be kept: walk them alone.
    kept = TopIndices(row, limit);
    rule->Reset();
    std::size_t n = 0;
    while (n < kept.size() && rule->Keep(kept[n])) ++n;
    kept.resize(n);
  } else {
    // The prefix holding mass p plus a margin, rounded up to whole histogram buckets, plus
    // one token: usually enough for the rule to stop inside it (a hint only).
    const std::int64_t guess = CountReachingMass(row, std::span<const float>(probs.exponential, row.size()), mass_hint) + 1;
    kept = KeptPrefix(row, *rule, guess);
  }
  if (kept.empty()) kept = TopIndices(row, 1);  // p <= 0 under E < p: the first token
  return kept;
}

// SGLang's torch rule (top_k_top_p_min_p_sampling_from_probs_torch): probs_sum =
// cumsum(probs_sort), a position is zeroed iff f32(probs_sum - probs_sort) > p. Each position
// is tested on its own (a mask, not a walk that stops), over the first `limit` positions of
// the order; the sum runs over every position before, top-k survivors or not, as SGLang's
// cumsum is taken before top-k zeroes anything. No shortcut at p >= 1: SGLang runs the mask
// for every row of a batch on its sorted path, and once the f32 sum passes 1 the tail goes.
std::vector<std::int32_t> SglangTopPKept(std::span<const float> row, std::span<const float> probs, float p,
                                         std::int64_t limit) {
  if (p <= 0.0f) return TopIndices(row, 1);  // SGLang rejects p <= 0: the canonical choice
  const std::vector<std::int32_t> order = DescendingOrder(row);
  std::vector<std::int32_t> kept;
  float c = 0.0f;
  const std::size_t n = std::min(order.size(), static_cast<std::size_t>(std::max<std::int64_t>(limit, 0)));
  for (std::size_t j = 0; j < n; ++j) {
    const float prob = probs[static_cast<std::size_t>(order[j])];
    c = c + prob;               // probs_sum[j], f32 inclusive running sum
    const float before = c - prob;  // probs_sum - probs_sort, one f32 subtraction
    if (!(before > p)) kept.push_back(order[j]);
  }
  if (kept.empty()) kept = TopIndices(row, 1);
  return kept;
}

void VllmTopP(std::span<float> row, std::span<const float> probs, float p) {
  // Ascending, smallest first; equal values by increasing index, as a stable ascending sort
  // leaves them (CPU torch.sort keeps index order among equal keys): the reverse of the
  // descending order with each run of equal values put back in index order. The walk meets
  // the lower index of a tie first and drops it first: the higher index survives.
  std::vector<std::int32_t> order = DescendingOrder(row);
  std::reverse(order.begin(), order.end());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i + 1;
    const float v = row[static_cast<std::size_t>(order[i])];
    while (j < order.size() && row[static_cast<std::size_t>(order[j])] == v) ++j;
    std::reverse(order.begin() + static_cast<std::ptrdiff_t>(i), order.begin() + static_cast<std::ptrdiff_t>(j));
    i = j;
  }
  const float threshold = 1.0f - p;
  std::vector<std::int32_t> kept;
  float c = 0.0f;
  for (std::size_t j = 0; j < order.size(); ++j) {
    c = c + probs[static_cast<std::size_t>(order[j])];
    if (!(c <= threshold) || j + 1 == order.size()) kept.push_back(order[j]);
  }
  KeepOnly(row, kept);
}

// The survivors' positions j in the canonical order (value descending, index ascending; the
// positions increase with the index, so they break ties the same way).
std::vector<std::int32_t> SurvivorOrder(const Survivors& sv) {
  std::vector<std::uint64_t> keys(sv.value.size());
  for (std::size_t j = 0; j < keys.size(); ++j) keys[j] = DescendingKey(sv.value[j], static_cast<std::int32_t>(j));
  std::sort(keys.begin(), keys.end());
  std::vector<std::int32_t> order(keys.size());
  for (std::size_t j = 0; j < keys.size(); ++j) order[j] = static_cast<std::int32_t>(keys[j] & 0xFFFFFFFFu);
  return order;
}

}  // namespace

// TopPRow on a row whose entries other than the survivors are -inf (docs/spec/filters.md "Work
// on the survivors only"): a -inf entry's probability is +0, it comes after every survivor in
// the descending order (before them in vllm's ascending one), adds +0 to every running sum,
// and stays -inf whether a rule keeps it or not, so walking the survivors alone gives the same
// row. Their probabilities are SoftmaxRow's (SurvivorExponentials).
void TopPSurvivors(Profile profile, std::span<float> row, float p, const Survivors& sv) {
  std::vector<float> e;
  const float s = SurvivorExponentials(sv, e);
  const Probabilities probs{e.data(), s};
  const std::vector<std::int32_t> order = SurvivorOrder(sv);
  std::vector<std::uint8_t> keep(order.size(), 0);
  if (TopPWalkFor(profile) == TopPWalk::kVllmAscending && p > 0.0f) {
    // VllmTopP: ascending, equal values in index order (a stable ascending sort), dropped while
    // the running sum is <= 1 - p; the largest (last) is always kept.
    std::vector<std::int32_t> ascending(order.rbegin(), order.rend());
    for (std::size_t i = 0; i < ascending.size();) {
      std::size_t j = i + 1;
      const float v = sv.value[static_cast<std::size_t>(ascending[i])];
      while (j < ascending.size() && sv.value[static_cast<std::size_t>(ascending[j])] == v) ++j;
      std::reverse(ascending.begin() + static_cast<std::ptrdiff_t>(i), ascending.begin() + static_cast<std::ptrdiff_t>(j));
      i = j;
    }
    const float threshold = 1.0f - p;
    float c = 0.0f;
    for (std::size_t r = 0; r < ascending.size(); ++r) {
      c = c + probs[ascending[r]];
      if (!(c <= threshold) || r + 1 == ascending.size()) keep[static_cast<std::size_t>(ascending[r])] = 1;
    }
  } else {
    std::unique_ptr<PrefixRule> rule = MakeRule(profile, probs, p);
    rule->Reset();
    std::size_t n = 0;
    while (n < order.size() && rule->Keep(order[n])) keep[static_cast<std::size_t>(order[n++])] = 1;
    if (n == 0) keep[static_cast<std::size_t>(order[0])] = 1;  // p <= 0 under E < p: the first token
  }
  DropSurvivors(row, sv, keep);
}

namespace {

bool HasFinite(std::span<const float> row) {
  return std::any_of(row.begin(), row.end(), [](float v) { return std::isfinite(v); });
}

}  // namespace

std::vector<std::int32_t> TopPKept(Profile profile, std::span<const float> row, std::span<const float> probs, float p,
                                   std::int64_t limit) {
  if (TopPWalkFor(profile) == TopPWalk::kSglang) return SglangTopPKept(row, probs, p, limit);
  // Given probabilities: dividing by 1.0f changes no bits.
  return KeptByRule(profile, row, Probabilities{probs.data(), 1.0f}, p, limit, static_cast<double>(p) + 1e-3);
}

void TopPRow(Profile profile, std::span<float> row, float p) {
  const TopPWalk walk = TopPWalkFor(profile);
  if (walk == TopPWalk::kSglang) {  // SGLang's mask runs at every p, 1 included
    if (!HasFinite(row)) return;
    std::vector<float> probs(row.size());
    SoftmaxRow(row, probs);
    return KeepOnly(row, SglangTopPKept(row, probs, p, static_cast<std::int64_t>(row.size())));
  }
  if (p >= 1.0f) return;
  Survivors survivors;
  if (GatherSurvivors(row, survivors)) return TopPSurvivors(profile, row, p, survivors);
  if (!HasFinite(row)) return;
  if (walk == TopPWalk::kVllmAscending && p > 0.0f) {
    std::vector<float> probs(row.size());
    SoftmaxRow(row, probs);
    return VllmTopP(row, probs, p);
  }
  // SoftmaxRow's first half: the exponentials and their canonical sum. The division by the sum
  // is left to the tokens the rule visits (Probabilities), which avoids a pass over the row.
  std::vector<float> e(row.size());
  const float m = CanonicalMax(row);
  math::ExpF32CrArray(row.data(), row.size(), m, e.data());
  const float s = CanonicalSum(e);
  const double hint = (static_cast<double>(p) + 1e-3) * static_cast<double>(s);
  KeepOnly(row, KeptByRule(profile, row, Probabilities{e.data(), s}, p, static_cast<std::int64_t>(row.size()), hint));
}

bool TopPDegenerateRow(Profile profile, std::span<float> row, float p) {
  if (!HoldsNanOrPosInf(row)) return false;
  DegenerateSoftmaxFilterRow(profile, row, p < 1.0f);  // p >= 1 is the disabled value
  return true;
}

TopPArgs ParseTopP(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "top_p");
  TopPArgs a;
  a.logits = FilterLogits(in);
  a.top_p = RowParams(in, "top_p", a.logits.dim(0));
  if (!a.top_p) in.Fail("missing input tensor 'top_p'");
  return a;
}

TensorMap RunTopP(const Case& c, Profile profile) {
  TopPArgs a = ParseTopP(c, profile);
  ForEachRow(a.logits, [&](std::int64_t b, std::span<float> row) {
    if (!TopPDegenerateRow(profile, row, a.top_p[b])) TopPRow(profile, row, a.top_p[b]);
  });
  return Outputs("logits", std::move(a.logits));
}

SAMPCHECK_REFERENCE_STAGE(top_p, RunTopP);

}  // namespace sampcheck::reference
