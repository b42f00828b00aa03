// SPDX-License-Identifier: Apache-2.0
// Golden case family for sampling_filters (docs/spec/filters.md#sampling_filters).
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"
#include "golden/case_random.h"

namespace sampcheck::golden {

void AddSamplingFiltersCases(CaseList& list) {
  // Divergences (docs/spec/profiles.md): row 0, top-p on the renormalised top-k set or on the
  // original distribution (top_k 3, top_p 0.75); row 1, the same with no tie at the k-th value
  // (top_k 2, top_p 0.6: flashinfer top_k_first keeps 1, joint 2); row 2, min-p before or after
  // top-p (top_p 0.6, min_p 0.5: vllm keeps 1, the others 2); rows 3 and 4, min-p with top-k.
  const TensorMap order_inputs = {{"logits", DyadicRows(5)},
                                  {"top_k", I32({5}, {3, 2, 0, 2, 2})},
                                  {"top_p", F32({5}, {0.75f, 0.6f, 0.6f, 1.0f, 1.0f})},
                                  {"min_p", F32({5}, {0.0f, 0.0f, 0.5f, 0.6f, 0.45f})}};
  list.Add("sampling_filters", "filter_order", order_inputs);
  list.Add("sampling_filters", "filter_order_joint", order_inputs, {{"order", "joint"}}, {Profile::kFlashinfer});
  // Degenerate rows among healthy ones (docs/spec/filters.md sampling_filters "Degenerate rows"),
  // V = 16, (top_k, top_p, min_p) per row: 0 random (5, 0.9, 0.05); 1 a NaN at column 3
  // (4, 0.9, 0.1): flashinfer's top-k drops the NaN and top-p, min-p filter what is left; 2 a
  // +inf at column 8 (0, 0.5, 0); 3 all NaN (2, 1, 0); 4 random (0, 0.8, 0); 5 a NaN at 12 and a
  // +inf at 1 (3, 1, 0.2); 6 all -inf (3, 0.5, 0.1). Also under flashinfer's joint order.
  {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    constexpr std::int64_t kRows = 7, kV = 16;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto rng = list.Rng("sampling_filters", "degenerate_rows_v16");
    Tensor logits = RandomLogits(rng, kRows, kV, DType::kF32);
    SetLogit(logits, 1 * kV + 3, nan);
    SetLogit(logits, 2 * kV + 8, kInf);
    for (std::int64_t i = 0; i < kV; ++i) {
      SetLogit(logits, 3 * kV + i, nan);
      SetLogit(logits, 6 * kV + i, -kInf);
    }
    SetLogit(logits, 5 * kV + 12, nan);
    SetLogit(logits, 5 * kV + 1, kInf);
    const TensorMap inputs = {{"logits", logits},
                              {"top_k", I32({kRows}, {5, 4, 0, 2, 0, 3, 3})},
                              {"top_p", F32({kRows}, {0.9f, 0.9f, 0.5f, 1.0f, 0.8f, 1.0f, 0.5f})},
                              {"min_p", F32({kRows}, {0.05f, 0.1f, 0.0f, 0.0f, 0.0f, 0.2f, 0.1f})}};
    list.Add("sampling_filters", "degenerate_rows_v16", inputs);
    list.Add("sampling_filters", "degenerate_rows_v16_joint", inputs, {{"order", "joint"}}, {Profile::kFlashinfer});
  }
  // min_p = 1 on tied maxima inside the chain: ascend_v2 keeps one token, the others both.
  list.Add("sampling_filters", "min_p_tied_maximum",
           {{"logits", Logits(1, 4, {1, 1, 0, 0})}, {"min_p", F32({1}, {1.0f})}});
  for (std::int64_t vocab : {1, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("sampling_filters", name);
    list.Add("sampling_filters", name,
             {{"logits", RandomLogits(rng, 4, vocab, DType::kF32)},
              {"top_k", I32({4}, {0, 50, 5, 20})},
              {"top_p", F32({4}, {0.9f, 1.0f, 0.8f, 0.95f})},
              {"min_p", F32({4}, {0.0f, 0.05f, 0.0f, 0.1f})}});
  }
  // Non-finite rows with a defined result (docs/spec/input_classes.md), f16: every filter on.
  list.Add("sampling_filters", "masked_rows_v33_f16",
           {{"logits", MaskedRows(33, DType::kF16)},
            {"top_k", I32({3}, {5, 1, 5})},
            {"top_p", F32({3}, {0.5f, 0.9f, 0.5f})},
            {"min_p", F32({3}, {0.1f, 0.5f, 0.1f})}});
  // bf16's two tie groups of 150 near-equal tokens (golden/case_list.h) at the top-k, top-p
  // and min-p boundaries.
  list.Add("sampling_filters", "near_equal_v300_bf16",
           {{"logits", NearEqualLogits(2, 300, DType::kBF16)},
            {"top_k", I32({2}, {100, 0})},
            {"top_p", F32({2}, {0.3f, 0.8f})},
            {"min_p", F32({2}, {0.0f, 0.9f})}});
  {
    auto rng = list.Rng("sampling_filters", "random_v33_f16");
    list.Add("sampling_filters", "random_v33_f16",
             {{"logits", RandomLogits(rng, 4, 33, DType::kF16)},
              {"top_k", I32({4}, {0, 10, 5, 20})},
              {"top_p", F32({4}, {0.9f, 1.0f, 0.8f, 0.95f})},
              {"min_p", F32({4}, {0.0f, 0.05f, 0.0f, 0.1f})}});
  }
  // V = 1023: one short of a 1024-thread block (docs/spec/input_classes.md), one f16 row.
  {
    auto rng = list.Rng("sampling_filters", "v1023_f16");
    list.Add("sampling_filters", "v1023_f16",
             {{"logits", RandomLogits(rng, 1, 1023, DType::kF16)},
              {"top_k", I32({1}, {600})},
              {"top_p", F32({1}, {0.95f})},
              {"min_p", F32({1}, {0.02f})}});
  }
  // V = 8193: one past a multiple of every common tile width.
  auto rng = list.Rng("sampling_filters", "v8193_k50_p09");
  list.Add("sampling_filters", "v8193_k50_p09",
           {{"logits", RandomLogits(rng, 1, 8193, DType::kBF16)},
            {"top_k", I32({1}, {50})},
            {"top_p", F32({1}, {0.9f})}},
           {}, {Profile::kCanonical});
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeSamplingFiltersInputs(const std::string& /*stage*/, SplitMix64& /*rng*/, std::int64_t /*vocab*/) {
  return {{"top_k", I32({1}, {50})}, {"top_p", F32({1}, {0.9f})}, {"min_p", F32({1}, {0.05f})}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(SamplingFilters, {.stages = {"sampling_filters"}, .add = AddSamplingFiltersCases, .large_inputs = LargeSamplingFiltersInputs});

}  // namespace sampcheck::golden
