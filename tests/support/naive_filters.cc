// SPDX-License-Identifier: Apache-2.0
// Naive full-sort filters (tests/support/naive_filters.h).
#include "tests/support/naive_filters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "reference/softmax.h"

namespace sampcheck::testing {

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

void Mask(std::span<float> row, const std::vector<bool>& keep) {
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (!keep[i]) row[i] = kNegInf;
  }
}
}  // namespace

std::vector<std::int32_t> NaiveOrder(std::span<const float> row) {
  std::vector<std::int32_t> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return row[static_cast<std::size_t>(a)] > row[static_cast<std::size_t>(b)];
  });
  return order;
}

void NaiveTopK(Profile profile, std::span<float> row, std::int64_t k, std::int64_t ks_max) {
  const auto v = static_cast<std::int64_t>(row.size());
  if (profile == Profile::kAscendV2) {
    const std::int64_t limit = std::min({v, (std::max<std::int64_t>(ks_max, 0) + 7) / 8 * 8, std::int64_t{1024}});
    if (k <= 0 || k > limit) return;
  } else if (k <= 0 || k >= v) {
    return;
  }
  const auto order = NaiveOrder(row);
  std::vector<bool> keep(row.size(), false);
  const float kth = row[static_cast<std::size_t>(order[static_cast<std::size_t>(k - 1)])];
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    const auto i = static_cast<std::size_t>(order[pos]);
    const bool ties_kept = profile == Profile::kVllm || profile == Profile::kFlashinfer;
    keep[i] = ties_kept ? row[i] >= kth : static_cast<std::int64_t>(pos) < k;
  }
  Mask(row, keep);
}

void NaiveTopP(Profile profile, std::span<float> row, float p) {
  if (std::none_of(row.begin(), row.end(), [](float x) { return std::isfinite(x); })) return;
  if (p >= 1.0f && profile != Profile::kSglang) return;  // SGLang's mask runs at every p
  std::vector<float> probs(row.size());
  reference::SoftmaxRow(row, probs);
  const auto order = NaiveOrder(row);
  std::vector<bool> keep(row.size(), false);
  if (p <= 0.0f) {
    keep[static_cast<std::size_t>(order[0])] = true;
    if (profile == Profile::kFlashinfer) {
      for (auto i : order) keep[static_cast<std::size_t>(i)] = probs[static_cast<std::size_t>(i)] == probs[static_cast<std::size_t>(order[0])];
    }
    Mask(row, keep);
    return;
  }
  if (profile == Profile::kVllm) {
    // A stable ascending sort, as torch's CPU sort leaves equal values: index order.
    std::vector<std::int32_t> ascending(row.size());
    std::iota(ascending.begin(), ascending.end(), 0);
    std::stable_sort(ascending.begin(), ascending.end(), [&](std::int32_t a, std::int32_t b) {
      return row[static_cast<std::size_t>(a)] < row[static_cast<std::size_t>(b)];
    });
    float c = 0.0f;
    const float threshold = 1.0f - p;
    for (std::size_t j = 0; j < ascending.size(); ++j) {
      const auto i = static_cast<std::size_t>(ascending[j]);
      c = c + probs[i];
      keep[i] = !(c <= threshold) || j + 1 == ascending.size();
    }
    Mask(row, keep);
    return;
  }
  if (profile == Profile::kSglang) {
    // probs_sum = cumsum(sorted probs); zeroed iff f32(probs_sum - prob) > p.
    float c = 0.0f;
    for (auto idx : order) {
      const auto i = static_cast<std::size_t>(idx);
      c = c + probs[i];
      keep[i] = !(c - probs[i] > p);
    }
    Mask(row, keep);
    return;
  }
  // Exclusive prefix at every position, and at the start of every tie group of equal probs.
  float e = 0.0f, group_e = 0.0f;
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    const auto i = static_cast<std::size_t>(order[pos]);
    if (pos == 0 || probs[i] != probs[static_cast<std::size_t>(order[pos - 1])]) group_e = e;
    switch (profile) {
      case Profile::kFlashinfer: keep[i] = group_e < p; break;
      default: keep[i] = e < p;
    }
    e = e + probs[i];
  }
  Mask(row, keep);
}

}  // namespace sampcheck::testing
