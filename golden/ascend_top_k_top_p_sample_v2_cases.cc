// SPDX-License-Identifier: Apache-2.0
// Golden case family for ascend_top_k_top_p_sample_v2
// (reference/ascend_top_k_top_p_sample_v2.h, docs/spec/ascend_top_k_top_p_sample_v2.md).
// Profile ascend_v2 only (the catalogue's only profile for the stage). About 70 KB in all:
// the V = 1000 cases use one or two rows.
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

namespace {

constexpr char kStage[] = "ascend_top_k_top_p_sample_v2";
constexpr float kLn2F = 0x1.62e43p-1f;  // f32(ln 2): exp(-kLn2F) rounds to exactly 0.5
constexpr float kInf = std::numeric_limits<float>::infinity();

// A tensor of a floating dtype from f32 values, each rounded (RNE) to the dtype.
Tensor Floating(DType dtype, Shape shape, const std::vector<float>& values) {
  Tensor t(dtype, std::move(shape));
  for (std::size_t i = 0; i < values.size(); ++i) SetLogit(t, static_cast<std::int64_t>(i), values[i]);
  return t;
}

// q [rows, vocab] f32 with entries (1 + n) 2^-18, n uniform in [0, 2^20): in (0, 4], exact.
Tensor RandomQ(SplitMix64& rng, std::int64_t rows, std::int64_t vocab) {
  Tensor q(DType::kF32, {rows, vocab});
  for (float& x : q.data<float>()) x = static_cast<float>(1 + rng.Below(1u << 20)) * 0x1p-18f;
  return q;
}

std::vector<float> Repeat(const std::vector<float>& row, std::size_t n) {
  std::vector<float> out;
  for (std::size_t i = 0; i < n; ++i) out.insert(out.end(), row.begin(), row.end());
  return out;
}

std::string DTypeTag(DType d) { return std::string(DTypeName(d)); }

void AddEdgeCases(CaseList& list) {
  // Dyadic row: probs exactly {0.5, 0.25, 0.125, 0.125} (tests/softmax_test.cc).
  const std::vector<float> dyadic = {0.0f, -kLn2F, -2 * kLn2F, -2 * kLn2F};
  // Skip conventions, one row each: k <= 0, k > limit, p <= 0, p >= 1, min_p <= 0, min_p >= 1,
  // and a plain top-k + top-p + min-p row. Shown through the survivor list.
  const std::vector<std::int32_t> ks = {0, -1, 5, 3, 0, 2, 2, 3, 4};
  const std::vector<float> ps = {1.0f, 1.0f, 1.0f, 0.0f, -1.0f, 2.0f, 1.0f, 1.0f, 0.7f};
  const std::vector<float> ms = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, -0.5f, 1.0f, 0.3f};
  const auto rows = static_cast<std::int64_t>(ks.size());
  TensorMap skip = {{"logits", Logits(rows, 4, Repeat(dyadic, ks.size()))},
                    {"top_k", I32({rows}, ks)},
                    {"top_p", F32({rows}, ps)},
                    {"min_p", F32({rows}, ms)}};
  list.Add(kStage, "skip_conventions", skip, {{"is_need_sample_result", true}});
  list.Add(kStage, "skip_conventions_logits", skip, {{"is_need_logits", true}});
  // QSample: q indexed by list position. Row 0: top_k 3, top_p 0.7 keeps {0, 1};
  // q = {1, 0.25, 4, 4}: r = {(4/7) / 1, (2/7) / 0.25} -> token 1. Row 1: the dyadic row
  // permuted (probs {0.125, 0.25, 0.5, 0.125}), top_k 4: list {2, 1, 0, 3}; q = {0.25, 4, 4, 4}
  // by position gives r = {2, 0.0625, 0.03125, 0.03125} -> token 2 (by vocab id it would be
  // token 0: 0.125 / 0.25 = 0.5). Row 2: no filters: the list is the vocab order,
  // q = {1, 1, 0.125, 1}: r = {0.5, 0.25, 1, 0.125} -> token 2.
  std::vector<float> qsample_logits = dyadic;
  for (float x : {-2 * kLn2F, -kLn2F, 0.0f, -2 * kLn2F}) qsample_logits.push_back(x);
  qsample_logits.insert(qsample_logits.end(), dyadic.begin(), dyadic.end());
  list.Add(kStage, "qsample_dyadic",
           {{"logits", Logits(3, 4, qsample_logits)},
            {"top_k", I32({3}, {3, 4, 0})},
            {"top_p", F32({3}, {0.7f, 1.0f, 1.0f})},
            {"q", F32({3, 4}, {1.0f, 0.25f, 4.0f, 4.0f, 0.25f, 4.0f, 4.0f, 4.0f, 1.0f, 1.0f, 0.125f, 1.0f})}});
  // eps: top_k 2 gives probs {2/3, 1/3} (rounded); q = {0.5, 0, ...}. eps 1e-8 (default):
  // (1/3) / f32(1e-8) beats (2/3) / 0.5 -> token 1; eps = 1: (2/3) / 1.5 = 0.444 beats
  // (1/3) / 1 -> token 0.
  TensorMap eps_in = {{"logits", Logits(1, 4, dyadic)},
                      {"top_k", I32({1}, {2})},
                      {"top_p", F32({1}, {1.0f})},
                      {"q", F32({1, 4}, {0.5f, 0.0f, 1.0f, 1.0f})}};
  list.Add(kStage, "eps_default", eps_in);
  list.Add(kStage, "eps_one", eps_in, {{"eps", 1.0}});
  // Probabilities in (input_is_logits = false): no softmax, defLogit 0, top-p on the raw values.
  TensorMap probs_in = {{"logits", Logits(2, 4, {0.5f, 0.25f, 0.125f, 0.125f, 0.1f, 0.4f, 0.3f, 0.2f})},
                        {"top_k", I32({2}, {3, 0})},
                        {"top_p", F32({2}, {0.7f, 0.6f})},
                        {"min_p", F32({2}, {0.0f, 0.6f})}};
  list.Add(kStage, "probs_input_logits", probs_in, {{"input_is_logits", false}, {"is_need_logits", true}});
  list.Add(kStage, "probs_input_sample_result", probs_in, {{"input_is_logits", false}, {"is_need_sample_result", true}});
  // ks_max: 1 rounds up to 8, so k = 8 runs top-k (sorted list of 8) and k = 9 is skipped
  // (unsorted, all 20 in vocab order); ks_max 9 rounds up to 16: both run.
  auto rng = list.Rng(kStage, "ks_max");
  TensorMap ks_in = {{"logits", RandomLogits(rng, 2, 20, DType::kF32)},
                     {"top_k", I32({2}, {8, 9})},
                     {"top_p", F32({2}, {1.0f, 1.0f})}};
  list.Add(kStage, "ks_max_1", ks_in, {{"ks_max", 1}, {"is_need_sample_result", true}});
  list.Add(kStage, "ks_max_9", ks_in, {{"ks_max", 9}, {"is_need_sample_result", true}});
  // top_k_guess changes nothing: same inputs, guesses 1, 0 and 4096 (capped at 1024).
  auto grng = list.Rng(kStage, "top_k_guess");
  TensorMap guess_in = {{"logits", RandomLogits(grng, 2, 33, DType::kF32)},
                        {"top_k", I32({2}, {0, 0})},
                        {"top_p", F32({2}, {0.9f, 0.5f})},
                        {"q", RandomQ(grng, 2, 33)}};
  for (std::int64_t guess : {1, 0, 4096}) {
    list.Add(kStage, "top_k_guess_" + std::to_string(guess), guess_in, {{"top_k_guess", guess}});
  }
  // -inf logits inside the top-k cut stay in the list with probs +0.0.
  list.Add(kStage, "neg_inf_in_top_k",
           {{"logits", Logits(1, 4, {0.0f, -kInf, -1.0f, -kInf})},
            {"top_k", I32({1}, {3})},
            {"top_p", F32({1}, {1.0f})}},
           {{"is_need_sample_result", true}});
  // Input classes (docs/spec/input_classes.md): one finite f16 logit at column 0 and at V - 1,
  // sampled whatever q says (an all -inf row is an input error: the op's softmax is NaN); and
  // bf16's two tie groups of 150 near-equal tokens (golden/case_list.h) at a top-p and a
  // min-p boundary (the op takes top_p and min_p in the logits' dtype).
  auto mrng = list.Rng(kStage, "masked_rows_v33_f16_q");
  list.Add(kStage, "masked_rows_v33_f16_q",
           {{"logits", MaskedRows(33, DType::kF16, false)},
            {"top_k", I32({2}, {5, 0})},
            {"top_p", Floating(DType::kF16, {2}, {0.5f, 0.9f})},
            {"min_p", Floating(DType::kF16, {2}, {0.1f, 0.0f})},
            {"q", RandomQ(mrng, 2, 33)}});
  auto nrng = list.Rng(kStage, "near_equal_v300_bf16_q");
  list.Add(kStage, "near_equal_v300_bf16_q",
           {{"logits", NearEqualLogits(2, 300, DType::kBF16)},
            {"top_k", I32({2}, {0, 0})},
            {"top_p", Floating(DType::kBF16, {2}, {0.3f, 1.0f})},
            {"min_p", Floating(DType::kBF16, {2}, {0.0f, 0.9f})},
            {"q", RandomQ(nrng, 2, 300)}});
}

void AddRandomCases(CaseList& list) {
  const std::vector<std::int32_t> ks = {0, 5, 3, 40};
  const std::vector<float> ps = {0.9f, 1.0f, 0.8f, 0.95f};
  const std::vector<float> ms = {0.0f, 0.05f, 0.0f, 0.1f};
  for (std::int64_t vocab : {1, 33}) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
      for (bool with_q : {false, true}) {
        const std::string name = "random_v" + std::to_string(vocab) + "_" + DTypeTag(dtype) + (with_q ? "_q" : "");
        auto rng = list.Rng(kStage, name);
        TensorMap in = {{"logits", RandomLogits(rng, 4, vocab, dtype)},
                        {"top_k", I32({4}, ks)},
                        {"top_p", Floating(dtype, {4}, ps)},
                        {"min_p", Floating(dtype, {4}, ms)}};
        if (with_q) in.emplace("q", RandomQ(rng, 4, vocab));
        list.Add(kStage, name, in);
      }
    }
  }
  // V = 1000: one or two rows per case to keep the set small.
  auto rng = list.Rng(kStage, "random_v1000_bf16_q");
  list.Add(kStage, "random_v1000_bf16_q",
           {{"logits", RandomLogits(rng, 2, 1000, DType::kBF16)},
            {"top_k", I32({2}, {50, 0})},
            {"top_p", Floating(DType::kBF16, {2}, {0.9f, 0.9f})},
            {"min_p", Floating(DType::kBF16, {2}, {0.05f, 0.0f})},
            {"q", RandomQ(rng, 2, 1000)}});
  rng = list.Rng(kStage, "random_v1000_f16");
  list.Add(kStage, "random_v1000_f16",
           {{"logits", RandomLogits(rng, 2, 1000, DType::kF16)},
            {"top_k", I32({2}, {20, 0})},
            {"top_p", Floating(DType::kF16, {2}, {0.95f, 1.0f})},
            {"min_p", Floating(DType::kF16, {2}, {0.0f, 0.2f})}});
  rng = list.Rng(kStage, "random_v1000_f32_q_logits");
  list.Add(kStage, "random_v1000_f32_q_logits",
           {{"logits", RandomLogits(rng, 2, 1000, DType::kF32)},
            {"top_k", I32({2}, {100, 1024})},
            {"top_p", F32({2}, {0.8f, 0.99f})},
            {"q", RandomQ(rng, 2, 1000)}},
           {{"is_need_logits", true}});
  rng = list.Rng(kStage, "random_v1000_f32_sample_result");
  list.Add(kStage, "random_v1000_f32_sample_result",
           {{"logits", RandomLogits(rng, 1, 1000, DType::kF32)},
            {"top_k", I32({1}, {0})},
            {"top_p", F32({1}, {0.9f})},
            {"min_p", F32({1}, {0.1f})}},
           {{"is_need_sample_result", true}});
}

}  // namespace

void AddAscendTopKTopPSampleV2Cases(CaseList& list) {
  AddEdgeCases(list);
  AddRandomCases(list);
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeAscendTopKTopPSampleV2Inputs(const std::string& /*stage*/, SplitMix64& rng, std::int64_t vocab) {
  // The family's logits are bf16, and the op requires top_p and min_p in the logits' dtype.
  Tensor top_p(DType::kBF16, {1}), min_p(DType::kBF16, {1}), q(DType::kF32, {1, vocab});
  SetLogit(top_p, 0, 0.9f);
  SetLogit(min_p, 0, 0.05f);
  for (float& x : q.data<float>()) x = static_cast<float>(1 + rng.Below(1u << 20)) * 0x1p-18f;  // (0, 4]
  return {{"top_k", I32({1}, {50})}, {"top_p", top_p}, {"min_p", min_p}, {"q", q}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(AscendTopKTopPSampleV2, {.stages = {"ascend_top_k_top_p_sample_v2"}, .add = AddAscendTopKTopPSampleV2Cases, .large_inputs = LargeAscendTopKTopPSampleV2Inputs});

}  // namespace sampcheck::golden
