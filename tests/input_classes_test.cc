// SPDX-License-Identifier: Apache-2.0
// The input classes of docs/spec/input_classes.md on every stage they apply to: non-finite rows
// (a NaN anywhere, a row of NaN, +inf, -inf everywhere but one token, every token masked) in
// the filters, softmax, the draws and the pipeline, under every profile and in f32, f16 and
// bf16; the last vocabulary id V - 1 and the first id out of range, V, in every id-taking
// stage; and half-precision rounding that moves a top-p or min-p boundary. Expected results
// come from the spec's rules (filters.md, softmax.md, draws.md, pipeline.md), not from runs.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/half.h"
#include "core/profile.h"
#include "core/stage_catalogue.h"
#include "golden/case_list.h"
#include "golden/case_random.h"
#include "reference/stage_io.h"
#include "tests/support/stage_runner.h"

namespace sampcheck {
namespace {

using golden::F32;
using golden::I32;
using golden::I64;
using golden::MaskedRows;
using golden::NearEqualLogits;
using golden::SetLogit;
using testing::RunReference;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr std::int64_t kV = 33;  // one past a 32-wide word or warp
constexpr DType kFloatTypes[] = {DType::kF32, DType::kF16, DType::kBF16};

std::vector<std::string> Profiles(const std::string& stage) {
  std::vector<std::string> out;
  for (Profile p : RequireStage(stage).profiles) out.emplace_back(ProfileName(p));
  return out;
}

// Runs and returns the error message, or "" when the stage accepted the input.
std::string ErrorOf(const std::string& stage, const std::string& profile, const TensorMap& in,
                    nlohmann::json params = nlohmann::json::object()) {
  try {
    RunReference(stage, profile, in, std::move(params));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// Logits [2, kV] of `dtype`, zeros, with `value` at flat index `at` (and the whole row 0 set to
// it when `whole_row`).
Tensor RowWith(DType dtype, float value, std::int64_t at, bool whole_row = false) {
  Tensor t(dtype, {2, kV});
  for (std::int64_t i = 0; i < 2 * kV; ++i) SetLogit(t, i, static_cast<float>(i % 7) * 0.25f);
  if (whole_row) {
    for (std::int64_t i = 0; i < kV; ++i) SetLogit(t, i, value);
  } else {
    SetLogit(t, at, value);
  }
  return t;
}

// The filter stages with their most aggressive parameters: every row keeps as few tokens as
// the stage can (top-k 1, top-p 0: the first token of the order, min-p 1: the tied maxima).
struct FilterStage {
  std::string stage;
  TensorMap params;  // per-row parameter tensors for `rows` rows
};

std::vector<FilterStage> FilterStages(std::int64_t rows) {
  const std::vector<std::int32_t> k(static_cast<std::size_t>(rows), 1);
  const std::vector<float> zero(static_cast<std::size_t>(rows), 0.0f), one(static_cast<std::size_t>(rows), 1.0f);
  return {{"top_k", {{"top_k", I32({rows}, k)}}},
          {"top_p", {{"top_p", F32({rows}, zero)}}},
          {"min_p", {{"min_p", F32({rows}, one)}}},
          {"sampling_filters", {{"top_k", I32({rows}, k)}, {"top_p", F32({rows}, zero)}, {"min_p", F32({rows}, one)}}}};
}

TEST(InputClasses, FiltersGiveDegenerateRowsAResultAndLeaveTheOtherRowAlone) {
  // filters.md "Degenerate rows": a NaN or +inf anywhere is a row with a result, never an input
  // error, and the healthy row beside it gets exactly the outputs (logits, and probs for
  // sampling_filters) it gets in a batch without the degenerate row. The results themselves are
  // derived by hand in top_k_test, top_p_test, min_p_test and sampling_filters_test.
  struct Row {
    const char* what;
    float value;
    std::int64_t at;
    bool whole_row;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Row rows[] = {{"one NaN", nan, kV + 5, false}, {"a row of NaN", nan, 0, true}, {"+inf at V - 1", kInf, kV + kV - 1, false}};
  for (const auto& f : FilterStages(2)) {
    for (const auto& profile : Profiles(f.stage)) {
      for (DType dtype : kFloatTypes) {
        for (const Row& r : rows) {
          SCOPED_TRACE(f.stage + "/" + profile + " " + std::string(DTypeName(dtype)) + ": " + r.what);
          TensorMap in = f.params, clean = f.params;
          in.emplace("logits", RowWith(dtype, r.value, r.at, r.whole_row));
          // RowWith's base value at column `at` (i % 7 * 0.25), so `clean` is the unmodified batch.
          clean.emplace("logits", RowWith(dtype, static_cast<float>(r.at % 7) * 0.25f, r.at, false));
          const std::size_t healthy = r.whole_row ? 1 : 1 - static_cast<std::size_t>(r.at / kV);
          const TensorMap out = RunReference(f.stage, profile, in), want = RunReference(f.stage, profile, clean);
          for (const auto& [name, tensor] : want) {
            const auto got_bits = testing::FloatBits(out.at(name)), want_bits = testing::FloatBits(tensor);
            const auto from = static_cast<std::ptrdiff_t>(healthy * kV), to = from + kV;
            EXPECT_TRUE(std::equal(got_bits.begin() + from, got_bits.begin() + to, want_bits.begin() + from))
                << "output '" << name << "', healthy row " << healthy;
          }
        }
      }
    }
  }
}

TEST(InputClasses, FiltersKeepALoneSurvivorAndLeaveFullyMaskedRowsAlone) {
  // filters.md: -inf entries stay -inf; a row with one finite entry keeps it under every
  // parameter (it is the first token of every order and its own maximum); a row without a
  // finite logit is returned unchanged.
  for (const auto& f : FilterStages(3)) {
    for (const auto& profile : Profiles(f.stage)) {
      for (DType dtype : kFloatTypes) {
        SCOPED_TRACE(f.stage + "/" + profile + " " + std::string(DTypeName(dtype)));
        TensorMap in = f.params;
        in.emplace("logits", MaskedRows(kV, dtype));
        const auto out = testing::Floats(RunReference(f.stage, profile, in).at("logits"));
        ASSERT_EQ(out.size(), static_cast<std::size_t>(3 * kV));
        for (std::int64_t i = 0; i < 3 * kV; ++i) {
          const float expected = i == 0 ? 0.5f : i == 2 * kV - 1 ? -3.0f : -kInf;
          EXPECT_EQ(out[static_cast<std::size_t>(i)], expected) << "flat index " << i;
        }
      }
    }
  }
}

TEST(InputClasses, SoftmaxOfMaskedAndNonFiniteRows) {
  // softmax.md "Edge rows": one finite entry -> 1 there, +0 elsewhere (log_softmax 0 and -inf);
  // no finite maximum (all -inf, a NaN, a +inf) -> NaN everywhere, as torch.softmax.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(DTypeName(dtype));
    const auto p =
        testing::Floats(RunReference("softmax", "canonical", {{"logits", MaskedRows(kV, dtype)}}).at("probs"));
    const auto l =
        testing::Floats(RunReference("log_softmax", "canonical", {{"logits", MaskedRows(kV, dtype)}}).at("logprobs"));
    for (std::int64_t i = 0; i < 2 * kV; ++i) {
      const bool survivor = i == 0 || i == 2 * kV - 1;
      EXPECT_EQ(p[static_cast<std::size_t>(i)], survivor ? 1.0f : 0.0f) << i;
      EXPECT_EQ(l[static_cast<std::size_t>(i)], survivor ? 0.0f : -kInf) << i;
    }
    for (std::int64_t i = 2 * kV; i < 3 * kV; ++i) {
      EXPECT_TRUE(std::isnan(p[static_cast<std::size_t>(i)])) << i;
      EXPECT_TRUE(std::isnan(l[static_cast<std::size_t>(i)])) << i;
    }
    for (float bad : {nan, kInf}) {
      const auto q =
          testing::Floats(RunReference("softmax", "canonical", {{"logits", RowWith(dtype, bad, 4)}}).at("probs"));
      for (std::int64_t i = 0; i < kV; ++i) EXPECT_TRUE(std::isnan(q[static_cast<std::size_t>(i)])) << i;
      EXPECT_FALSE(std::isnan(q[static_cast<std::size_t>(kV)]));  // row 1 is clean
    }
  }
}

// Noise [rows, kV] f32: `large` on every column, so that a masked token would win any race it
// were allowed to enter.
Tensor Noise(std::int64_t rows, float large) {
  return F32({rows, kV}, std::vector<float>(static_cast<std::size_t>(rows * kV), large));
}

Tensor ProbsWith(DType dtype, float value, std::int64_t at, bool whole_row = false) {
  Tensor t = RowWith(dtype, 0.25f, 0);
  for (std::int64_t i = 0; i < 2 * kV; ++i) SetLogit(t, i, 0.25f);
  if (whole_row) {
    for (std::int64_t i = 0; i < kV; ++i) SetLogit(t, i, value);
  } else {
    SetLogit(t, at, value);
  }
  return t;
}

// Probabilities [2, kV]: row 0 zero but column 0, row 1 zero but column V - 1.
Tensor OneSurvivorProbs(DType dtype) {
  Tensor t(dtype, {2, kV});
  for (std::int64_t i = 0; i < 2 * kV; ++i) SetLogit(t, i, 0.0f);
  SetLogit(t, 0, 1.0f);
  SetLogit(t, 2 * kV - 1, 0.25f);
  return t;
}

TEST(InputClasses, DrawsGiveDegenerateRowsTheirSpecifiedToken) {
  // draws.md "Degenerate rows": gumbel_max and exponential_race draw the first NaN of a row
  // (torch.argmax's order: NaN above every number), then the first +inf, and token 0 when
  // nothing is drawable; the other row of the batch is unchanged. Known answers by hand:
  // RowWith's row 0 is (i % 7) / 4, maximum 1.5 first at column 6; row 1 is ((33 + j) % 7) / 4,
  // maximum first at column 1; noise 1.0 everywhere adds the same to every score.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto tokens = [](const TensorMap& out) {
    const auto t = out.at("token").data<std::int64_t>();
    return std::vector<std::int64_t>(t.begin(), t.end());
  };
  using Ids = std::vector<std::int64_t>;
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(DTypeName(dtype));
    for (const auto& profile : Profiles("gumbel_max")) {
      SCOPED_TRACE("gumbel_max/" + profile);
      auto run = [&](Tensor scores) {
        return tokens(RunReference("gumbel_max", profile, {{"logprobs", scores}, {"gumbel", Noise(2, 1.0f)}}));
      };
      EXPECT_EQ(run(RowWith(dtype, nan, kV + 5)), (Ids{6, 5}));       // a NaN at row 1, column 5
      EXPECT_EQ(run(RowWith(dtype, nan, 0, true)), (Ids{0, 1}));      // a row of NaN
      EXPECT_EQ(run(RowWith(dtype, kInf, kV + 9)), (Ids{6, 9}));      // +inf wins
      EXPECT_EQ(run(RowWith(dtype, -kInf, 0, true)), (Ids{0, 1}));    // nothing drawable: 0
      Tensor both = RowWith(dtype, kInf, 3);
      SetLogit(both, 20, nan);
      EXPECT_EQ(run(both), (Ids{20, 1}));  // NaN above +inf
      // Noise outside its domain stays an input error.
      EXPECT_NE(ErrorOf("gumbel_max", profile, {{"logprobs", RowWith(dtype, 0.0f, 0)}, {"gumbel", Noise(2, kInf)}}), "");
    }
    for (const auto& profile : Profiles("exponential_race")) {
      SCOPED_TRACE("exponential_race/" + profile);
      // ProbsWith: 0.25 everywhere but `value`; q = 1: every ratio 0.25, the lowest index wins.
      auto run = [&](Tensor probs) { return tokens(RunReference("exponential_race", profile, {{"probs", probs}, {"q", Noise(2, 1.0f)}})); };
      EXPECT_EQ(run(ProbsWith(dtype, nan, kV + 5)), (Ids{0, 5}));
      EXPECT_EQ(run(ProbsWith(dtype, kInf, 3)), (Ids{3, 0}));
      EXPECT_EQ(run(ProbsWith(dtype, 0.0f, 0, true)), (Ids{0, 0}));  // an all-zero row: token 0
      Tensor zero_then_nan = ProbsWith(dtype, 0.0f, 0, true);
      SetLogit(zero_then_nan, 7, nan);
      EXPECT_EQ(run(zero_then_nan), (Ids{7, 0}));
      // A negative probability is not a value a softmax emits: still an input error.
      EXPECT_NE(ErrorOf("exponential_race", profile, {{"probs", ProbsWith(dtype, -0.25f, 3)}, {"q", Noise(2, 1.0f)}}), "");
    }
    // inverse_cdf keeps its input errors (draws.md "Degenerate rows": not yet specified).
    for (const auto& profile : Profiles("inverse_cdf")) {
      SCOPED_TRACE("inverse_cdf/" + profile);
      const Tensor u = F32({2}, {0.5f, 0.5f});
      EXPECT_NE(ErrorOf("inverse_cdf", profile, {{"probs", ProbsWith(dtype, nan, kV + 5)}, {"u", u}}), "");
      EXPECT_NE(ErrorOf("inverse_cdf", profile, {{"probs", ProbsWith(dtype, nan, 0, true)}, {"u", u}}), "");
      EXPECT_NE(ErrorOf("inverse_cdf", profile, {{"probs", ProbsWith(dtype, kInf, 3)}, {"u", u}}), "");
    }
  }
}

TEST(InputClasses, DrawsPickALoneSurvivorWhateverTheNoise) {
  // draws.md: a token of probability zero (score -inf, probability +0) is never drawn, however
  // large its noise: the one drawable token of a row is drawn at every noise value.
  for (DType dtype : kFloatTypes) {
    for (float large : {1e-30f, 1.0f, 3e38f}) {
      SCOPED_TRACE(std::string(DTypeName(dtype)) + " noise " + std::to_string(large));
      for (const auto& profile : Profiles("gumbel_max")) {
        const auto token = RunReference("gumbel_max", profile,
                                        {{"logprobs", MaskedRows(kV, dtype, false)}, {"gumbel", Noise(2, large)}})
                               .at("token");
        EXPECT_EQ(token.data<std::int64_t>()[0], 0);
        EXPECT_EQ(token.data<std::int64_t>()[1], kV - 1);
      }
      for (const auto& profile : Profiles("exponential_race")) {
        const auto token =
            RunReference("exponential_race", profile, {{"probs", OneSurvivorProbs(dtype)}, {"q", Noise(2, large)}})
                .at("token");
        EXPECT_EQ(token.data<std::int64_t>()[0], 0) << profile;
        EXPECT_EQ(token.data<std::int64_t>()[1], kV - 1) << profile;
      }
    }
    for (float u : {0.0f, 0.5f, 0x1.fffffep-1f}) {
      for (const auto& profile : Profiles("inverse_cdf")) {
        const auto token =
            RunReference("inverse_cdf", profile, {{"probs", OneSurvivorProbs(dtype)}, {"u", F32({2}, {u, u})}})
                .at("token");
        EXPECT_EQ(token.data<std::int64_t>()[0], 0) << profile << " u " << u;
        EXPECT_EQ(token.data<std::int64_t>()[1], kV - 1) << profile << " u " << u;
      }
    }
  }
}

// A pipeline batch over `logits` [rows, kV]: temperature per row, no filters, noise for every
// profile (q large on every token, so a masked token would win vLLM's race if it entered it).
TensorMap PipelineInputs(Tensor logits, const std::vector<float>& temperature) {
  const auto rows = logits.dim(0);
  return {{"logits", std::move(logits)},
          {"temperature", F32({rows}, temperature)},
          {"seed", I64({rows}, std::vector<std::int64_t>(static_cast<std::size_t>(rows), 7))},
          {"positions", I64({rows}, std::vector<std::int64_t>(static_cast<std::size_t>(rows), 3))},
          {"q", Noise(rows, 1e-30f)}};
}

TEST(InputClasses, PipelineDrawsALoneSurvivorAndGivesAnEmptyRowToken0) {
  // pipeline.md "Degenerate rows": a random row with every token masked (an empty allowed
  // set) takes token 0 under every profile, as a greedy one does (the argmax's lowest index,
  // greedy.md); a random row with one finite logit draws it. sglang: the same on its mixed
  // path (a greedy row there is a degenerate top_k = 1 row: 0) and its all-greedy path.
  for (const auto& profile : Profiles("pipeline")) {
    for (DType dtype : kFloatTypes) {
      SCOPED_TRACE(profile + " " + std::string(DTypeName(dtype)));
      for (const std::vector<float>& temps : {std::vector<float>{1.0f, 0.5f, 0.0f}, std::vector<float>{1.0f, 0.5f, 1.0f},
                                              std::vector<float>{0.0f, 0.0f, 0.0f}}) {
        const auto token = RunReference("pipeline", profile, PipelineInputs(MaskedRows(kV, dtype), temps)).at("token");
        EXPECT_EQ(token.data<std::int64_t>()[0], 0);
        EXPECT_EQ(token.data<std::int64_t>()[1], kV - 1);
        EXPECT_EQ(token.data<std::int64_t>()[2], 0);
      }
    }
  }
}

TEST(InputClasses, PipelineGivesNanAndPlusInfinityRowsTheirProfilesToken) {
  // pipeline.md "Degenerate rows": a random row holding a NaN or a +inf (at column 5 of row
  // 0) takes canonical's first NaN / first +inf, 5, and vllm's and sglang's 0 (their softmax
  // of the row is NaN everywhere); a greedy row takes the argmax, 5, under every profile (all
  // greedy: sglang's argmax path too). Row 1, healthy, gets the token it gets alone, filtered
  // or not: a degenerate neighbour changes nothing.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const auto& profile : Profiles("pipeline")) {
    const std::int64_t random_token = ParseProfile(profile) == Profile::kCanonical ? 5 : 0;
    for (DType dtype : kFloatTypes) {
      for (float bad : {nan, kInf}) {
        SCOPED_TRACE(profile + " " + std::string(DTypeName(dtype)) + " " + std::to_string(bad));
        const Tensor rows = RowWith(dtype, bad, 5);
        Tensor alone(dtype, {1, kV});
        for (std::int64_t i = 0; i < kV; ++i) SetLogit(alone, i, golden::GetLogit(rows, kV + i));
        for (bool filtered : {false, true}) {
          TensorMap in = PipelineInputs(rows, {1.0f, 1.0f});
          TensorMap one = PipelineInputs(alone, {1.0f});
          if (filtered) {
            in.emplace("top_k", I32({2}, {5, 5}));
            one.emplace("top_k", I32({1}, {5}));
          }
          const auto token = RunReference("pipeline", profile, in).at("token");
          EXPECT_EQ(token.data<std::int64_t>()[0], random_token);
          EXPECT_EQ(token.data<std::int64_t>()[1], RunReference("pipeline", profile, one).at("token").data<std::int64_t>()[0]);
        }
        EXPECT_EQ(RunReference("pipeline", profile, PipelineInputs(rows, {0.0f, 0.0f})).at("token").data<std::int64_t>()[0], 5);
      }
    }
  }
}

// Which tokens survive `stage` (top_p or min_p) on row 0 of `logits` with parameter `x`.
std::int64_t KeptCount(const std::string& stage, const std::string& profile, const Tensor& logits, float x) {
  const auto rows = logits.dim(0);
  const auto out =
      RunReference(stage, profile,
                   {{"logits", logits}, {stage, F32({rows}, std::vector<float>(static_cast<std::size_t>(rows), x))}})
          .at("logits");
  std::int64_t kept = 0;
  for (std::int64_t i = 0; i < logits.dim(1); ++i)
    kept += out.data<float>()[static_cast<std::size_t>(i)] != -kInf ? 1 : 0;
  return kept;
}

TEST(InputClasses, AscendOpRejectsNonFiniteRowsAndSamplesALoneSurvivor) {
  // ascend_top_k_top_p_sample_v2.md "Inputs": no NaN and no +inf in the logits, and every row
  // needs a finite logit; a lone finite logit is the only token of positive probability, so
  // QSample returns it whatever q is.
  const std::string stage = "ascend_top_k_top_p_sample_v2";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(DTypeName(dtype));
    auto inputs = [&](Tensor logits) {
      Tensor top_p(dtype, {2});
      SetLogit(top_p, 0, 0.5f);
      SetLogit(top_p, 1, 0.9f);
      return TensorMap{
          {"logits", std::move(logits)}, {"top_k", I32({2}, {5, 0})}, {"top_p", top_p}, {"q", Noise(2, 1e-30f)}};
    };
    EXPECT_NE(ErrorOf(stage, "ascend_v2", inputs(RowWith(dtype, nan, kV + 5))), "");
    EXPECT_NE(ErrorOf(stage, "ascend_v2", inputs(RowWith(dtype, kInf, 3))), "");
    EXPECT_NE(ErrorOf(stage, "ascend_v2", inputs(RowWith(dtype, -kInf, 0, true))), "");
    const auto token = RunReference(stage, "ascend_v2", inputs(MaskedRows(kV, dtype, false))).at("logits_select_idx");
    EXPECT_EQ(token.data<std::int64_t>()[0], 0);
    EXPECT_EQ(token.data<std::int64_t>()[1], kV - 1);
  }
}

TEST(InputClasses, HalfPrecisionRoundingMovesTopPAndMinPBoundaries) {
  // golden/*/near_equal_v300_bf16 (golden/case_list.h NearEqualLogits): 300 logits within
  // 0.005 of each other in f32, which bf16 rounds into two tie groups of 150, the first at
  // 20.125 and the second at 20. Hand-derived counts:
  // - f32: every probability is within a factor e^0.005 of 1/300, so top-p 0.3 keeps
  //   0.3 * 300 = 90 tokens (the 90th prefix sum is 0.3 + O(1e-5), the 89th below), and every
  //   ratio p_i / p_max >= e^-0.0051 > 0.99 keeps all 300 under min-p 0.9.
  // - bf16: a first-group token has probability e^(1/8) / (150 (1 + e^(1/8))) = 0.0035413, so
  //   the prefix reaches 0.3 at 0.3 / 0.0035413 = 84.7 -> 85 tokens where ties are cut by index;
  //   flashinfer keeps the whole tie group, 150. min-p 0.9 is above the second group's ratio
  //   e^(-1/8) = 0.8825: the first group alone, 150.
  const Tensor f32 = NearEqualLogits(1, 300, DType::kF32);
  const Tensor bf16 = NearEqualLogits(1, 300, DType::kBF16);
  for (const auto& profile : Profiles("top_p")) {
    SCOPED_TRACE("top_p/" + profile);
    EXPECT_EQ(KeptCount("top_p", profile, f32, 0.3f), 90);
    EXPECT_EQ(KeptCount("top_p", profile, bf16, 0.3f), ParseProfile(profile) == Profile::kFlashinfer ? 150 : 85);
  }
  for (const auto& profile : Profiles("min_p")) {
    SCOPED_TRACE("min_p/" + profile);
    EXPECT_EQ(KeptCount("min_p", profile, f32, 0.9f), 300);
    EXPECT_EQ(KeptCount("min_p", profile, bf16, 0.9f), 150);
  }
}

TEST(InputClasses, LastVocabularyIdIsAcceptedAndTheNextOneRejected) {
  // Every id-taking input accepts V - 1 and rejects V (an id outside [0, V) names a token the
  // row does not have: masks.md, logit_bias.md, penalties.md). Output shapes are not checked
  // here: golden/*/last_id_v33 pins the values.
  const Tensor logits = MaskedRows(kV, DType::kF32, false);
  struct IdInput {
    std::string stage;
    std::function<TensorMap(std::int32_t)> inputs;
  };
  const std::vector<IdInput> stages = {
      {"allowed_token_ids",
       [&](std::int32_t id) {
         return TensorMap{{"logits", logits}, {"allowed_ids", I32({2, 1}, {id, 0})}};
       }},
      {"logit_bias",
       [&](std::int32_t id) {
         return TensorMap{{"logits", logits},
                          {"bias_rows", I32({1}, {1})},
                          {"bias_ids", I32({1}, {id})},
                          {"bias_values", F32({1}, {1.0f})}};
       }},
      {"bad_words",
       [&](std::int32_t id) {
         return TensorMap{
             {"logits", logits}, {"output_ids", I32({2, 1}, {-1, -1})}, {"bad_words", I32({2, 1, 1}, {id, -1})}};
       }},
      {"penalties",
       [&](std::int32_t id) {
         return TensorMap{{"logits", logits},
                          {"prompt_ids", I32({2, 1}, {id, -1})},
                          {"output_ids", I32({2, 1}, {-1, id})},
                          {"repetition_penalty", F32({2}, {1.5f, 1.5f})},
                          {"frequency_penalty", F32({2}, {0.5f, 0.5f})},
                          {"presence_penalty", F32({2}, {0.5f, 0.5f})}};
       }},
      {"min_new_tokens",
       [&](std::int32_t id) {
         return TensorMap{{"logits", logits},
                          {"output_len", I32({2}, {0, 0})},
                          {"min_tokens", I32({2}, {1, 1})},
                          {"stop_ids", I32({2, 1}, {id, -1})}};
       }},
  };
  for (const auto& s : stages) {
    for (const auto& profile : Profiles(s.stage)) {
      SCOPED_TRACE(s.stage + "/" + profile);
      EXPECT_EQ(ErrorOf(s.stage, profile, s.inputs(static_cast<std::int32_t>(kV - 1))), "");
      EXPECT_NE(ErrorOf(s.stage, profile, s.inputs(static_cast<std::int32_t>(kV))), "");
    }
  }
}

// A parse reads an input with the dtype and rank of its stage's catalogue entry; asking for an
// input the entry does not list, or as another type, is the parse's defect (std::logic_error),
// while a case whose tensor has another type is the case's (an input error naming it).
TEST(InputClasses, ParsesReadInputsAsTheCatalogueTypesThem) {
  Case c;
  c.stage = "top_k";
  c.inputs.emplace("top_k", I32({2}, {1, 2}));
  const reference::StageInputs in(c, "top_k");
  EXPECT_EQ(in.Required("top_k").dtype(), DType::kI32);  // the catalogue's "i32" "[B]"
  EXPECT_THROW(in.Required("top_k", DType::kI64, 1), std::logic_error);
  EXPECT_THROW(in.Required("top_k", DType::kI32, 2), std::logic_error);
  EXPECT_THROW(in.Optional("draft_ids"), std::logic_error);
  EXPECT_THROW(in.Required("logits"), std::logic_error);  // "f32|f16|bf16": the read must name one
  Case wrong = c;
  wrong.inputs.at("top_k") = F32({2}, {1.0f, 2.0f});
  const reference::StageInputs bad(wrong, "top_k");
  try {
    bad.Required("top_k");
    ADD_FAILURE() << "an f32 top_k was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'top_k' must be i32, got f32"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sampcheck
