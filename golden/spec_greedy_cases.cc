// SPDX-License-Identifier: Apache-2.0
// Golden case family for spec_greedy (docs/spec/speculative.md#spec_greedy): every exit of the
// verification loop (bonus, first and later mismatch, zero drafts, K = 0), argmax ties, and
// vocabularies smaller than and not a multiple of common tile widths (5, 100, 1023, 8193).
#include <algorithm>
#include <limits>
#include <utility>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

namespace {

// [rows, positions, vocab] scores of `dtype` with k / 256 values.
Tensor RandomPositionLogits(SplitMix64& rng, std::int64_t rows, std::int64_t positions, std::int64_t vocab, DType dtype) {
  Tensor flat = RandomLogits(rng, rows * positions, vocab, dtype);
  Tensor t(dtype, {rows, positions, vocab});
  const auto src = std::as_const(flat).bytes();
  std::copy(src.begin(), src.end(), t.bytes().begin());
  return t;
}

}  // namespace

void AddSpecGreedyCases(CaseList& list) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  // V = 4, K = 3. Row 0: all three accepted, bonus = argmax of position 3 (a tie: 1 and 3 ->
  // 1). Row 1: first draft rejected (argmax 2). Row 2: second draft rejected. Row 3: no drafts,
  // the bonus from position 0. Row 4: drafts equal to a tied maximum's higher index: rejected.
  Tensor logits(DType::kF32, {5, 4, 4});
  const std::vector<float> values = {
      9, 0, 0, 0,  0, 9, 0, 0,  0, 0, 9, 0,  0, 5, -kInf, 5,      // row 0: drafts 0 1 2
      0, 0, 9, 0,  1, 1, 1, 1,  1, 1, 1, 1,  1, 1, 1, 1,          // row 1: drafts 3 ...
      0, 0, 0, 9,  -kInf, 2, 2, 0,  1, 1, 1, 1,  1, 1, 1, 1,      // row 2: drafts 3 2 ...
      -1, -2, 7, 7,  0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0,        // row 3: no drafts
      3, 3, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0};         // row 4: draft 1 vs tie {0, 1}
  std::copy(values.begin(), values.end(), logits.data<float>().begin());
  list.Add("spec_greedy", "edges",
           {{"draft_ids", I32({5, 3}, {0, 1, 2,  3, 0, 0,  3, 2, 1,  -1, -1, -1,  1, -1, -1})}, {"target_logits", logits}});
  // K = 0: every row emits its bonus token only.
  list.Add("spec_greedy", "no_drafts",
           {{"draft_ids", Tensor(DType::kI32, {2, 0})}, {"target_logits", [] {
              Tensor t(DType::kF32, {2, 1, 3});
              const std::vector<float> v = {0, 1, 0, 2, 2, 1};
              std::copy(v.begin(), v.end(), t.data<float>().begin());
              return t;
            }()}});
  // Random vocabularies; each draft is the position's planted maximum with probability 3/4, so
  // all exits occur; rows with fewer drafts than K.
  for (std::int64_t vocab : {5, 100, 1023, 8193}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("spec_greedy", name);
    const std::int64_t rows = vocab == 8193 ? 1 : vocab == 1023 ? 2 : 3, k = vocab == 8193 ? 1 : vocab == 1023 ? 2 : 3;
    const DType dtype = vocab == 100 ? DType::kF32 : DType::kBF16;
    Tensor target = RandomPositionLogits(rng, rows, k + 1, vocab, dtype);
    std::vector<std::int32_t> drafts;
    for (std::int64_t b = 0; b < rows; ++b) {
      const std::int64_t n = b == 2 ? 1 : k;
      for (std::int64_t i = 0; i < k; ++i) {
        const auto x = static_cast<std::int32_t>(rng.Below(static_cast<std::uint64_t>(vocab)));
        drafts.push_back(i < n ? x : -1);
        const std::int64_t planted = rng.Below(4) != 0 ? x : static_cast<std::int64_t>(rng.Below(static_cast<std::uint64_t>(vocab)));
        SetLogit(target, (b * (k + 1) + i) * vocab + planted, 17.0f);
      }
    }
    list.Add("spec_greedy", name, {{"draft_ids", I32({rows, k}, drafts)}, {"target_logits", target}});
  }
}

// V = 32000 and 151936 (the `full` set): the target's argmax is the first draft, the last
// column of the vocabulary.
void AddSpecGreedyLargeVocabularyCases(CaseList& list) {
  for (std::int64_t vocab : {32000, 151936}) {
    const std::string name = "large_v" + std::to_string(vocab);
    auto rng = list.Rng("spec_greedy", name);
    Tensor flat = RandomLogits(rng, 3, vocab, DType::kBF16);
    Tensor target(DType::kBF16, {1, 3, vocab});
    const auto src = std::as_const(flat).bytes();
    std::copy(src.begin(), src.end(), target.bytes().begin());
    const auto x = static_cast<std::int32_t>(vocab - 1);
    SetLogit(target, vocab - 1, 100.0f);  // the first draft (the last column) is accepted
    list.Add("spec_greedy", name, {{"draft_ids", I32({1, 2}, {x, 0})}, {"target_logits", target}});
  }
}

SAMPCHECK_CASE_FAMILY(SpecGreedy, {.stages = {"spec_greedy"}, .add = AddSpecGreedyCases, .add_large = AddSpecGreedyLargeVocabularyCases});

}  // namespace sampcheck::golden
