// SPDX-License-Identifier: Apache-2.0
// Golden case families for pipeline (docs/spec/pipeline.md): end-to-end known answers for a
// whole sampler, greedy and random rows mixed in one batch, every profile on the same inputs
// (canonical and sglang read seed and positions, vllm reads q).
#include <cmath>
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"
#include "reference/rng/noise.h"

namespace sampcheck::golden {

namespace {

constexpr float kLn2F = 0x1.62e43p-1f;  // f32(ln 2): exp(-kLn2F) rounds to exactly 0.5

// Exp(1) noise for vllm from uniforms in (0, 1) through the owned law.
Tensor ExponentialNoise(SplitMix64& rng, std::int64_t rows, std::int64_t vocab) {
  Tensor q(DType::kF32, {rows, vocab});
  for (float& x : q.data<float>()) {
    x = sampcheck::rng::ExponentialNegLogF32((static_cast<float>(rng.Next() >> 41) + 0.5f) * 0x1p-23f);
  }
  return q;
}

Tensor Ids(SplitMix64& rng, std::int64_t rows, std::int64_t width, std::int64_t vocab) {
  std::vector<std::int64_t> lengths;
  for (std::int64_t b = 0; b < rows; ++b) lengths.push_back(static_cast<std::int64_t>(rng.Below(static_cast<std::uint64_t>(width) + 1)));
  return RandomIds(rng, rows, width, vocab, lengths);
}

Tensor RowFloats(std::int64_t rows, const std::vector<float>& cycle) {
  Tensor t(DType::kF32, {rows});
  auto v = t.data<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = cycle[i % cycle.size()];
  return t;
}

Tensor RowInts(std::int64_t rows, const std::vector<std::int32_t>& cycle) {
  Tensor t(DType::kI32, {rows});
  auto v = t.data<std::int32_t>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = cycle[i % cycle.size()];
  return t;
}

// Every group of the pipeline on `rows` x `vocab` random logits; greedy rows at t = 0.
TensorMap FullBatch(SplitMix64& rng, std::int64_t rows, std::int64_t vocab, DType dtype, bool masks_and_bias) {
  TensorMap in = {{"logits", RandomLogits(rng, rows, vocab, dtype)},
                  {"temperature", RowFloats(rows, {0.7f, 0.0f, 1.0f, 1.5f, 0.3f, 0.0f, 1e-6f, 2.0f})},
                  {"output_ids", Ids(rng, rows, 6, vocab)},
                  {"prompt_ids", Ids(rng, rows, 4, vocab)},
                  {"repetition_penalty", RowFloats(rows, {1.0f, 1.2f, 0.9f, 2.0f})},
                  {"frequency_penalty", RowFloats(rows, {0.0f, 0.5f, -0.25f})},
                  {"presence_penalty", RowFloats(rows, {0.0f, 0.25f, 1.0f, -0.5f, 0.125f})},
                  {"top_k", RowInts(rows, {0, 5, 1, 20, 0, 3, 2})},
                  {"top_p", RowFloats(rows, {1.0f, 0.9f, 0.5f, 0.75f, 0.3f})},
                  {"min_p", RowFloats(rows, {0.0f, 0.05f, 0.0f, 0.2f, 0.1f, 0.0f})},
                  {"seed", RandomSeeds(rng, rows)},
                  {"positions", RandomPositions(rng, rows)},
                  {"q", ExponentialNoise(rng, rows, vocab)}};
  if (masks_and_bias) {
    Tensor stop(DType::kI32, {rows, 2});
    for (auto& id : stop.data<std::int32_t>()) id = static_cast<std::int32_t>(rng.Between(1, vocab - 1));
    in.emplace("stop_ids", stop);
    in.emplace("output_len", RowInts(rows, {0, 3, 1}));
    in.emplace("min_tokens", RowInts(rows, {2, 2, 0, 5}));
    Tensor mask(DType::kI32, {rows, (vocab + 31) / 32});
    auto words = mask.data<std::int32_t>();
    for (std::size_t i = 0; i < words.size(); ++i) {
      words[i] = static_cast<std::int32_t>(rng.Next() >> 32) | (i % static_cast<std::size_t>(mask.dim(1)) == 0 ? 1 : 0);
    }
    in.emplace("bitmask", mask);
    Tensor bias(DType::kF32, {rows, vocab});
    for (float& x : bias.data<float>()) x = rng.Below(8) == 0 ? static_cast<float>(rng.Between(-16, 16)) / 4.0f : 0.0f;
    in.emplace("bias", bias);
  }
  return in;
}

}  // namespace

void AddPipelineCases(CaseList& list) {
  // Dyadic rows {-2ln2, 0, -2ln2, -ln2} (probabilities {1/8, 1/2, 1/8, 1/4}, sorted ids
  // {1, 3, 0, 2}) with the seeds of tests/python/seeded_gumbel_reference.py; top-k 1 and a
  // greedy row whose noise is never read; top-p at the boundary mass 0.75.
  std::vector<float> rows;
  for (int i = 0; i < 6; ++i) rows.insert(rows.end(), {-2 * kLn2F, 0.0f, -2 * kLn2F, -kLn2F});
  // sglang cases pin SGLang's batch-level sampling path (reference/pipeline.h): a row of a
  // batch then draws the same token alone, as the batch-invariance check requires.
  const std::vector<Profile> row_local = {Profile::kCanonical, Profile::kVllm};
  const nlohmann::json sorted = {{"sampling_path", "sorted"}};
  auto add = [&](const std::string& name, TensorMap inputs) {
    list.Add("pipeline", name, inputs, nlohmann::json::object(), row_local);
    inputs.erase("min_p");  // SGLang refuses min-p in a seeded batch (an input error here)
    list.Add("pipeline", name, std::move(inputs), sorted, {Profile::kSglang});
  };
  add("dyadic", TensorMap(
           {{"logits", Logits(6, 4, rows)},
            {"temperature", F32({6}, {1.0f, 1.0f, 0.0f, 1.0f, 1.0f, 1.0f})},
            {"top_k", I32({6}, {0, 1, 0, 0, 0, 2})},
            {"top_p", F32({6}, {1.0f, 1.0f, 1.0f, 0.75f, 1.0f, 1.0f})},
            {"seed", I64({6}, {-1, 5, 0, 42, 0, 7})},
            {"positions", I64({6}, {4294967295, 1, 0, 7, 0, 1})},
            {"q", F32({6, 4}, {1.0f, 1.0f, 1.0f, 0.125f,  //
                               1.0f, 8.0f, 0.01f, 1.0f,    //
                               0.0f, 0.0f, 0.0f, 0.0f,     // greedy: never read
                               1.0f, 1.0f, 1.0f, 0.125f,   //
                               0.5f, 4.0f, 1.0f, 1.0f,     //
                               1.0f, 1.0f, 1.0f, 1.0f})}}));
  {
    auto rng = list.Rng("pipeline", "mixed_v33");
    add("mixed_v33", FullBatch(rng, 8, 33, DType::kBF16, true));
  }
  {
    auto rng = list.Rng("pipeline", "mixed_v1000");
    add("mixed_v1000", FullBatch(rng, 8, 1000, DType::kF32, false));
  }
  {
    // The same batch with every row random (vocabulary 1: the one token every time).
    auto rng = list.Rng("pipeline", "single_token");
    add("single_token",
        {{"logits", Logits(3, 1, {0.0f, -5.0f, 7.5f})}, {"temperature", F32({3}, {1.0f, 0.5f, 0.0f})},
         {"seed", RandomSeeds(rng, 3)}, {"positions", RandomPositions(rng, 3)}, {"q", ExponentialNoise(rng, 3, 1)}});
  }
  // Row 0 of `dyadic` alone: no row greedy or filtering, so SGLang takes its unfiltered path
  // and keys the Gumbel noise by token id (sampling_from_probs_torch): token 1, as canonical
  // (tests/python/seeded_gumbel_reference.py, line "canonical -1 4294967295"); in `dyadic`'s
  // batch the same row draws by rank: id 3.
  list.Add("pipeline", "dyadic_row0_alone",
           {{"logits", Logits(1, 4, {-2 * kLn2F, 0.0f, -2 * kLn2F, -kLn2F})},
            {"temperature", F32({1}, {1.0f})},
            {"top_k", I32({1}, {0})},
            {"top_p", F32({1}, {1.0f})},
            {"seed", I64({1}, {-1})},
            {"positions", I64({1}, {4294967295})},
            {"q", F32({1, 4}, {1.0f, 1.0f, 1.0f, 0.125f})}});
  // vLLM's top_k = 1 with tied maxima, logits {1, 1}, T = 1, q {1, 0.5}. At vLLM 9aaf83ef
  // (the default, top_k_one "filter") top-k keeps both ties and the race decides: 0.5 / 0.5 >
  // 0.5 / 1, token 1. `top_k1_ties_greedy/vllm` pins the later vLLM's rule (top_k_one
  // "greedy", test_greedy_topk1_invariance.py): the lowest index, 0. SGLang's top-k keeps
  // exactly one tied token by rank.
  const TensorMap ties = {{"logits", Logits(1, 2, {1.0f, 1.0f})},
                          {"temperature", F32({1}, {1.0f})},
                          {"top_k", I32({1}, {1})},
                          {"seed", I64({1}, {42})},
                          {"positions", I64({1}, {7})},
                          {"q", F32({1, 2}, {1.0f, 0.5f})}};
  list.Add("pipeline", "top_k1_ties", ties);
  list.Add("pipeline", "top_k1_ties_greedy", ties, {{"top_k_one", "greedy"}}, {Profile::kVllm});
  // Input classes (docs/spec/input_classes.md). Half precision: the mixed batch in f16, and
  // bf16's two tie groups of 150 near-equal tokens (golden/case_list.h) at a top-k and a top-p
  // boundary.
  {
    auto rng = list.Rng("pipeline", "mixed_v33_f16");
    add("mixed_v33_f16", FullBatch(rng, 8, 33, DType::kF16, true));
  }
  {
    auto rng = list.Rng("pipeline", "near_equal_v300_bf16");
    add("near_equal_v300_bf16", {{"logits", NearEqualLogits(2, 300, DType::kBF16)},
                                 {"temperature", F32({2}, {1.0f, 0.5f})},
                                 {"top_k", I32({2}, {100, 0})},
                                 {"top_p", F32({2}, {1.0f, 0.3f})},
                                 {"seed", RandomSeeds(rng, 2)},
                                 {"positions", RandomPositions(rng, 2)},
                                 {"q", ExponentialNoise(rng, 2, 300)}});
  }
  // V = 1023, one short of a 1024-thread block: one filtering random row and one greedy row.
  {
    auto rng = list.Rng("pipeline", "v1023_bf16");
    add("v1023_bf16", {{"logits", RandomLogits(rng, 2, 1023, DType::kBF16)},
                       {"temperature", F32({2}, {0.8f, 0.0f})},
                       {"top_k", I32({2}, {0, 0})},
                       {"top_p", F32({2}, {0.9f, 1.0f})},
                       {"seed", RandomSeeds(rng, 2)},
                       {"positions", RandomPositions(rng, 2)},
                       {"q", ExponentialNoise(rng, 2, 1023)}});
  }
  // Non-finite rows with a defined result, f16: a random row whose one finite logit is at
  // column 0 (it is drawn whatever the noise), a filtering random row whose one finite logit is
  // at V - 1, and a greedy row with every token masked (the argmax's lowest index, 0: greedy.md).
  // A random row with every token masked is a degenerate row (docs/spec/pipeline.md
  // "Degenerate rows", pipeline/degenerate_rows_v33). sglang: the greedy row's token depends on
  // SGLang's batch ("SGLang's greedy rows"): the sglang case holds rows 0 and 1 only;
  // `sglang_all_greedy_masked_v33_f16` is the all-greedy batch.
  {
    auto rng = list.Rng("pipeline", "masked_rows_v33_f16");
    TensorMap in = {{"logits", MaskedRows(33, DType::kF16)},
                    {"temperature", F32({3}, {1.0f, 0.5f, 0.0f})},
                    {"top_k", I32({3}, {0, 5, 0})},
                    {"top_p", F32({3}, {1.0f, 0.5f, 1.0f})},
                    {"seed", RandomSeeds(rng, 3)},
                    {"positions", RandomPositions(rng, 3)},
                    {"q", ExponentialNoise(rng, 3, 33)}};
    list.Add("pipeline", "masked_rows_v33_f16", std::move(in), nlohmann::json::object(), row_local);
    auto srng = list.Rng("pipeline", "masked_rows_v33_f16/sglang");
    list.Add("pipeline", "masked_rows_v33_f16",
             {{"logits", MaskedRows(33, DType::kF16, false)},
              {"temperature", F32({2}, {1.0f, 0.5f})},
              {"top_k", I32({2}, {0, 5})},
              {"top_p", F32({2}, {1.0f, 0.5f})},
              {"seed", RandomSeeds(srng, 2)},
              {"positions", RandomPositions(srng, 2)}},
             sorted, {Profile::kSglang});
  }
  // SGLang's all-greedy batch (Sampler.forward, is_all_greedy: every request has top_k <= 1,
  // a greedy one stored as top_k = 1): every row takes torch.argmax of the logits, a random
  // row with top_k = 1 included. Rows: the lone survivor at 0 (greedy): 0; the lone survivor
  // at V - 1 at temperature 0.5 with top_k 1: 32; every logit -inf (greedy): the argmax's
  // lowest index, 0. No noise is read.
  list.Add("pipeline", "sglang_all_greedy_masked_v33_f16",
           {{"logits", MaskedRows(33, DType::kF16)},
            {"temperature", F32({3}, {0.0f, 0.5f, 0.0f})},
            {"top_k", I32({3}, {0, 1, 0})}},
           nlohmann::json::object(), {Profile::kSglang});
  // Every id input at the last id V - 1 = 32 (the second bitmask word's bit 0). Row 0: the
  // bitmask allows token 32 alone, which a random row must draw; its penalties and bias hit
  // 32 too. Row 1 (greedy): 32 is a stop id under min_tokens (masked), carries the largest
  // logit, a +8 bias and repeated output and prompt ids.
  {
    auto rng = list.Rng("pipeline", "last_id_v33");
    Tensor logits = RandomLogits(rng, 2, 33, DType::kF32);
    SetLogit(logits, 32, 20.0f);
    SetLogit(logits, 33 + 32, 20.0f);
    Tensor bias(DType::kF32, {2, 33});
    SetLogit(bias, 32, -1.5f);
    SetLogit(bias, 33 + 32, 8.0f);
    add("last_id_v33", {{"logits", logits},
                        {"temperature", F32({2}, {1.0f, 0.0f})},
                        {"output_ids", I32({2, 3}, {32, 32, -1, 32, 0, 32})},
                        {"prompt_ids", I32({2, 1}, {32, 32})},
                        {"repetition_penalty", F32({2}, {1.5f, 1.25f})},
                        {"frequency_penalty", F32({2}, {0.5f, 0.25f})},
                        {"presence_penalty", F32({2}, {0.25f, 0.5f})},
                        {"stop_ids", I32({2, 2}, {-1, -1, 32, 5})},
                        {"output_len", I32({2}, {0, 0})},
                        {"min_tokens", I32({2}, {0, 1})},
                        {"bitmask", I32({2, 2}, {0, 1, -1, -1})},
                        {"bias", bias},
                        {"top_k", I32({2}, {0, 0})},
                        {"top_p", F32({2}, {1.0f, 1.0f})},
                        {"seed", RandomSeeds(rng, 2)},
                        {"positions", RandomPositions(rng, 2)},
                        {"q", ExponentialNoise(rng, 2, 33)}});
  }
  // Degenerate rows between healthy ones (docs/spec/pipeline.md "Degenerate rows"), V = 33:
  // rows 0, 3 (greedy) and 6 healthy; row 1 random with a NaN at 17; row 2 random with a
  // bitmask that allows nothing; row 4 random with a +inf at 30; row 5 greedy with a NaN at
  // 9; row 7 random with 3e38 at 12, +inf only after temperature 0.5. Tokens of the
  // degenerate rows: canonical 17, 0, 30, 9, 12; vllm 0, 0, 0, 9, 0; sglang 0, 0, 0, 0, 0.
  {
    auto rng = list.Rng("pipeline", "degenerate_rows_v33");
    constexpr std::int64_t kV = 33;
    Tensor logits = RandomLogits(rng, 8, kV, DType::kF32);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    SetLogit(logits, 1 * kV + 17, nan);
    SetLogit(logits, 4 * kV + 30, std::numeric_limits<float>::infinity());
    SetLogit(logits, 5 * kV + 9, nan);
    SetLogit(logits, 7 * kV + 12, 3e38f);
    std::vector<std::int32_t> words(16, -1);
    words[4] = words[5] = 0;  // row 2: no token allowed
    TensorMap in = {{"logits", logits},
                    {"temperature", F32({8}, {1.0f, 1.0f, 1.0f, 0.0f, 0.7f, 0.0f, 1.5f, 0.5f})},
                    {"bitmask", I32({8, 2}, words)},
                    {"top_k", I32({8}, {5, 0, 3, 0, 0, 0, 0, 4})},
                    {"top_p", F32({8}, {0.9f, 1.0f, 0.8f, 1.0f, 1.0f, 1.0f, 0.5f, 1.0f})},
                    {"seed", RandomSeeds(rng, 8)},
                    {"positions", RandomPositions(rng, 8)},
                    {"q", ExponentialNoise(rng, 8, kV)}};
    list.Add("pipeline", "degenerate_rows_v33", in, nlohmann::json::object(), row_local);
    // sglang: the same rows on its sorted path (the case states its server batch), where the
    // greedy NaN row 5 is a degenerate top_k = 1 row: 0 (pipeline.md "Degenerate rows").
    list.Add("pipeline", "degenerate_rows_v33", std::move(in), sorted, {Profile::kSglang});
  }
  // sglang at top_p = 1 on its sorted path (another row filters): the tail goes once the f32
  // running sum passes 1 (reference/top_p.h).
  {
    auto rng = list.Rng("pipeline", "sglang_top_p_one_v31");
    TensorMap in = {{"logits", RandomLogits(rng, 2, 31, DType::kF32)},
                    {"temperature", F32({2}, {2.0f, 2.0f})},
                    {"top_p", F32({2}, {1.0f, 0.9f})},
                    {"seed", RandomSeeds(rng, 2)},
                    {"positions", RandomPositions(rng, 2)},
                    {"q", ExponentialNoise(rng, 2, 31)}};
    list.Add("pipeline", "sglang_top_p_one_v31", in, nlohmann::json::object(), row_local);
    list.Add("pipeline", "sglang_top_p_one_v31", std::move(in), sorted, {Profile::kSglang});
  }
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargePipelineInputs(const std::string& /*stage*/, SplitMix64& rng, std::int64_t vocab) {
  Tensor q(DType::kF32, {1, vocab});
  for (float& x : q.data<float>()) {
    x = sampcheck::rng::ExponentialNegLogF32((static_cast<float>(rng.Next() >> 41) + 0.5f) * 0x1p-23f);
  }
  return {{"temperature", F32({1}, {0.7f})}, {"top_k", I32({1}, {50})}, {"top_p", F32({1}, {0.9f})},
          {"seed", RandomSeeds(rng, 1)}, {"positions", RandomPositions(rng, 1)}, {"q", q}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(Pipeline, {.stages = {"pipeline"}, .add = AddPipelineCases, .large_inputs = LargePipelineInputs});

}  // namespace sampcheck::golden
