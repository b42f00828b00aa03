// SPDX-License-Identifier: Apache-2.0
// Tests of decode_steps (reference/decode_steps.h, docs/spec/decode_steps.md). The greedy walks
// are worked by hand in each comment; the noise tests compare the stage with itself under the
// fault seam (offset not advanced) and with single-row runs (slot and batch independence).
#include <algorithm>
#include <set>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/split_mix64.h"
#include "reference/decode_steps.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

Tensor I64Tensor(Shape shape, const std::vector<std::int64_t>& values) {
  Tensor t(DType::kI64, std::move(shape));
  std::copy(values.begin(), values.end(), t.data<std::int64_t>().begin());
  return t;
}

std::vector<std::int64_t> Tokens(const TensorMap& out) {
  auto d = out.at("tokens").data<std::int64_t>();
  return {d.begin(), d.end()};
}

// logits [rows, steps, vocab] repeating each row's values at every step.
Tensor Repeat(std::int64_t rows, std::int64_t steps, const std::vector<float>& row_values) {
  const auto vocab = static_cast<std::int64_t>(row_values.size()) / rows;
  std::vector<float> v;
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t t = 0; t < steps; ++t) {
      v.insert(v.end(), row_values.begin() + b * vocab, row_values.begin() + (b + 1) * vocab);
    }
  }
  Tensor out(DType::kF32, {rows, steps, vocab});
  std::copy(v.begin(), v.end(), out.data<float>().begin());
  return out;
}

TensorMap GreedyHistory() {
  std::vector<float> ones(2 * 6 * 5, 1.0f);
  Tensor q(DType::kF32, {2, 6, 5});
  std::copy(ones.begin(), ones.end(), q.data<float>().begin());
  return {{"logits", Repeat(2, 6, {3.0f, 2.5f, 2.0f, 1.5f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 5.0f})},
          {"temperature", F32Tensor({2}, {0.0f, 0.0f})},
          {"output_ids", I32Tensor({2, 0}, {})},
          {"frequency_penalty", F32Tensor({2}, {1.0f, 0.0f})},
          {"presence_penalty", F32Tensor({2}, {0.0f, 0.0f})},
          {"repetition_penalty", F32Tensor({2}, {1.0f, 1.0f})},
          {"stop_ids", I32Tensor({2, 1}, {4, 4})},
          {"min_tokens", I32Tensor({2}, {0, 3})},
          {"seed", I64Tensor({2}, {1, 2})},
          {"positions", I64Tensor({2}, {0, 0})},
          {"q", q}};
}

TEST(DecodeSteps, GreedyWalkFollowsTheHistory) {
  // Row 0: {3, 2.5, 2, 1.5, 1}, frequency penalty 1 (each earlier occurrence subtracts 1):
  //   step 0 {}        -> 0 (3)
  //   step 1 {0}       {2, 2.5, 2, 1.5, 1} -> 1
  //   step 2 {0,1}     {2, 1.5, 2, 1.5, 1} -> 0 (tie with 2: lower index)
  //   step 3 {0,1,0}   {1, 1.5, 2, 1.5, 1} -> 2
  //   step 4 +2        {1, 1.5, 1, 1.5, 1} -> 1 (tie with 3)
  //   step 5 +1        {1, 0.5, 1, 1.5, 1} -> 3
  // Row 1: {0, 0, 0, 0, 5}, stop id 4 banned while output_len < min_tokens = 3: steps 0-2 take
  //   the argmax of {0, 0, 0, 0, -inf} = 0; from step 3 on, 4.
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    EXPECT_EQ(Tokens(RunReference("decode_steps", profile, GreedyHistory())),
              (std::vector<std::int64_t>{0, 1, 0, 2, 1, 3, 0, 0, 0, 4, 4, 4}))
        << profile;
  }
}

TEST(DecodeSteps, HeaderExample) {
  // reference/decode_steps.h: logits {0, 0} at both steps, greedy, empty history, frequency
  // penalty 1: step 0 takes the lower index of the tie (0); step 1 sees {-1, 0} -> 1.
  TensorMap in = {{"logits", Repeat(1, 2, {0.0f, 0.0f})},
                  {"temperature", F32Tensor({1}, {0.0f})},
                  {"output_ids", I32Tensor({1, 0}, {})},
                  {"frequency_penalty", F32Tensor({1}, {1.0f})},
                  {"presence_penalty", F32Tensor({1}, {0.0f})},
                  {"repetition_penalty", F32Tensor({1}, {1.0f})},
                  {"seed", I64Tensor({1}, {0})},
                  {"positions", I64Tensor({1}, {0})}};
  EXPECT_EQ(Tokens(RunReference("decode_steps", "canonical", in)), (std::vector<std::int64_t>{0, 1}));
}

TEST(DecodeSteps, WithoutHistoryUpdatesTheWalkStalls) {
  // The fault seam: tokens never join the history, so row 0 repeats step 0's argmax and row 1
  // stays banned (output_len stays 0).
  Case c;
  c.id = "t";
  c.stage = "decode_steps";
  c.profile = Profile::kCanonical;
  c.inputs = GreedyHistory();
  auto out = reference::RunDecodeStepsWith(c, Profile::kCanonical, {1, false});
  EXPECT_EQ(Tokens(out), (std::vector<std::int64_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TensorMap UniformSteps(std::int64_t rows, std::int64_t steps, std::int64_t vocab, std::uint64_t seed) {
  SplitMix64 rng(seed);
  Tensor q(DType::kF32, {rows, steps, vocab});
  for (float& x : q.data<float>()) x = static_cast<float>(1 + (rng.Next() >> 44)) * 0x1p-16f;  // (0, 2^4]
  std::vector<std::int64_t> seeds, pos;
  for (std::int64_t b = 0; b < rows; ++b) seeds.push_back(static_cast<std::int64_t>(rng.Next())), pos.push_back(static_cast<std::int64_t>(rng.Next() >> 44));
  return {{"logits", Tensor(DType::kF32, {rows, steps, vocab})},
          {"temperature", F32Tensor({rows}, std::vector<float>(static_cast<std::size_t>(rows), 1.0f))},
          {"seed", I64Tensor({rows}, seeds)},
          {"positions", I64Tensor({rows}, pos)},
          {"q", q}};
}

TEST(DecodeSteps, EveryStepReadsFreshNoise) {
  // A uniform row over 64 tokens for 8 steps: with the offset advancing, 8 draws from 64
  // tokens are all equal with probability 64^-7; with the offset stuck, every step repeats
  // step 0 (the same inputs).
  for (Profile p : {Profile::kCanonical, Profile::kVllm, Profile::kSglang}) {
    Case c;
    c.id = "t";
    c.stage = "decode_steps";
    c.profile = p;
    c.inputs = UniformSteps(1, 8, 64, 7);
    const auto fresh = Tokens(reference::RunDecodeSteps(c, p));
    EXPECT_GT(std::set<std::int64_t>(fresh.begin(), fresh.end()).size(), 1u) << ProfileName(c.profile);
    const auto stuck = Tokens(reference::RunDecodeStepsWith(c, p, {0, true}));
    EXPECT_EQ(std::set<std::int64_t>(stuck.begin(), stuck.end()).size(), 1u) << ProfileName(c.profile);
    EXPECT_EQ(stuck.front(), fresh.front()) << ProfileName(c.profile);
  }
}

TEST(DecodeSteps, RejectsMalformedInputs) {
  TensorMap in = GreedyHistory();
  in["logits"] = F32Tensor({2, 5}, std::vector<float>(10, 0.0f));  // rank 2
  EXPECT_THROW(RunReference("decode_steps", "canonical", in), std::invalid_argument);
  in = GreedyHistory();
  in["output_len"] = I32Tensor({2}, {0, 0});  // derived, not an input
  EXPECT_THROW(RunReference("decode_steps", "canonical", in), std::invalid_argument);
  in = GreedyHistory();
  in.erase("q");
  EXPECT_THROW(RunReference("decode_steps", "vllm", in), std::invalid_argument);
}

RC_GTEST_PROP(DecodeSteps, ASeededRowIgnoresItsSlotAndNeighbours, ()) {
  // Three rows decoded together equal each row decoded alone, under every profile: the seeded
  // row's tokens do not depend on the batch size, its slot or the other rows.
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const std::string profile = *rc::gen::element<std::string>("canonical", "vllm", "sglang");
  TensorMap batch = UniformSteps(3, 4, 16, seed);
  const auto all = Tokens(RunReference("decode_steps", profile, batch));
  for (std::int64_t b = 0; b < 3; ++b) {
    TensorMap one;
    for (const auto& [name, t] : batch) {
      Shape shape = t.shape();
      shape[0] = 1;
      Tensor row(t.dtype(), shape);
      const std::size_t bytes = row.nbytes();
      std::copy(t.bytes().begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(b) * bytes),
                t.bytes().begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(b + 1) * bytes), row.bytes().begin());
      one.emplace(name, std::move(row));
    }
    const auto alone = Tokens(RunReference("decode_steps", profile, one));
    RC_ASSERT(alone == std::vector<std::int64_t>(all.begin() + b * 4, all.begin() + (b + 1) * 4));
  }
}

}  // namespace
}  // namespace sampcheck::testing
