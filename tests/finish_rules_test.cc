// SPDX-License-Identifier: Apache-2.0
// Tests of finish_rules (reference/finish_rules.h, docs/spec/finish_rules.md). Expected values
// are read off the peers' code paths quoted in the spec (check_stop, Req.check_finished,
// the detokenizers' stop trimming, the min-tokens processors), one row at a time.
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

struct Row {
  std::int64_t token;
  std::int32_t len, max, min;
  bool ignore_eos = false, keep_stop = false;
  std::vector<std::int32_t> eos = {2, 5};
  std::vector<std::int32_t> stop = {0, 7};
};

struct Result {
  std::int32_t reason;
  std::int64_t stop_reason;
  bool keep;
  std::vector<std::int32_t> banned;  // without padding
};

Tensor Bool1(bool v) {
  Tensor t(DType::kBool, {1});
  t.data<std::uint8_t>()[0] = v ? 1 : 0;
  return t;
}

Result RunRow(const std::string& profile, const Row& r) {
  Tensor tok(DType::kI64, {1});
  tok.data<std::int64_t>()[0] = r.token;
  auto out = RunReference("finish_rules", profile,
                          {{"token", tok},
                           {"output_len", I32Tensor({1}, {r.len})},
                           {"max_tokens", I32Tensor({1}, {r.max})},
                           {"min_tokens", I32Tensor({1}, {r.min})},
                           {"ignore_eos", Bool1(r.ignore_eos)},
                           {"keep_stop", Bool1(r.keep_stop)},
                           {"eos_ids", I32Tensor({1, static_cast<std::int64_t>(r.eos.size())}, r.eos)},
                           {"stop_ids", I32Tensor({1, static_cast<std::int64_t>(r.stop.size())}, r.stop)}});
  Result res{out.at("finish_reason").data<std::int32_t>()[0], out.at("stop_reason").data<std::int64_t>()[0],
             out.at("text_keep").data<std::uint8_t>()[0] != 0, {}};
  for (std::int32_t x : out.at("next_banned").data<std::int32_t>()) {
    if (x >= 0) res.banned.push_back(x);
  }
  return res;
}

constexpr std::int32_t kRunning = 0, kStop = 1, kLength = 2;

TEST(FinishRules, EosOnTheLastAllowedTokenIsStopInEveryProfile) {
  // vLLM check_stop (vllm/v1/core/sched/utils.py @9aaf83ef) tests EOS before
  // num_output_tokens >= max_tokens; SGLang Req.update_finish_state
  // (managers/schedule_batch.py @d55f1c28) runs _check_token_based_finish before the
  // max_new_tokens check ("Stop token/EOS beats the length cap"): stop, token trimmed.
  const Row r{2, 4, 4, 0};
  auto v = RunRow("vllm", r);
  EXPECT_EQ(v.reason, kStop);
  EXPECT_EQ(v.stop_reason, -1);  // primary EOS: stop_reason stays None
  EXPECT_FALSE(v.keep);           // stop-terminated, include_stop_str_in_output false
  auto s = RunRow("sglang", r);
  EXPECT_EQ(s.reason, kStop);
  EXPECT_EQ(s.stop_reason, 2);  // FINISH_MATCHED_TOKEN(matched=2)
  EXPECT_FALSE(s.keep);         // trim_matched_stop drops a matched id that is not 0
  EXPECT_EQ(RunRow("canonical", r).stop_reason, 2);
  // A token that matches nothing at the cap: length everywhere.
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    EXPECT_EQ(RunRow(profile, Row{3, 4, 4, 0}).reason, kLength) << profile;
  }
}

TEST(FinishRules, MinTokensGatesVllmButNotSglang) {
  // output_len 1 < min 3: vLLM returns False before any check; SGLang never looks at
  // min_new_tokens in update_finish_state (its penalizer masks the ids instead). vLLM bans
  // all_stop_token_ids = stop_ids ∪ eos_ids at the next step: {0, 2, 5, 7}; SGLang's
  // BatchedMinNewTokensPenalizer._prepare bans stop_token_ids ∪ the tokenizer's EOS (2) ∪
  // additional_stop_token_ids, not the generation-config EOS 5 (req.eos_token_ids): {0, 2, 7}.
  const Row r{7, 1, 8, 3};
  auto v = RunRow("vllm", r);
  EXPECT_EQ(v.reason, kRunning);
  EXPECT_EQ(v.banned, (std::vector<std::int32_t>{0, 2, 5, 7}));
  auto s = RunRow("sglang", r);
  EXPECT_EQ(s.reason, kStop);
  EXPECT_EQ(s.stop_reason, 7);
  EXPECT_EQ(s.banned, (std::vector<std::int32_t>{0, 2, 7}));
  // At output_len == min_tokens the gate (<) is open and nothing is banned.
  auto at = RunRow("vllm", Row{7, 3, 8, 3});
  EXPECT_EQ(at.reason, kStop);
  EXPECT_TRUE(at.banned.empty());
}

TEST(FinishRules, IgnoreEosKeepsStopIdsInVllmOnly) {
  Row r{7, 3, 8, 0};
  r.ignore_eos = true;
  EXPECT_EQ(RunRow("vllm", r).reason, kStop);     // stop_token_ids are checked regardless
  EXPECT_EQ(RunRow("sglang", r).reason, kRunning);  // all token checks sit under `if not ignore_eos`
  r.token = 2;  // the EOS itself: running in both
  EXPECT_EQ(RunRow("vllm", r).reason, kRunning);
  EXPECT_EQ(RunRow("sglang", r).reason, kRunning);
  // ignore_eos does not lift the min-tokens ban on EOS (vLLM adds the EOS to
  // _all_stop_token_ids unconditionally; SGLang's penalizer does not read ignore_eos).
  r.len = 1;
  r.min = 2;
  EXPECT_EQ(RunRow("vllm", r).banned, (std::vector<std::int32_t>{0, 2, 5, 7}));
}

TEST(FinishRules, ModelEosOutsideTheStopListStopsWithItsId) {
  // 5 is a generation-config EOS: vLLM moves it into stop_token_ids (stop_reason 5); SGLang
  // matches req.eos_token_ids.
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    auto r = RunRow(profile, Row{5, 2, 8, 0});
    EXPECT_EQ(r.reason, kStop) << profile;
    EXPECT_EQ(r.stop_reason, 5) << profile;
  }
}

TEST(FinishRules, TextTrimmingOfTheStopToken) {
  // Token 0 as a stop id: SGLang's trim_matched_stop returns early on `if not matched` (0 is
  // falsy), so the token's text stays; vLLM trims it. keep_stop keeps it everywhere.
  EXPECT_TRUE(RunRow("sglang", Row{0, 2, 8, 0}).keep);
  EXPECT_FALSE(RunRow("vllm", Row{0, 2, 8, 0}).keep);
  Row keep{7, 2, 8, 0};
  keep.keep_stop = true;
  EXPECT_TRUE(RunRow("vllm", keep).keep);
  EXPECT_TRUE(RunRow("sglang", keep).keep);
}

TEST(FinishRules, RejectsInconsistentSettings) {
  EXPECT_THROW(RunRow("vllm", Row{1, 0, 8, 0}), std::invalid_argument);   // output_len 0
  EXPECT_THROW(RunRow("vllm", Row{1, 1, 2, 3}), std::invalid_argument);   // min > max
  EXPECT_THROW(RunRow("vllm", Row{-1, 1, 8, 0}), std::invalid_argument);  // negative token
  Row bad{1, 1, 8, 0};
  bad.stop = {-2};
  EXPECT_THROW(RunRow("vllm", bad), std::invalid_argument);
}

RC_GTEST_PROP(FinishRules, ProfilesAgreeAwayFromTheirDivergences, ()) {
  // Without ignore_eos, with output_len >= min_tokens and below max_tokens, all profiles
  // finish on exactly the same tokens; banned is empty iff output_len >= min_tokens.
  Row r{*rc::gen::inRange<std::int64_t>(0, 8), 0, 0, 0};
  r.max = *rc::gen::inRange(2, 10);
  r.min = *rc::gen::inRange(0, r.max);
  r.len = *rc::gen::inRange(r.min == 0 ? 1 : r.min, r.max);
  const auto v = RunRow("vllm", r), s = RunRow("sglang", r), c = RunRow("canonical", r);
  RC_ASSERT(v.reason == s.reason);
  RC_ASSERT(c.reason == v.reason);
  RC_ASSERT((v.reason == kStop) == (r.token == 0 || r.token == 2 || r.token == 5 || r.token == 7));
  RC_ASSERT(v.banned.empty());
  const Row below{r.token, 1, r.max, r.max};
  RC_ASSERT(RunRow("vllm", below).reason == kRunning);
  RC_ASSERT(RunRow("vllm", below).banned == (std::vector<std::int32_t>{0, 2, 5, 7}));
}

}  // namespace
}  // namespace sampcheck::testing
