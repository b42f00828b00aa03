// SPDX-License-Identifier: Apache-2.0
// Tests of logprobs (reference/logprobs.h, docs/spec/logprobs.md). Known answers are derived by
// hand in each test's comment; where a value needs a logarithm the oracle is double-precision
// libm rounded once to f32 (independent of the owned LogF32Cr it checks).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "reference/logprobs.h"
#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kL = 0x1.62e43p-1f;  // f32(ln 2): 21 significant bits, so 2L and 3L are exact

Tensor I64Tensor(Shape shape, const std::vector<std::int64_t>& values) {
  Tensor t(DType::kI64, std::move(shape));
  std::copy(values.begin(), values.end(), t.data<std::int64_t>().begin());
  return t;
}

std::vector<std::int64_t> Ints(const Tensor& t) {
  auto d = t.data<std::int64_t>();
  return {d.begin(), d.end()};
}

TensorMap RunLp(const std::string& profile, TensorMap in, std::int64_t n, const std::string& mode) {
  return RunReference("logprobs", profile, std::move(in), {{"num_logprobs", n}, {"mode", mode}});
}

TEST(Logprobs, DyadicRowTopNRankAndTieAtTheNthValue) {
  // logits {0, -L, -2L, -2L}: m = 0, exp gives {1, 1/2, 1/4, 1/4} exactly (exp(-L) =
  // 0.5 (1 - 1.9e-9) rounds to 0.5: half an ulp below 0.5 is 1.5e-8), s = 2, log(2) rounds to
  // L, so logprobs = {-L, -2L, -3L, -3L}. n = 3: tokens 2 and 3 tie at the 3rd value; the lower
  // index (2) is listed. Token 3: canonical rank 1 + #{> -3L} = 3; vllm #{>= -3L} = 4.
  TensorMap in = {{"logits", F32Tensor({1, 4}, {0.0f, -kL, -2 * kL, -2 * kL})}, {"token", I64Tensor({1}, {3})}};
  for (const char* profile : {"canonical", "vllm"}) {
    SCOPED_TRACE(profile);
    auto out = RunLp(profile, in, 3, "raw_logprobs");
    EXPECT_EQ(Ints(out.at("top_ids")), (std::vector<std::int64_t>{0, 1, 2}));
    EXPECT_EQ(FloatBits(out.at("top_values")), FloatBitsOf({-kL, -2 * kL, -3 * kL}));
    EXPECT_EQ(FloatBits(out.at("token_logprob")), FloatBitsOf({-3 * kL}));
  }
  EXPECT_EQ(Ints(RunLp("canonical", in, 3, "raw_logprobs").at("token_rank")), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(Ints(RunLp("vllm", in, 3, "raw_logprobs").at("token_rank")), (std::vector<std::int64_t>{4}));
  // SGLang returns no rank; its "original" mode is the same log_softmax.
  auto s = RunLp("sglang", in, 3, "original");
  EXPECT_EQ(s.count("token_rank"), 0u);
  EXPECT_EQ(FloatBits(s.at("top_values")), FloatBitsOf({-kL, -2 * kL, -3 * kL}));
}

TEST(Logprobs, HeaderExample) {
  // reference/logprobs.h: the dyadic row, token 3, n = 2, raw_logprobs: top_ids {0, 1},
  // token_logprob -3L, canonical rank 3, vllm rank 4 (derivation in the test above).
  TensorMap in = {{"logits", F32Tensor({1, 4}, {0.0f, -kL, -2 * kL, -2 * kL})}, {"token", I64Tensor({1}, {3})}};
  auto c = RunLp("canonical", in, 2, "raw_logprobs");
  EXPECT_EQ(Ints(c.at("top_ids")), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(Ints(c.at("top_ranks")), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(FloatBits(c.at("token_logprob")), FloatBitsOf({-3 * kL}));
  EXPECT_EQ(Ints(c.at("token_rank")), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(Ints(RunLp("vllm", in, 2, "raw_logprobs").at("token_rank")), (std::vector<std::int64_t>{4}));
}

TEST(Logprobs, TopRanksOfTheListedIds) {
  // raw_logits {1, NaN, 3, 3, -inf, 2}, n = 6 = V. Order: NaN first, then 3, 3 (index 2 before
  // 3), 2, 1, -inf: ids {1, 2, 3, 5, 0, 4}. canonical ranks 1 + #{x > value} with IEEE > (NaN
  // never greater): NaN 1; 3 and 3 both 1; 2: 1 + 2 = 3; 1: 1 + 3 = 4; -inf: 1 + 4 = 5. vllm:
  // positions 1..6 (vllm/logprobs.py append_logprobs_for_next_position). The sampled token 3 is
  // listed second; taking it out of the list (a dedup) would give the entries after it one less.
  // SGLang returns no ranks.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TensorMap in = {{"logits", F32Tensor({1, 6}, {1.0f, nan, 3.0f, 3.0f, -kInf, 2.0f})}, {"token", I64Tensor({1}, {3})}};
  auto c = RunLp("canonical", in, 6, "raw_logits");
  EXPECT_EQ(Ints(c.at("top_ids")), (std::vector<std::int64_t>{1, 2, 3, 5, 0, 4}));
  EXPECT_EQ(Ints(c.at("top_ranks")), (std::vector<std::int64_t>{1, 1, 1, 3, 4, 5}));
  EXPECT_EQ(Ints(RunLp("vllm", in, 6, "raw_logits").at("top_ranks")), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Ints(RunLp("canonical", in, 2, "raw_logits").at("top_ranks")), (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(RunLp("sglang", in, 6, "original").count("top_ranks"), 0u);
}

TEST(Logprobs, NegativeInfinityEntriesAndNEqualsV) {
  // raw_logits {1, -inf, -inf, 0}, n = 4 = V: order 1, 0, then the -inf tie by index: ids
  // {0, 3, 1, 2}. Token 1 (-inf): canonical 1 + 2 = 3; vllm counts x >= -inf: all 4.
  TensorMap in = {{"logits", F32Tensor({1, 4}, {1.0f, -kInf, -kInf, 0.0f})}, {"token", I64Tensor({1}, {1})}};
  auto c = RunLp("canonical", in, 4, "raw_logits");
  EXPECT_EQ(Ints(c.at("top_ids")), (std::vector<std::int64_t>{0, 3, 1, 2}));
  EXPECT_EQ(Floats(c.at("top_values")), (std::vector<float>{1.0f, 0.0f, -kInf, -kInf}));
  EXPECT_EQ(Ints(c.at("token_rank")), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(Ints(RunLp("vllm", in, 4, "raw_logits").at("token_rank")), (std::vector<std::int64_t>{4}));
}

TEST(Logprobs, NanEntriesComeFirstAndANanTokenRanksOneOrZero) {
  // raw_logits {1, NaN, 2, 3}: NaN first (torch.topk's order), then 3, 2, 1: ids {1, 3, 2, 0}.
  // Token 1 (NaN): no comparison with NaN is true: canonical 1 + 0 = 1, vllm 0. Token 0
  // (value 1): canonical 1 + #{2, 3} = 3 (NaN not counted), vllm #{1, 2, 3} = 3.
  TensorMap in = {{"logits", F32Tensor({2, 4}, {1.0f, NAN, 2.0f, 3.0f, 1.0f, NAN, 2.0f, 3.0f})},
                  {"token", I64Tensor({2}, {1, 0})}};
  auto c = RunLp("canonical", in, 4, "raw_logits");
  EXPECT_EQ(Ints(c.at("top_ids")), (std::vector<std::int64_t>{1, 3, 2, 0, 1, 3, 2, 0}));
  EXPECT_EQ(Ints(c.at("token_rank")), (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(Ints(RunLp("vllm", in, 4, "raw_logits").at("token_rank")), (std::vector<std::int64_t>{0, 3}));
  // raw_logprobs: one NaN makes the whole log_softmax row NaN (softmax.h), so the top ids are
  // 0, 1 by index and the values NaN.
  auto lp = RunLp("canonical", in, 2, "raw_logprobs");
  EXPECT_EQ(Ints(lp.at("top_ids")), (std::vector<std::int64_t>{0, 1, 0, 1}));
  for (float v : Floats(lp.at("top_values"))) EXPECT_TRUE(std::isnan(v));
}

TEST(Logprobs, ProcessedModesFilterDegenerateRowsByTheFiltersRules) {
  // filters.md "Degenerate rows": {1, NaN, 3, 2}, t = 1, top_k 2: top-k keeps the NaN (ranked
  // first) and 3 (canonical exactly 2; vllm every value >= 3, the same here); the row still
  // holds the NaN, so top-p (p = 0.9) leaves it: processed row {-inf, NaN, 3, -inf}. Top-4 in
  // the order NaN first: ids {1, 2, 0, 3}, values {NaN, 3, -inf, -inf}. processed_logprobs: the
  // log_softmax of a row holding NaN is NaN everywhere. Once an input error, now a row.
  TensorMap in = {{"logits", F32Tensor({1, 4}, {1.0f, NAN, 3.0f, 2.0f})},
                  {"temperature", F32Tensor({1}, {1.0f})},
                  {"top_k", I32Tensor({1}, {2})},
                  {"top_p", F32Tensor({1}, {0.9f})},
                  {"token", I64Tensor({1}, {2})}};
  for (const char* profile : {"canonical", "vllm"}) {
    SCOPED_TRACE(profile);
    auto out = RunLp(profile, in, 4, "processed_logits");
    EXPECT_EQ(Ints(out.at("top_ids")), (std::vector<std::int64_t>{1, 2, 0, 3}));
    EXPECT_EQ(FloatBits(out.at("top_values")), FloatBitsOf({NAN, 3.0f, -kInf, -kInf}));
    for (float v : Floats(RunLp(profile, in, 2, "processed_logprobs").at("top_values"))) EXPECT_TRUE(std::isnan(v));
  }
}

TEST(Logprobs, NZeroGivesEmptyTopNAndNAboveVIsAnError) {
  TensorMap in = {{"logits", F32Tensor({2, 3}, {1, 2, 3, 4, 5, 6})}, {"token", I64Tensor({2}, {0, 2})}};
  auto out = RunLp("vllm", in, 0, "raw_logits");
  EXPECT_EQ(out.at("top_ids").shape(), (Shape{2, 0}));
  EXPECT_EQ(out.at("top_values").shape(), (Shape{2, 0}));
  EXPECT_EQ(Ints(out.at("token_rank")), (std::vector<std::int64_t>{3, 1}));
  EXPECT_THROW(RunLp("vllm", in, 4, "raw_logits"), std::invalid_argument);
  EXPECT_THROW(RunLp("vllm", in, -1, "raw_logits"), std::invalid_argument);
}

TEST(Logprobs, RejectsBadTokensModesAndTemperatures) {
  TensorMap in = {{"logits", F32Tensor({1, 3}, {1, 2, 3})}, {"token", I64Tensor({1}, {3})}};
  EXPECT_THROW(RunLp("canonical", in, 1, "raw_logits"), std::invalid_argument);
  in["token"] = I64Tensor({1}, {0});
  EXPECT_THROW(RunLp("canonical", in, 1, "original"), std::invalid_argument);   // sglang's mode
  EXPECT_THROW(RunLp("sglang", in, 1, "raw_logprobs"), std::invalid_argument);  // vllm's mode
  in["temperature"] = F32Tensor({1}, {-1.0f});
  EXPECT_THROW(RunLp("canonical", in, 1, "processed_logits"), std::invalid_argument);
  TensorMap no_token = {{"logits", F32Tensor({1, 3}, {1, 2, 3})}};
  EXPECT_THROW(RunLp("canonical", no_token, 1, "raw_logits"), std::invalid_argument);
}

TEST(Logprobs, ProcessedModesDivideThenFilter) {
  // t = 0.5, top_k 2 on {1, 2, 3, 4}: y = {2, 4, 6, 8} (exact divisions), top-2 keeps 6 and 8.
  // processed_logprobs: log_softmax {-inf, -inf, 6, 8}: d = {-inf, -inf, -2, 0},
  // s = 1 + RN(e^-2), values d - RN(log s). The raw modes ignore temperature and filters.
  TensorMap in = {{"logits", F32Tensor({1, 4}, {1, 2, 3, 4})},
                  {"temperature", F32Tensor({1}, {0.5f})},
                  {"top_k", I32Tensor({1}, {2})},
                  {"token", I64Tensor({1}, {2})}};
  for (const char* profile : {"canonical", "vllm"}) {
    SCOPED_TRACE(profile);
    EXPECT_EQ(Floats(RunLp(profile, in, 4, "processed_logits").at("top_values")), (std::vector<float>{8, 6, -kInf, -kInf}));
    const float s = 1.0f + static_cast<float>(std::exp(-2.0));
    const float log_s = static_cast<float>(std::log(static_cast<double>(s)));
    auto out = RunLp(profile, in, 2, "processed_logprobs");
    EXPECT_EQ(FloatBits(out.at("top_values")), FloatBitsOf({0.0f - log_s, -2.0f - log_s}));
    EXPECT_EQ(Ints(out.at("token_rank")), (std::vector<std::int64_t>{2}));
    EXPECT_EQ(Floats(RunLp(profile, in, 1, "raw_logits").at("top_values")), (std::vector<float>{4}));
  }
}

TEST(Logprobs, VllmRaisesSmallTemperaturesAndGreedyRowsSkipTheFilters) {
  // t = 0.005: vllm raises it to f32(0.01) (sampling_params.py): 1 / 0.01f = 100.0000022 and
  // 0.5 / 0.01f = 50.0000011 round to 100 and 50; canonical divides by 0.005f: 200 and 100.
  // t = 0 is greedy under every profile: the row is kept as is, top_k 1 is not applied.
  TensorMap in = {{"logits", F32Tensor({2, 2}, {1.0f, 0.5f, 1.0f, 0.5f})},
                  {"temperature", F32Tensor({2}, {0.005f, 0.0f})},
                  {"top_k", I32Tensor({2}, {0, 1})},
                  {"token", I64Tensor({2}, {0, 1})}};
  EXPECT_EQ(Floats(RunLp("vllm", in, 2, "processed_logits").at("top_values")), (std::vector<float>{100, 50, 1, 0.5f}));
  EXPECT_EQ(Floats(RunLp("canonical", in, 2, "processed_logits").at("top_values")), (std::vector<float>{200, 100, 1, 0.5f}));
}

TEST(Logprobs, SglangTakesTheLogOfTemperedProbabilities) {
  // t = 0.5 on {0, -L, -2L, -2L}: y = {0, -2L, -4L, -4L}, e = {1, 1/4, 1/16, 1/16} (each
  // exp rounds to the power of two, as in the dyadic test), s = 1.375, probs RN(e / 1.375),
  // values RN(log probs). No filter is applied (top_k is ignored), and there is no rank.
  TensorMap in = {{"logits", F32Tensor({1, 4}, {0.0f, -kL, -2 * kL, -2 * kL})},
                  {"temperature", F32Tensor({1}, {0.5f})},
                  {"top_k", I32Tensor({1}, {1})},
                  {"token", I64Tensor({1}, {1})},
                  {"token_ids", I32Tensor({1, 3}, {3, -1, 0})}};
  auto lg = [](float p) { return static_cast<float>(std::log(static_cast<double>(p))); };
  const float p0 = 1.0f / 1.375f, p1 = 0.25f / 1.375f, p2 = 0.0625f / 1.375f;
  auto out = RunLp("sglang", in, 4, "temperature");
  EXPECT_EQ(Ints(out.at("top_ids")), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(FloatBits(out.at("top_values")), FloatBitsOf({lg(p0), lg(p1), lg(p2), lg(p2)}));
  EXPECT_EQ(FloatBits(out.at("token_logprob")), FloatBitsOf({lg(p1)}));
  auto ids = Floats(out.at("token_ids_logprobs"));
  EXPECT_EQ(Bits(ids[0]), Bits(lg(p2)));
  EXPECT_TRUE(std::isnan(ids[1]));  // -1 padding
  EXPECT_EQ(Bits(ids[2]), Bits(lg(p0)));
  // log of an underflowed probability is -inf (torch.log(0)), where log_softmax stays finite;
  // SGLang then clamps it to finfo(float32).min = -3.4028235e38 (0xff7fffff):
  // OutputLogprobProcessor.compute_logprobs (layers/logprob_processor.py @d55f1c28).
  TensorMap far = {{"logits", F32Tensor({1, 2}, {0.0f, -200.0f})}, {"token", I64Tensor({1}, {1})}};
  EXPECT_EQ(FloatBits(RunLp("sglang", far, 0, "temperature").at("token_logprob")), (std::vector<std::uint32_t>{0xff7fffffu}));
  EXPECT_EQ(Floats(RunLp("sglang", far, 0, "original").at("token_logprob")), (std::vector<float>{-200.0f}));
}

TEST(Logprobs, SglangClampsMinusInfinityInEveryMode) {
  // A masked (-inf) logit: log_softmax gives -inf, which the clamp turns into -FLT_MAX in the
  // top-n values, the token's value and the requested ids alike; vLLM keeps -inf.
  TensorMap in = {{"logits", F32Tensor({1, 3}, {0.0f, -kInf, 0.0f})},
                  {"token", I64Tensor({1}, {1})},
                  {"token_ids", I32Tensor({1, 1}, {1})}};
  for (const char* mode : {"temperature", "original"}) {
    SCOPED_TRACE(mode);
    auto out = RunLp("sglang", in, 3, mode);
    EXPECT_EQ(FloatBits(out.at("token_logprob")), (std::vector<std::uint32_t>{0xff7fffffu}));
    EXPECT_EQ(FloatBits(out.at("token_ids_logprobs")), (std::vector<std::uint32_t>{0xff7fffffu}));
    EXPECT_EQ(FloatBits(out.at("top_values"))[2], 0xff7fffffu);
  }
  EXPECT_EQ(Floats(RunLp("canonical", in, 3, "raw_logprobs").at("token_logprob")), (std::vector<float>{-kInf}));
}

TEST(Logprobs, VllmLogprobTokenIdsComeFromTheProcessedRowAndReplaceTopN) {
  // vllm/v1/sample/sampler.py @9aaf83ef, Sampler.forward: gather_specific_token_logprobs(logits,
  // ...) reads the logits Sampler.sample divided and filtered in place; compute_token_logprobs
  // is log_softmax + gather; the ranks are (logits > sampled_logits).sum(); padding is -inf;
  // with num_logprobs set too, the token-ids tensors are returned instead of the top-n.
  // Row {0, -L, -2L, -2L}, T = 1, no filter: log_softmax {-L, -2L, -3L, -3L} (the dyadic test),
  // so ids {3, 2} give -3L = -2.0794415 each even in raw_logits mode, where the canonical
  // profile returns the raw logits -2L = -1.3862944.
  TensorMap in = {{"logits", F32Tensor({1, 4}, {0.0f, -kL, -2 * kL, -2 * kL})},
                  {"token", I64Tensor({1}, {0})},
                  {"token_ids", I32Tensor({1, 3}, {3, 2, -1})}};
  auto v = RunLp("vllm", in, 2, "raw_logits");
  EXPECT_EQ(v.at("top_ids").dim(1), 0);
  EXPECT_EQ(v.at("top_values").dim(1), 0);
  EXPECT_EQ(FloatBits(v.at("token_ids_logprobs")), FloatBitsOf({-3 * kL, -3 * kL, -kInf}));
  EXPECT_EQ(FloatBits(v.at("token_logprob")), FloatBitsOf({-kL}));
  EXPECT_EQ(Ints(v.at("token_rank")), (std::vector<std::int64_t>{0}));  // nothing above token 0
  auto c = RunLp("canonical", in, 2, "raw_logits");
  EXPECT_EQ(c.at("top_ids").dim(1), 2);
  auto cv = Floats(c.at("token_ids_logprobs"));
  EXPECT_EQ(Bits(cv[0]), Bits(-2 * kL));
  EXPECT_EQ(Bits(cv[1]), Bits(-2 * kL));
  EXPECT_TRUE(std::isnan(cv[2]));
  // T = 0.5, top_k = 2: y = {0, -2L, -4L, -4L}; vLLM's top-k keeps {0, -2L}, the rest -inf.
  // log_softmax: e = {1, 1/4}, s = 1.25, x = {0 - f32(ln 1.25), -2L - f32(ln 1.25)} (one f32
  // rounding each; f32(ln 1.25) from libm in double rounded once). Token 1 has one logit above.
  in["temperature"] = F32Tensor({1}, {0.5f});
  in["top_k"] = I32Tensor({1}, {2});
  in["token"] = I64Tensor({1}, {1});
  in["token_ids"] = I32Tensor({1, 2}, {1, 2});
  const float ls = static_cast<float>(std::log(1.25));
  auto w = RunLp("vllm", in, 0, "raw_logprobs");
  EXPECT_EQ(FloatBits(w.at("token_ids_logprobs")), FloatBitsOf({-2 * kL - ls, -kInf}));
  EXPECT_EQ(FloatBits(w.at("token_logprob")), FloatBitsOf({-2 * kL - ls}));
  EXPECT_EQ(Ints(w.at("token_rank")), (std::vector<std::int64_t>{1}));
}

// Properties on random rows of small integers (ties are common) and -inf entries.
RC_GTEST_PROP(Logprobs, TopNIsTheDescendingPrefixAndRanksAgree, ()) {
  const auto vocab = *rc::gen::inRange<std::int64_t>(1, 40);
  const auto values = *rc::gen::container<std::vector<int>>(static_cast<std::size_t>(vocab), rc::gen::inRange(-4, 5));
  std::vector<float> row;
  for (int v : values) row.push_back(v == -4 ? -kInf : static_cast<float>(v));
  const auto n = *rc::gen::inRange<std::int64_t>(0, vocab + 1);
  const auto token = *rc::gen::inRange<std::int64_t>(0, vocab);
  TensorMap in = {{"logits", F32Tensor({1, vocab}, row)}, {"token", I64Tensor({1}, {token})}};
  auto c = RunLp("canonical", in, n, "raw_logits");
  const auto ids = Ints(c.at("top_ids"));
  const auto vals = Floats(c.at("top_values"));
  RC_ASSERT(static_cast<std::int64_t>(ids.size()) == n);
  std::vector<bool> listed(static_cast<std::size_t>(vocab), false);
  for (std::size_t j = 0; j < ids.size(); ++j) {
    RC_ASSERT(!listed[static_cast<std::size_t>(ids[j])]);
    listed[static_cast<std::size_t>(ids[j])] = true;
    RC_ASSERT(vals[j] == row[static_cast<std::size_t>(ids[j])]);
    if (j > 0) RC_ASSERT(vals[j - 1] > vals[j] || (vals[j - 1] == vals[j] && ids[j - 1] < ids[j]));
  }
  if (n > 0) {  // nothing left out comes before the last listed entry
    for (std::int64_t i = 0; i < vocab; ++i) {
      if (listed[static_cast<std::size_t>(i)]) continue;
      const float v = row[static_cast<std::size_t>(i)];
      RC_ASSERT(v < vals.back() || (v == vals.back() && i > ids.back()));
    }
  }
  const float tv = row[static_cast<std::size_t>(token)];
  const auto greater = std::count_if(row.begin(), row.end(), [&](float x) { return x > tv; });
  const auto ties = std::count(row.begin(), row.end(), tv);
  RC_ASSERT(Ints(c.at("token_rank"))[0] == 1 + greater);
  RC_ASSERT(Ints(RunLp("vllm", in, n, "raw_logits").at("token_rank"))[0] == greater + ties);
}

RC_GTEST_PROP(Logprobs, TopRanksCountGreaterEntriesWhateverTheSampledToken, ()) {
  // canonical: top_ranks[j] = 1 + #{x_i > x[top_ids[j]]} over the whole row, counted here by
  // brute force (the reference reads it off the list); vllm: j + 1. Neither depends on which
  // token was sampled, listed or not. NaN entries (value -5) and -inf (-4) included.
  const auto vocab = *rc::gen::inRange<std::int64_t>(1, 40);
  const auto values = *rc::gen::container<std::vector<int>>(static_cast<std::size_t>(vocab), rc::gen::inRange(-5, 5));
  std::vector<float> row;
  for (int v : values) {
    row.push_back(v == -5 ? std::numeric_limits<float>::quiet_NaN() : v == -4 ? -kInf : static_cast<float>(v));
  }
  const auto n = *rc::gen::inRange<std::int64_t>(0, vocab + 1);
  const auto token = *rc::gen::inRange<std::int64_t>(0, vocab);
  const auto other = *rc::gen::inRange<std::int64_t>(0, vocab);
  auto run = [&](const std::string& profile, std::int64_t tok) {
    return RunLp(profile, {{"logits", F32Tensor({1, vocab}, row)}, {"token", I64Tensor({1}, {tok})}}, n, "raw_logits");
  };
  auto c = run("canonical", token);
  const auto ids = Ints(c.at("top_ids"));
  const auto ranks = Ints(c.at("top_ranks"));
  RC_ASSERT(static_cast<std::int64_t>(ranks.size()) == n);
  for (std::size_t j = 0; j < ids.size(); ++j) {
    const float v = row[static_cast<std::size_t>(ids[j])];
    RC_ASSERT(ranks[j] == 1 + std::count_if(row.begin(), row.end(), [&](float x) { return x > v; }));
  }
  RC_ASSERT(Ints(run("canonical", other).at("top_ranks")) == ranks);
  std::vector<std::int64_t> positions(static_cast<std::size_t>(n));
  for (std::size_t j = 0; j < positions.size(); ++j) positions[j] = static_cast<std::int64_t>(j) + 1;
  RC_ASSERT(Ints(run("vllm", token).at("top_ranks")) == positions);
  RC_ASSERT(Ints(run("vllm", other).at("top_ranks")) == positions);
}

RC_GTEST_PROP(Logprobs, RowsAreIndependentOfTheirBatch, ()) {
  // Each row's outputs are the same alone and inside a two-row batch (any slot).
  const auto vocab = *rc::gen::inRange<std::int64_t>(2, 20);
  std::vector<float> a, b;
  for (std::int64_t i = 0; i < vocab; ++i) {
    a.push_back(static_cast<float>(*rc::gen::inRange(-64, 64)) / 8.0f);
    b.push_back(static_cast<float>(*rc::gen::inRange(-64, 64)) / 8.0f);
  }
  std::vector<float> both = a;
  both.insert(both.end(), b.begin(), b.end());
  const std::string mode = *rc::gen::element<std::string>("raw_logprobs", "processed_logprobs", "processed_logits");
  auto inputs = [&](const std::vector<float>& rows, std::int64_t r) {
    std::vector<float> t(static_cast<std::size_t>(r), 0.75f);
    std::vector<std::int32_t> k(static_cast<std::size_t>(r), 2);
    std::vector<std::int64_t> tok(static_cast<std::size_t>(r), 1);
    return TensorMap{{"logits", F32Tensor({r, vocab}, rows)}, {"temperature", F32Tensor({r}, t)},
                     {"top_k", I32Tensor({r}, k)}, {"token", I64Tensor({r}, tok)}};
  };
  auto pair = RunLp("vllm", inputs(both, 2), 2, mode);
  auto alone_a = RunLp("vllm", inputs(a, 1), 2, mode);
  auto alone_b = RunLp("vllm", inputs(b, 1), 2, mode);
  auto pv = FloatBits(pair.at("top_values"));
  auto av = FloatBits(alone_a.at("top_values")), bv = FloatBits(alone_b.at("top_values"));
  av.insert(av.end(), bv.begin(), bv.end());
  RC_ASSERT(pv == av);
  RC_ASSERT(Ints(pair.at("token_rank"))[1] == Ints(alone_b.at("token_rank"))[0]);
}

}  // namespace
}  // namespace sampcheck::testing
