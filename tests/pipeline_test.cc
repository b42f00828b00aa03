// SPDX-License-Identifier: Apache-2.0
// Tests of pipeline (reference/pipeline.h, docs/spec/pipeline.md). Rows are dyadic, so every
// probability is exact; seeded winners come from tests/python/seeded_gumbel_reference.py
// (independent of sampcheck), the rest is worked out by hand in the comments.
#include "reference/pipeline.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/split_mix64.h"
#include "reference/rng/philox.h"
#include "reference/rng/vllm_generator.h"
#include "tests/support/filter_test_rows.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

Tensor I64Tensor(Shape shape, const std::vector<std::int64_t>& values) {
  return Tensor::FromValues<std::int64_t>(DType::kI64, std::move(shape), values);
}

// {-2 ln2, 0, -2 ln2, -ln2}: probabilities {1/8, 1/2, 1/8, 1/4}; sorted ids {1, 3, 0, 2}.
const std::vector<float> kPermuted = {-2 * kLn2F, 0.0f, -2 * kLn2F, -kLn2F};

std::vector<std::int64_t> Tokens(const TensorMap& out) {
  const auto t = out.at("token").data<std::int64_t>();
  return {t.begin(), t.end()};
}

TensorMap Seeded(const std::vector<float>& row, float temperature, std::int64_t seed, std::int64_t position) {
  return {{"logits", F32Tensor({1, 4}, row)}, {"temperature", F32Tensor({1}, {temperature})},
          {"seed", I64Tensor({1}, {seed})}, {"positions", I64Tensor({1}, {position})}};
}

TEST(Pipeline, CanonicalDrawsByTokenIdSglangByRankOnItsSortedPath) {
  // seeded_gumbel_reference.py, lines "canonical" (probs in vocabulary order, column = token
  // id) and "sglang rank" (the sorted row {1/2, 1/4, 1/8, 1/8}; rank r is id {1, 3, 0, 2}[r]).
  // SGLang (python/sglang/srt/layers/sampler.py, Sampler._sample_from_probs): a batch with no
  // filter and no greedy row is `simple_sampling_case` and goes to sampling_from_probs_torch,
  // multinomial_with_seed(torch.log(probs)) with col_indices = arange(V): token ids, the
  // canonical line; a batch on the sorted path (top_k_top_p_min_p_sampling_from_probs_torch)
  // hashes the rank in probs_sort: the "sglang rank" line.
  struct Expect { std::int64_t seed, position, canonical, sglang_rank; };
  for (const Expect& e : {Expect{-1, 4294967295, 1, 3}, Expect{0, 0, 3, 1}, Expect{42, 7, 1, 1}, Expect{7, 1, 3, 1}}) {
    const TensorMap in = Seeded(kPermuted, 1.0f, e.seed, e.position);
    EXPECT_EQ(Tokens(RunReference("pipeline", "canonical", in))[0], e.canonical);
    EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", in))[0], e.canonical);  // alone: unfiltered
    EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", in, {{"sampling_path", "unfiltered"}}))[0], e.canonical);
    EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", in, {{"sampling_path", "sorted"}}))[0], e.sglang_rank);
    // top_p = 0.99 (no token dropped: the mass before the last is 7/8) puts the batch on the
    // sorted path by itself.
    TensorMap filtered = in;
    filtered.emplace("top_p", F32Tensor({1}, {0.99f}));
    EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", filtered))[0], e.sglang_rank);
  }
  // A greedy row in the batch is SGLang's top_k = 1: the whole batch takes the sorted path.
  TensorMap two = {{"logits", F32Tensor({2, 4}, {-2 * kLn2F, 0.0f, -2 * kLn2F, -kLn2F, 0.0f, 1.0f, 2.0f, 3.0f})},
                   {"temperature", F32Tensor({2}, {1.0f, 0.0f})},
                   {"seed", I64Tensor({2}, {-1, 0})},
                   {"positions", I64Tensor({2}, {4294967295, 0})}};
  EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", two)), (std::vector<std::int64_t>{3, 3}));
  EXPECT_THROW(RunReference("pipeline", "sglang", two, {{"sampling_path", "unfiltered"}}), std::invalid_argument);
  EXPECT_THROW(RunReference("pipeline", "sglang", two, {{"sampling_path", "fast"}}), std::invalid_argument);
  EXPECT_THROW(RunReference("pipeline", "canonical", two, {{"sampling_path", "sorted"}}), std::invalid_argument);
}

TEST(Pipeline, SglangRefusesMinPWithASeed) {
  // top_k_top_p_min_p_sampling_from_probs_torch asserts `sampling_seed is None` when
  // need_min_p_sampling (any request with min_p > 0): SGLang yields no token, so neither
  // does the profile. Every row greedy: no seeded draw, no assert (greedy rows never sample).
  TensorMap in = Seeded(kPermuted, 1.0f, 0, 0);
  in.emplace("min_p", F32Tensor({1}, {0.1f}));
  EXPECT_THROW(RunReference("pipeline", "sglang", in), std::invalid_argument);
  EXPECT_NO_THROW(RunReference("pipeline", "canonical", in));
  TensorMap greedy = in;
  greedy["temperature"] = F32Tensor({1}, {0.0f});
  EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", greedy))[0], 1);
  TensorMap zero = in;
  zero["min_p"] = F32Tensor({1}, {0.0f});  // min_p 0 is "no min-p": allowed
  EXPECT_NO_THROW(RunReference("pipeline", "sglang", zero));
}

TEST(Pipeline, VllmTopKOneKeepsTheTiesAtThePinnedCommitAndIsGreedyLater) {
  // vLLM 9aaf83ef: Sampler.sample (vllm/v1/sample/sampler.py) is greedy only for temperature <
  // 1e-5, and apply_top_k_top_p_pytorch (v1/sample/ops/topk_topp_sampler.py) masks
  // `logits_sort < kth value`, so both tied logits survive top_k = 1 and the race
  // probs / q decides. Logits {1, 1}, T = 1, top_k = 1, q = {1, 0.5}: probs {1/2, 1/2},
  // ratios {0.5, 1}: token 1. Param top_k_one = "greedy" (the later vLLM's
  // tests/v1/sample/test_greedy_topk1_invariance.py @b98c3c8f): the argmax, the lowest index: 0.
  TensorMap in = {{"logits", F32Tensor({1, 2}, {1.0f, 1.0f})},
                  {"temperature", F32Tensor({1}, {1.0f})},
                  {"top_k", I32Tensor({1}, {1})},
                  {"q", F32Tensor({1, 2}, {1.0f, 0.5f})}};
  EXPECT_EQ(Tokens(RunReference("pipeline", "vllm", in))[0], 1);
  EXPECT_EQ(Tokens(RunReference("pipeline", "vllm", in, {{"top_k_one", "filter"}}))[0], 1);
  EXPECT_EQ(Tokens(RunReference("pipeline", "vllm", in, {{"top_k_one", "greedy"}}))[0], 0);
  // top_k = 2 keeps both and races them under either rule: token 1.
  TensorMap two = in;
  two["top_k"] = I32Tensor({1}, {2});
  EXPECT_EQ(Tokens(RunReference("pipeline", "vllm", two, {{"top_k_one", "greedy"}}))[0], 1);
  // Under the greedy rule the row needs no noise; under the pinned rule it does.
  TensorMap no_q = in;
  no_q.erase("q");
  EXPECT_EQ(Tokens(RunReference("pipeline", "vllm", no_q, {{"top_k_one", "greedy"}}))[0], 0);
  EXPECT_THROW(RunReference("pipeline", "vllm", no_q), std::invalid_argument);
  // The param is vllm's only, and has two values.
  EXPECT_THROW(RunReference("pipeline", "vllm", in, {{"top_k_one", "argmax"}}), std::invalid_argument);
  EXPECT_THROW(RunReference("pipeline", "canonical", in, {{"top_k_one", "greedy"}}), std::invalid_argument);
}

TEST(Pipeline, SglangGreedyRowsDependOnTheBatch) {
  // SGLang d55f1c28: SamplingParams turns temperature < 1e-6 into temperature 1, top_k 1;
  // SamplingBatchInfo.is_all_greedy = all(top_k <= 1); Sampler.forward takes
  // torch.argmax(logits) for an all-greedy batch, else the sorted path
  // (top_k_top_p_min_p_sampling_from_probs_torch), where a row of -inf logits has NaN
  // probabilities and its token is whichever id torch.sort puts first.
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  // Row 0 greedy with every logit -inf: argmax's lowest index 0 (greedy.md). Row 1 random
  // (T 0.5) with top_k 1 on {0, 2, 1}: in an all-greedy batch, argmax 1. No noise given.
  TensorMap all = {{"logits", F32Tensor({2, 3}, {kNegInf, kNegInf, kNegInf, 0.0f, 2.0f, 1.0f})},
                   {"temperature", F32Tensor({2}, {0.0f, 0.5f})},
                   {"top_k", I32Tensor({2}, {0, 1})}};
  EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", all)), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", all, {{"greedy_path", "argmax"}})),
            (std::vector<std::int64_t>{0, 1}));
  // The same rows in a batch with another (random) request: row 0 is a degenerate top_k = 1
  // row of the sorted path, whose token SGLang leaves to torch.sort; the profile takes 0
  // (pipeline.md "Degenerate rows"). The sorted path reads the seeds.
  TensorMap mixed = all;
  mixed["top_k"] = I32Tensor({2}, {0, 0});
  mixed["seed"] = I64Tensor({2}, {1, 2});
  mixed["positions"] = I64Tensor({2}, {0, 0});
  EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", mixed))[0], 0);
  EXPECT_THROW(RunReference("pipeline", "sglang", mixed, {{"greedy_path", "argmax"}}), std::invalid_argument);
  // A greedy row with a finite logit takes its argmax on either path: {3, 1, 3} gives 0.
  mixed["logits"] = F32Tensor({2, 3}, {3.0f, 1.0f, 3.0f, 0.0f, 2.0f, 1.0f});
  EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", mixed))[0], 0);
  // The param is sglang's only.
  EXPECT_THROW(RunReference("pipeline", "canonical", all, {{"greedy_path", "auto"}}), std::invalid_argument);
}

TEST(Pipeline, SglangStatedPathPutsGreedyRowsOnTheMixedPath) {
  // pipeline.md "Degenerate rows": a case that states its server batch's seeded path
  // (sampling_path "sorted") has a random request in that batch, so its greedy rows are on
  // SGLang's mixed path even when every row of the case is greedy. A greedy row holding a NaN
  // at column 1 is then a degenerate top_k = 1 row: 0 alone and beside a random row (the
  // argmax path would give its first NaN, 1): the row's token does not depend on its batch.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const nlohmann::json sorted = {{"sampling_path", "sorted"}};
  TensorMap alone = {{"logits", F32Tensor({1, 3}, {0.0f, nan, 1.0f})}, {"temperature", F32Tensor({1}, {0.0f})}};
  EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", alone))[0], 1);  // all-greedy: torch.argmax, the first NaN
  EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", alone, sorted))[0], 0);
  TensorMap batch = {{"logits", F32Tensor({2, 3}, {0.0f, nan, 1.0f, 0.0f, 2.0f, 1.0f})},
                     {"temperature", F32Tensor({2}, {0.0f, 1.0f})},
                     {"seed", I64Tensor({2}, {1, 2})},
                     {"positions", I64Tensor({2}, {0, 0})}};
  EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", batch, sorted))[0], 0);
  // A healthy greedy row takes its argmax on either path: {0, 2, 1} gives 1.
  alone["logits"] = F32Tensor({1, 3}, {0.0f, 2.0f, 1.0f});
  EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", alone, sorted))[0], 1);
  // greedy_path 'argmax' contradicts a stated seeded path.
  EXPECT_THROW(RunReference("pipeline", "sglang", alone, {{"sampling_path", "sorted"}, {"greedy_path", "argmax"}}),
               std::invalid_argument);
}

TEST(Pipeline, VllmRacesTheFilteredProbabilitiesAgainstQ) {
  // probs {1/8, 1/2, 1/8, 1/4} / q {1, 1, 1, 0.125} = {1/8, 1/2, 1/8, 2} -> 3; with top_k 1
  // only id 1 keeps probability 1: {0, 1, 0, 0} / q -> 1.
  TensorMap in = {{"logits", F32Tensor({1, 4}, kPermuted)}, {"temperature", F32Tensor({1}, {1.0f})},
                  {"q", F32Tensor({1, 4}, {1, 1, 1, 0.125f})}};
  EXPECT_EQ(Tokens(RunReference("pipeline", "vllm", in))[0], 3);
  in.emplace("top_k", I32Tensor({1}, {1}));
  EXPECT_EQ(Tokens(RunReference("pipeline", "vllm", in))[0], 1);
}

// vLLM's per-request generators (reference/rng/vllm_generator.h): the header's example from
// Random123's known answer (word 0 of Philox4x32_10 at counter and key 0 is 0x6627e8d5) and
// cuRAND's conversion 0x6627e8d5 2^-32 + 2^-33 = 0x1.989fa4p-2 (rounded to f32); -log of it
// from long double, which the correctly rounded LogF32Cr must equal.
TEST(VllmGenerator, HeaderExample) {
  EXPECT_EQ(rng::PhiloxCanonicalWord(0, 0, 0, 0, 0), 0x6627e8d5u);
  EXPECT_EQ(rng::VllmGeneratorExponentialF32(0, 0, 0), static_cast<float>(-std::log(static_cast<long double>(0x1.989fa4p-2f))));
}

// A seeded vllm row races its generator's q, not the given one: on a flat row the winner is
// the token of the smallest q, i.e. of the largest Philox word (u and -log u are monotone),
// whatever the given q says; the unseeded row beside it follows the given q.
TEST(Pipeline, VllmSeededRowsRaceTheirGeneratorsNoise) {
  const std::vector<float> flat(8, 0.0f);
  std::vector<float> logits(flat);
  logits.insert(logits.end(), flat.begin(), flat.end());
  std::vector<float> q(16, 1.0f);
  q[5] = 0.125f;   // row 0 (seeded) ignores it
  q[8 + 6] = 0.125f;  // row 1 (unseeded) takes token 6
  Tensor seeded(DType::kBool, {2});
  seeded.data<std::uint8_t>()[0] = 1;
  for (std::int64_t seed : {1, 77, 123456789}) {
    for (std::int64_t step : {0, 1, 4096}) {
      TensorMap in = {{"logits", F32Tensor({2, 8}, logits)}, {"temperature", F32Tensor({2}, {1.0f, 1.0f})},
                      {"q", F32Tensor({2, 8}, q)}, {"seed", I64Tensor({2}, {seed, seed})},
                      {"positions", I64Tensor({2}, {step, step})}, {"seeded", seeded}};
      std::int64_t best = 0;
      for (std::uint32_t i = 1; i < 8; ++i) {
        if (rng::PhiloxCanonicalWord(static_cast<std::uint64_t>(seed), 0, static_cast<std::uint32_t>(step), i, 0) >
            rng::PhiloxCanonicalWord(static_cast<std::uint64_t>(seed), 0, static_cast<std::uint32_t>(step), static_cast<std::uint32_t>(best), 0)) {
          best = i;
        }
      }
      EXPECT_EQ(Tokens(RunReference("pipeline", "vllm", in)), (std::vector<std::int64_t>{best, 6})) << seed << " " << step;
    }
  }
  TensorMap bad = {{"logits", F32Tensor({2, 8}, logits)}, {"temperature", F32Tensor({2}, {1.0f, 1.0f})},
                   {"q", F32Tensor({2, 8}, q)}, {"seed", I64Tensor({2}, {1, 1})},
                   {"positions", I64Tensor({2}, {-1, 0})}, {"seeded", seeded}};
  EXPECT_THROW(RunReference("pipeline", "vllm", bad), std::invalid_argument);
  bad.erase("seed");
  EXPECT_THROW(RunReference("pipeline", "vllm", bad), std::invalid_argument);
}

TEST(Pipeline, OneSurvivorIsDrawnWhateverTheNoise) {
  for (std::int64_t seed = 0; seed < 50; ++seed) {
    TensorMap in = Seeded(kPermuted, 0.7f, seed, seed * 3);
    in.emplace("top_k", I32Tensor({1}, {1}));
    for (const char* profile : {"canonical", "sglang"}) EXPECT_EQ(Tokens(RunReference("pipeline", profile, in))[0], 1);
  }
}

TEST(Pipeline, GreedyRowsIgnoreTheirNoise) {
  // Temperature 0: argmax 1, and a greedy row's q (vllm) or seed (others) is never read: a
  // zero q, which a random row would reject, is accepted.
  TensorMap vllm = {{"logits", F32Tensor({1, 4}, kPermuted)}, {"temperature", F32Tensor({1}, {0.0f})},
                    {"q", F32Tensor({1, 4}, {0, 0, 0, 0})}};
  EXPECT_EQ(Tokens(RunReference("pipeline", "vllm", vllm))[0], 1);
  TensorMap no_seed = {{"logits", F32Tensor({1, 4}, kPermuted)}, {"temperature", F32Tensor({1}, {0.0f})}};
  EXPECT_EQ(Tokens(RunReference("pipeline", "canonical", no_seed))[0], 1);
  EXPECT_EQ(Tokens(RunReference("pipeline", "sglang", no_seed))[0], 1);
}

TEST(Pipeline, GreedyThresholdIsTheProfiles) {
  // t = 5e-6 is below canonical's 1e-5 (a greedy row: argmax 1, no noise read), above
  // SGLang's 1e-6 (a random row, which needs its seed), and vLLM raises 0 < t < 0.01 to 0.01
  // before its test (temperature.h): a random row, which needs its q.
  TensorMap in = {{"logits", F32Tensor({1, 4}, kPermuted)}, {"temperature", F32Tensor({1}, {5e-6f})}};
  EXPECT_EQ(Tokens(RunReference("pipeline", "canonical", in))[0], 1);
  EXPECT_THROW(RunReference("pipeline", "vllm", in), std::invalid_argument);
  EXPECT_THROW(RunReference("pipeline", "sglang", in), std::invalid_argument);
}

TEST(Pipeline, VllmBiasesBeforePenaltiesCanonicalAfter) {
  // logits {1, 1.25}, dense bias {+1, 0}, repetition 2 on output token 0, greedy.
  // vllm: (1 + 1) / 2 = 1 < 1.25 -> 1. canonical/sglang: 1 / 2 + 1 = 1.5 > 1.25 -> 0.
  TensorMap in = {{"logits", F32Tensor({1, 2}, {1.0f, 1.25f})}, {"temperature", F32Tensor({1}, {0.0f})},
                  {"bias", F32Tensor({1, 2}, {1.0f, 0.0f})}, {"output_ids", I32Tensor({1, 1}, {0})},
                  {"repetition_penalty", F32Tensor({1}, {2.0f})}};
  EXPECT_EQ(Tokens(RunReference("pipeline", "vllm", in))[0], 1);
  EXPECT_EQ(Tokens(RunReference("pipeline", "canonical", in))[0], 0);
}

TEST(Pipeline, MasksAndMinNewTokensExcludeTokens) {
  // Bitmask word 0b0101 allows ids 0 and 2; stop id 0 while output_len 0 < min_tokens 1:
  // only id 2 remains, drawn by every profile and every seed.
  for (std::int64_t seed = 0; seed < 20; ++seed) {
    TensorMap in = Seeded(kPermuted, 1.0f, seed, 5);
    in.emplace("bitmask", I32Tensor({1, 1}, {0b0101}));
    in.emplace("stop_ids", I32Tensor({1, 1}, {0}));
    in.emplace("output_len", I32Tensor({1}, {0}));
    in.emplace("min_tokens", I32Tensor({1}, {1}));
    for (const char* profile : {"canonical", "sglang"}) EXPECT_EQ(Tokens(RunReference("pipeline", profile, in))[0], 2);
    in.emplace("q", F32Tensor({1, 4}, {1e-3f, 1, 1, 1}));
    EXPECT_EQ(Tokens(RunReference("pipeline", "vllm", in))[0], 2);
  }
}

TEST(Pipeline, RejectsBadInput) {
  TensorMap in = Seeded(kPermuted, 1.0f, 0, -1);
  EXPECT_THROW(RunReference("pipeline", "canonical", in), std::invalid_argument);  // negative position
  TensorMap no_seed = {{"logits", F32Tensor({1, 4}, kPermuted)}, {"temperature", F32Tensor({1}, {1.0f})}};
  EXPECT_THROW(RunReference("pipeline", "canonical", no_seed), std::invalid_argument);  // random row without a seed
  EXPECT_THROW(RunReference("pipeline", "vllm", no_seed), std::invalid_argument);       // random row without q
  TensorMap sparse = Seeded(kPermuted, 1.0f, 0, 0);
  sparse.emplace("bias_rows", I32Tensor({1}, {0}));
  EXPECT_THROW(RunReference("pipeline", "canonical", sparse), std::invalid_argument);
  EXPECT_THROW(RunReference("pipeline", "flashinfer", Seeded(kPermuted, 1.0f, 0, 0)), std::exception);
}

// A masked token is never drawn, whatever the seed: random logits, random bitmask with at
// least one allowed id, mixed greedy and random rows.
RC_GTEST_PROP(Pipeline, NeverDrawsAMaskedToken, (std::uint64_t key)) {
  SplitMix64 rng(key);
  const std::int64_t rows = 3, vocab = 40;
  std::vector<float> logits;
  for (std::int64_t i = 0; i < rows * vocab; ++i) logits.push_back(static_cast<float>(rng.Below(2000)) / 100.0f - 10.0f);
  std::vector<std::int32_t> mask;
  for (std::int64_t i = 0; i < rows * 2; ++i) mask.push_back(static_cast<std::int32_t>(rng.Next() >> 32) | (i % 2 == 0 ? 1 : 0));
  std::vector<float> temperature = {0.0f, 0.8f, 1.5f};
  TensorMap in = {{"logits", F32Tensor({rows, vocab}, logits)}, {"temperature", F32Tensor({rows}, temperature)},
                  {"bitmask", I32Tensor({rows, 2}, mask)},
                  {"seed", I64Tensor({rows}, {static_cast<std::int64_t>(rng.Next()), 1, 2})},
                  {"positions", I64Tensor({rows}, {0, 1, 2})}};
  std::vector<float> q;
  for (std::int64_t i = 0; i < rows * vocab; ++i) q.push_back(static_cast<float>(rng.Below(1000) + 1) / 100.0f);
  in.emplace("q", F32Tensor({rows, vocab}, q));
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    const auto tokens = Tokens(RunReference("pipeline", profile, in));
    for (std::int64_t b = 0; b < rows; ++b) {
      const auto t = tokens[static_cast<std::size_t>(b)];
      const auto word = static_cast<std::uint32_t>(mask[static_cast<std::size_t>(b * 2 + t / 32)]);
      RC_ASSERT(((word >> (t % 32)) & 1u) == 1u);
    }
  }
}

// Greedy rows ignore the noise: changing every seed, position and q entry leaves them alone.
RC_GTEST_PROP(Pipeline, GreedyRowsIgnoreAnyNoise, (std::uint64_t key)) {
  SplitMix64 rng(key);
  const std::int64_t rows = 4, vocab = 24;
  std::vector<float> logits;
  for (std::int64_t i = 0; i < rows * vocab; ++i) logits.push_back(static_cast<float>(rng.Below(64)) / 4.0f);
  const auto noisy = [&](SplitMix64& r) {
    std::vector<float> q;
    for (std::int64_t i = 0; i < rows * vocab; ++i) q.push_back(static_cast<float>(r.Below(1000) + 1) / 100.0f);
    return TensorMap{{"logits", F32Tensor({rows, vocab}, logits)},
                     {"temperature", F32Tensor({rows}, {0.0f, 1.0f, 0.0f, 0.6f})},
                     {"top_p", F32Tensor({rows}, {0.9f, 0.9f, 0.5f, 1.0f})},
                     {"seed", I64Tensor({rows}, {static_cast<std::int64_t>(r.Next()), 1, static_cast<std::int64_t>(r.Next()), 2})},
                     {"positions", I64Tensor({rows}, {static_cast<std::int64_t>(r.Below(100)), 0, 7, 0})},
                     {"q", F32Tensor({rows, vocab}, q)}};
  };
  SplitMix64 a(key ^ 1), b(key ^ 2);
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    const auto first = Tokens(RunReference("pipeline", profile, noisy(a)));
    const auto second = Tokens(RunReference("pipeline", profile, noisy(b)));
    RC_ASSERT(first[0] == second[0]);
    RC_ASSERT(first[2] == second[2]);
  }
}

}  // namespace
}  // namespace sampcheck::testing
