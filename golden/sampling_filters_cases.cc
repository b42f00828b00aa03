// SPDX-License-Identifier: Apache-2.0
// Golden case family for sampling_filters (docs/spec/filters.md#sampling_filters).
#include "golden/case_list.h"

namespace sampcheck::golden {

namespace {
constexpr float kLn2F = 0x1.62e43p-1f;  // f32(ln 2): exp(-kLn2F) rounds to exactly 0.5
}

void AddSamplingFiltersCases(CaseList& list) {
  const std::vector<float> dyadic = {0.0f, -kLn2F, -2 * kLn2F, -2 * kLn2F};
  auto repeat = [&](std::size_t n) {
    std::vector<float> rows;
    for (std::size_t i = 0; i < n; ++i) rows.insert(rows.end(), dyadic.begin(), dyadic.end());
    return rows;
  };
  // Divergence: top-p on the renormalised top-k set or on the original distribution
  // (top_k = 3, top_p = 0.75), and min-p before or after top-k (top_k = 2, min_p 0.6 / 0.45).
  list.Add("sampling_filters", "filter_order",
           {{"logits", Logits(3, 4, repeat(3))},
            {"top_k", I32({3}, {3, 2, 2})},
            {"top_p", F32({3}, {0.75f, 1.0f, 1.0f})},
            {"min_p", F32({3}, {0.0f, 0.6f, 0.45f})}});
  list.Add("sampling_filters", "filter_order_joint",
           {{"logits", Logits(3, 4, repeat(3))},
            {"top_k", I32({3}, {3, 2, 2})},
            {"top_p", F32({3}, {0.75f, 1.0f, 1.0f})},
            {"min_p", F32({3}, {0.0f, 0.6f, 0.45f})}},
           {{"order", "joint"}}, {Profile::kFlashinfer});
  for (std::int64_t vocab : {1, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("sampling_filters", name);
    list.Add("sampling_filters", name,
             {{"logits", RandomLogits(rng, 4, vocab, DType::kF32)},
              {"top_k", I32({4}, {0, 50, 5, 20})},
              {"top_p", F32({4}, {0.9f, 1.0f, 0.8f, 0.95f})},
              {"min_p", F32({4}, {0.0f, 0.05f, 0.0f, 0.1f})}});
  }
  // V = 8193: one past a multiple of every common tile width.
  auto rng = list.Rng("sampling_filters", "v8193_k50_p09");
  list.Add("sampling_filters", "v8193_k50_p09",
           {{"logits", RandomLogits(rng, 1, 8193, DType::kBF16)},
            {"top_k", I32({1}, {50})},
            {"top_p", F32({1}, {0.9f})}},
           {}, {Profile::kCanonical});
}

}  // namespace sampcheck::golden
