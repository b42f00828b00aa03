// SPDX-License-Identifier: Apache-2.0
// top_p (reference/top_p.h, docs/spec/filters.md#top_p).
#include "reference/top_p.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "reference/filter_order.h"
#include "reference/filter_rows.h"
#include "reference/softmax.h"
#include "reference/stage_io.h"

namespace sampcheck::reference {

namespace {

// Exclusive prefix rules: canonical / ascend_v2 (E < p), sglang (E <= p).
class ExclusivePrefixRule final : public PrefixRule {
 public:
  ExclusivePrefixRule(std::span<const float> probs, float p, bool inclusive_boundary)
      : probs_(probs), p_(p), inclusive_(inclusive_boundary) {}
  void Reset() override { e_ = 0.0f; }
  bool Keep(std::int32_t index) override {
    const bool keep = inclusive_ ? e_ <= p_ : e_ < p_;
    e_ = e_ + probs_[static_cast<std::size_t>(index)];
    return keep;
  }

 private:
  std::span<const float> probs_;
  float p_;
  bool inclusive_;
  float e_ = 0.0f;
};

// FlashInfer: tokens of equal probability are kept or dropped together, by the mass before
// the group.
class TieGroupRule final : public PrefixRule {
 public:
  TieGroupRule(std::span<const float> probs, float p) : probs_(probs), p_(p) {}
  void Reset() override { e_ = 0.0f, started_ = false; }
  bool Keep(std::int32_t index) override {
    const float prob = probs_[static_cast<std::size_t>(index)];
    if (!started_ || prob != group_prob_) {
      started_ = true;
      group_prob_ = prob;
      keep_group_ = e_ < p_;
    }
    e_ = e_ + prob;
    return keep_group_;
  }

 private:
  std::span<const float> probs_;
  float p_;
  float e_ = 0.0f, group_prob_ = 0.0f;
  bool started_ = false, keep_group_ = false;
};

void VllmTopP(std::span<float> row, std::span<const float> probs, float p) {
  std::vector<std::int32_t> order = DescendingOrder(row);
  std::reverse(order.begin(), order.end());  // ascending: smallest first, ties by higher index
  const float threshold = 1.0f - p;
  std::vector<std::int32_t> kept;
  float c = 0.0f;
  for (std::size_t j = 0; j < order.size(); ++j) {
    c = c + probs[static_cast<std::size_t>(order[j])];
    if (!(c <= threshold) || j + 1 == order.size()) kept.push_back(order[j]);
  }
  KeepOnly(row, kept);
}

bool HasFinite(std::span<const float> row) {
  return std::any_of(row.begin(), row.end(), [](float v) { return std::isfinite(v); });
}

}  // namespace

std::vector<std::int32_t> TopPKept(Profile profile, std::span<const float> row, std::span<const float> probs, float p,
                                   std::int64_t limit) {
  if (p <= 0.0f) p = 0.0f;  // every rule below then keeps only the first token (or tie group)
  const auto vocab = static_cast<std::int64_t>(row.size());
  if (limit < vocab) {
    // Only the first `limit` positions can be kept: walk them alone.
    std::vector<std::int32_t> order = TopIndices(row, limit);
    std::unique_ptr<PrefixRule> rule;
    if (profile == Profile::kFlashinfer) {
      rule = std::make_unique<TieGroupRule>(probs, p > 0.0f ? p : 0x1p-149f);
    } else {
      rule = std::make_unique<ExclusivePrefixRule>(probs, p, profile == Profile::kSglang && p > 0.0f);
    }
    rule->Reset();
    std::size_t kept = 0;
    while (kept < order.size() && rule->Keep(order[kept])) ++kept;
    order.resize(std::max<std::size_t>(kept, order.empty() ? 0 : 1));  // p <= 0 keeps the first
    return order;
  }
  // The prefix holding mass p plus a margin, rounded up to whole histogram buckets, plus one
  // token: usually enough for the rule to stop inside it (a hint only).
  const std::int64_t guess = CountReachingMass(row, probs, static_cast<double>(p) + 1e-3) + 1;
  std::vector<std::int32_t> kept;
  if (profile == Profile::kFlashinfer) {
    TieGroupRule rule(probs, p > 0.0f ? p : 0x1p-149f);  // p <= 0: the first group only
    kept = KeptPrefix(row, rule, guess);
  } else {
    ExclusivePrefixRule rule(probs, p, profile == Profile::kSglang && p > 0.0f);
    kept = KeptPrefix(row, rule, guess);
    if (kept.empty()) kept = TopIndices(row, 1);  // p <= 0 under E < p: the first token
  }
  return kept;
}

void TopPRow(Profile profile, std::span<float> row, float p) {
  if (p >= 1.0f || !HasFinite(row)) return;
  std::vector<float> probs(row.size());
  SoftmaxRow(row, probs);
  if (profile == Profile::kVllm && p > 0.0f) return VllmTopP(row, probs, p);
  KeepOnly(row, TopPKept(profile, row, probs, p, static_cast<std::int64_t>(row.size())));
}

TensorMap RunTopP(const Case& c, Profile profile) {
  StageInputs in(c, "top_p");
  Tensor logits = FilterLogits(in);
  const float* ps = RowParams(in, "top_p", logits.dim(0));
  if (!ps) in.Fail("missing input tensor 'top_p'");
  ForEachRow(logits, [&](std::int64_t b, std::span<float> row) { TopPRow(profile, row, ps[b]); });
  return Outputs("logits", std::move(logits));
}

}  // namespace sampcheck::reference
