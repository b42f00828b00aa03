// SPDX-License-Identifier: Apache-2.0
// Golden case family for logprobs (docs/spec/logprobs.md): every mode of every profile on the
// same random rows, and hand-picked edges (ties at the n-th value, -inf entries, NaN rows,
// n = 0, n = V, requested ids with padding, greedy rows in processed modes).
#include <limits>
#include <utility>
#include <string>
#include <vector>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

namespace {

using P = Profile;

constexpr const char* kVllmModes[] = {"raw_logprobs", "raw_logits", "processed_logprobs", "processed_logits"};
constexpr const char* kSglangModes[] = {"temperature", "original"};

// One case per mode: canonical and vllm read the four vLLM modes, sglang its two.
void AddAllModes(CaseList& list, const std::string& name, const TensorMap& inputs, std::int64_t n) {
  for (const char* mode : kVllmModes) {
    list.Add("logprobs", name + "_" + mode, inputs, {{"num_logprobs", n}, {"mode", mode}}, {P::kCanonical, P::kVllm});
  }
  for (const char* mode : kSglangModes) {
    list.Add("logprobs", name + "_" + mode, inputs, {{"num_logprobs", n}, {"mode", mode}}, {P::kSglang});
  }
}

}  // namespace

void AddLogprobsCases(CaseList& list) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  constexpr float kLn2F = 0x1.62e43p-1f;  // f32(ln 2), as DyadicRows
  // Random rows: a greedy row (t = 0, no filters), a filtered row at t = 0.5 (top-k 5,
  // top-p 0.9), and a min-p row at t = 1.25; raw_logits differ from logits (the penalties
  // and bias the raw modes must not see). Tokens: the argmax of row 0, random elsewhere.
  // Vocabularies kept small: every (vocabulary, mode) is its own case, and golden/v1 has a
  // 8 MiB budget shared by every stage.
  const std::pair<std::int64_t, DType> shapes[] = {
      {1, DType::kF32}, {33, DType::kF32}, {33, DType::kBF16}, {200, DType::kF32}};
  for (const auto& [vocab, dtype] : shapes) {
    {
      const std::string name = "random_v" + std::to_string(vocab) + "_" + std::string(DTypeName(dtype));
      auto rng = list.Rng("logprobs", name);
      Tensor logits = RandomLogits(rng, 3, vocab, dtype);
      Tensor raw = RandomLogits(rng, 3, vocab, dtype);
      std::int64_t best = 0;
      for (std::int64_t j = 1; j < vocab; ++j) {
        if (GetLogit(logits, j) > GetLogit(logits, best)) best = j;
      }
      const auto v = static_cast<std::uint64_t>(vocab);
      const TensorMap inputs = {
          {"logits", logits},
          {"raw_logits", raw},
          {"temperature", F32({3}, {0.0f, 0.5f, 1.25f})},
          {"top_k", I32({3}, {0, 5, 0})},
          {"top_p", F32({3}, {1.0f, 0.9f, 1.0f})},
          {"min_p", F32({3}, {0.0f, 0.0f, 0.05f})},
          {"token", I64({3}, {best, static_cast<std::int64_t>(rng.Below(v)), static_cast<std::int64_t>(rng.Below(v))})},
          {"token_ids", RandomIds(rng, 3, 4, vocab, {4, 2, 0})}};
      AddAllModes(list, name, inputs, vocab < 5 ? vocab : 5);
    }
  }
  // Edges. Row 0: dyadic probabilities {1/2, 1/4, 1/8, 1/8}, token 3: the 3rd value ties
  // (tokens 2 and 3, index 2 first); canonical rank 3, vllm rank 4. Row 1: -inf entries,
  // token 1 at -inf. Row 2: a NaN (NaN first in the top-n; NaN token value: canonical rank 1,
  // vllm 0). Row 3: all -inf (log_softmax NaN everywhere). Row 4: -0.0 and +0.0 tie.
  const TensorMap edges = {
      {"logits", Logits(5, 4, {0.0f, -kLn2F, -2 * kLn2F, -2 * kLn2F,  //
                               1.0f, -kInf, -kInf, 0.0f,              //
                               1.0f, nan, 2.0f, 3.0f,                 //
                               -kInf, -kInf, -kInf, -kInf,            //
                               -0.0f, 0.0f, -1.0f, -0.0f})},
      {"token", I64({5}, {3, 1, 1, 2, 1})},
      {"token_ids", I32({5, 3}, {3, 2, -1, 1, -1, -1, 1, 0, 3, 0, 1, 2, 3, 3, -1})}};
  for (std::int64_t n : {0, 3, 4}) {
    for (const char* mode : {"raw_logprobs", "raw_logits"}) {
      list.Add("logprobs", "edges_n" + std::to_string(n) + "_" + mode, edges, {{"num_logprobs", n}, {"mode", mode}},
               {P::kCanonical, P::kVllm});
    }
    list.Add("logprobs", "edges_n" + std::to_string(n) + "_original", edges, {{"num_logprobs", n}, {"mode", "original"}},
             {P::kSglang});
  }
  // Processed modes at the boundaries: vllm raises t = 0.005 to 0.01; t = 5e-6 is greedy under
  // canonical and vllm (< 1e-5) but not under sglang (>= 1e-6); top-p 0.75 on the dyadic row
  // (the mass before token 2 equals p: canonical and vllm drop it); a row whose filtered
  // probabilities underflow in sglang's log(softmax) (log 0 = -inf).
  const TensorMap processed = {
      {"logits", Logits(4, 4, {0.0f, -kLn2F, -2 * kLn2F, -2 * kLn2F,  //
                               1.0f, 0.5f, 0.25f, 0.0f,               //
                               3.0f, 2.0f, 1.0f, 0.0f,                //
                               0.0f, -100.0f, -200.0f, -kInf})},
      {"temperature", F32({4}, {1.0f, 0.005f, 5e-6f, 0.5f})},
      {"top_p", F32({4}, {0.75f, 1.0f, 0.5f, 1.0f})},
      {"top_k", I32({4}, {0, 2, 1, 0})},
      {"token", I64({4}, {0, 0, 0, 0})}};
  AddAllModes(list, "processed_edges", processed, 4);
  // Degenerate rows in the processed modes (docs/spec/filters.md "Degenerate rows"), V = 8:
  // row 0 healthy (top_k 3, top_p 0.9); row 1 a NaN at column 2 (t 0.5, top_k 3); row 2 a
  // +inf at column 5 (top_p 0.5); row 3 all NaN (top_k 2); row 4 healthy (min_p 0.2).
  {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const TensorMap degenerate = {
        {"logits", Logits(5, 8, {0.5f, 1.5f, -1.0f, 2.0f, 0.0f, 1.0f, -2.0f, 0.25f,  //
                                 1.0f, 0.5f, nan, 2.0f, -1.0f, 0.75f, 3.0f, 0.0f,   //
                                 0.0f, 1.0f, 2.0f, -1.0f, 0.5f, kInf, 1.5f, -3.0f,  //
                                 nan, nan, nan, nan, nan, nan, nan, nan,           //
                                 2.0f, 1.75f, 0.0f, -0.5f, 1.0f, -4.0f, 0.5f, 1.5f})},
        {"temperature", F32({5}, {1.0f, 0.5f, 1.0f, 1.0f, 1.0f})},
        {"top_k", I32({5}, {3, 3, 0, 2, 0})},
        {"top_p", F32({5}, {0.9f, 1.0f, 0.5f, 1.0f, 1.0f})},
        {"min_p", F32({5}, {0.0f, 0.0f, 0.0f, 0.0f, 0.2f})},
        {"token", I64({5}, {3, 2, 5, 0, 1})}};
    AddAllModes(list, "degenerate_rows_v8", degenerate, 3);
  }
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeLogprobsInputs(const std::string& /*stage*/, SplitMix64& /*rng*/, std::int64_t vocab) {
  const auto v = static_cast<std::int32_t>(vocab);
  return {{"temperature", F32({1}, {0.7f})}, {"top_k", I32({1}, {50})}, {"top_p", F32({1}, {0.9f})},
          {"token", I64({1}, {vocab / 2})}, {"token_ids", I32({1, 3}, {0, v / 2, v - 1})}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(Logprobs, {.stages = {"logprobs"}, .add = AddLogprobsCases, .large_inputs = LargeLogprobsInputs});

}  // namespace sampcheck::golden
