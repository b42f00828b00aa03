// SPDX-License-Identifier: Apache-2.0
// Golden case families for qsample and the seeded Gumbel draws multinomial_with_seed and
// multinomial_with_seed_token_ids (docs/spec/draws.md). Noise and keys come from SplitMix64
// bits; probabilities are k / 16 so every input is exact in every dtype.
#include <algorithm>
#include <numeric>

#include "core/stage_catalogue.h"
#include "golden/case_family.h"
#include "golden/case_list.h"
#include "reference/rng/noise.h"

// GCC 12 at -O3 reports a spurious -Wstringop-overflow inside std::vector's copy of the
// two-element shapes below, once the large-vocabulary function shares this file.
#pragma GCC diagnostic ignored "-Wstringop-overflow"

namespace sampcheck::golden {

namespace {

// k / 16 weights, a quarter of them zero, position 0 forced positive; `sorted` orders each row
// descending as SGLang's sorted, filtered probs are.
Tensor SixteenthProbs(SplitMix64& rng, std::int64_t rows, std::int64_t vocab, bool sorted) {
  Tensor t(DType::kF32, {rows, vocab});
  auto p = t.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    auto row = p.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
    for (float& x : row) x = rng.Below(4) == 0 ? 0.0f : static_cast<float>(rng.Between(1, 16)) / 16.0f;
    row[0] = 0.5f;
    if (sorted) std::sort(row.begin(), row.end(), [](float a, float c) { return a > c; });
  }
  return t;
}

// Each row a random permutation of [0, 4 vocab): ids need not be below V.
Tensor RandomTokenIds(SplitMix64& rng, std::int64_t rows, std::int64_t vocab) {
  Tensor t(DType::kI32, {rows, vocab});
  auto ids = t.data<std::int32_t>();
  for (std::int64_t b = 0; b < rows; ++b) {
    std::vector<std::int32_t> pool(static_cast<std::size_t>(4 * vocab));
    std::iota(pool.begin(), pool.end(), 0);
    for (std::int64_t i = 0; i < vocab; ++i) {  // partial Fisher-Yates
      const auto j = static_cast<std::size_t>(i) + static_cast<std::size_t>(rng.Below(pool.size() - static_cast<std::size_t>(i)));
      std::swap(pool[static_cast<std::size_t>(i)], pool[j]);
      ids[static_cast<std::size_t>(b * vocab + i)] = pool[static_cast<std::size_t>(i)];
    }
  }
  return t;
}

}  // namespace

void AddSeededDrawCases(CaseList& list) {
  // qsample: |q| (negative noise), eps deciding a zero q, NaN ratios (eps 0, q 0, prob 0) that
  // win as torch.argmax's NaN does (rows 1, 2), and the underflow tie that draws position 0 of
  // probability 0.
  list.Add("qsample", "edges",
           {{"probs", Logits(4, 3, {4.0f / 7, 2.0f / 7, 1.0f / 7,  //
                                    0.25f, 0.75f, 0.0f,            //
                                    0.0f, 0.5f, 0.5f,              //
                                    0.0f, 1e-38f, 0.0f})},
            {"q", F32({4, 3}, {1.0f, -0.25f, 4.0f,  //
                               0.0f, 0.0f, 0.0f,    //
                               0.0f, 2.0f, 4.0f,    //
                               1.0f, 1e30f, 1.0f})}},
           {{"eps", 0}});
  list.Add("qsample", "default_eps", {{"probs", Logits(1, 3, {0.25f, 0.75f, 0.0f})}, {"q", F32({1, 3}, {0.0f, 0.0f, 0.0f})}});
  for (std::int64_t vocab : {1, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("qsample", name);
    Tensor q(DType::kF32, {4, vocab});
    for (float& x : q.data<float>()) {
      const float u = (static_cast<float>(rng.Next() >> 41) + 0.5f) * 0x1p-23f;
      x = (rng.Below(2) == 0 ? 1.0f : -1.0f) * sampcheck::rng::ExponentialNegLogF32(u);
    }
    list.Add("qsample", name, {{"probs", SixteenthProbs(rng, 4, vocab, true)}, {"q", q}});
  }

  // multinomial_with_seed: the seeds and positions of tests/python/seeded_gumbel_reference.py
  // (a negative seed, the largest position), a lone survivor, equal weights.
  const std::vector<float> dyadic = {0.5f, 0.25f, 0.125f, 0.125f};
  std::vector<float> rows;
  for (int i = 0; i < 3; ++i) rows.insert(rows.end(), dyadic.begin(), dyadic.end());
  rows.insert(rows.end(), {0.25f, 0.25f, 0.25f, 0.25f, 0.0f, 0.0f, 1.0f, 0.0f});
  const TensorMap edges = {{"probs", Logits(5, 4, rows)},
                           {"seed", I64({5}, {0, 42, -1, 1234567890123, 99})},
                           {"positions", I64({5}, {0, 7, 4294967295, 3, 1})}};
  list.Add("multinomial_with_seed", "edges", edges);
  TensorMap edges_ids = edges;
  edges_ids.emplace("token_ids", I32({5, 4}, {7, 3, 151935, 0, 7, 3, 151935, 0, 7, 3, 151935, 0, 7, 3, 151935, 0, 7, 3, 151935, 0}));
  list.Add("multinomial_with_seed_token_ids", "edges", edges_ids);
  for (std::int64_t vocab : {1, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("multinomial_with_seed", name);
    list.Add("multinomial_with_seed", name,
             {{"probs", SixteenthProbs(rng, 4, vocab, true)}, {"seed", RandomSeeds(rng, 4)}, {"positions", RandomPositions(rng, 4)}});
    auto rng_ids = list.Rng("multinomial_with_seed_token_ids", name);
    list.Add("multinomial_with_seed_token_ids", name,
             {{"probs", SixteenthProbs(rng_ids, 4, vocab, false)}, {"seed", RandomSeeds(rng_ids, 4)},
              {"positions", RandomPositions(rng_ids, 4)}, {"token_ids", RandomTokenIds(rng_ids, 4, vocab)}});
  }
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeSeededDrawsInputs(const std::string& stage, SplitMix64& rng, std::int64_t vocab) {
  const StageInfo& info = RequireStage(stage);
  if (info.InputWithRole(Role::kNoise) != nullptr) {  // qsample: noise given as a tensor
    Tensor q(DType::kF32, {1, vocab});
    for (float& x : q.data<float>()) x = static_cast<float>(1 + rng.Below(1u << 20)) * 0x1p-18f;  // (0, 4]
    return {{"q", q}};
  }
  TensorMap in = {{"seed", RandomSeeds(rng, 1)}, {"positions", RandomPositions(rng, 1)}};
  const auto& inputs = info.inputs;
  if (std::any_of(inputs.begin(), inputs.end(), [](const TensorSpec& t) { return t.name == "token_ids"; })) {
    Tensor ids(DType::kI32, {1, vocab});  // the reversed vocabulary
    auto d = ids.data<std::int32_t>();
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<std::int32_t>(d.size() - 1 - i);
    in.emplace("token_ids", ids);
  }
  return in;
}

}  // namespace

SAMPCHECK_CASE_FAMILY(SeededDraws, {.stages = {"qsample", "multinomial_with_seed", "multinomial_with_seed_token_ids"}, .add = AddSeededDrawCases, .large_inputs = LargeSeededDrawsInputs});

}  // namespace sampcheck::golden
