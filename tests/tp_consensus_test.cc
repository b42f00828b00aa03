// SPDX-License-Identifier: Apache-2.0
// Tests of tp_consensus (reference/tp_consensus.h, docs/spec/tp_consensus.md). Expected ids
// are worked by hand from the spec's two rules: sglang takes the MIN over ranks (SGLang's
// all_reduce(op=MIN) in Sampler._sync_token_ids_across_tp), vllm takes rank 0's id.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/case_result.h"
#include "harness/tp_consensus_check.h"
#include "reference/reference_backend.h"
#include "harness/wrong/wrong_samplers.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

struct Consensus {
  std::vector<std::int64_t> token;
  std::vector<std::uint8_t> unanimous;
};

Consensus RunConsensus(const std::string& profile, Tensor rank_ids) {
  const TensorMap out = RunReference("tp_consensus", profile, {{"rank_ids", std::move(rank_ids)}});
  auto t = out.at("token").data<std::int64_t>();
  auto u = out.at("unanimous").data<std::uint8_t>();
  return {{t.begin(), t.end()}, {u.begin(), u.end()}};
}

Tensor I64Tensor(Shape shape, const std::vector<std::int64_t>& values) {
  return Tensor::FromValues<std::int64_t>(DType::kI64, std::move(shape), values);
}

TEST(TpConsensus, HeaderExample) {
  // rank 0 {5, 2, 7}, rank 1 {3, 2, 9}: MIN {3, 2, 7}; rank 0 {5, 2, 7}; only column 1 agrees.
  const Tensor ids = I64Tensor({2, 3}, {5, 2, 7, 3, 2, 9});
  const Consensus sglang = RunConsensus("sglang", ids), vllm = RunConsensus("vllm", ids);
  EXPECT_EQ(sglang.token, (std::vector<std::int64_t>{3, 2, 7}));
  EXPECT_EQ(vllm.token, (std::vector<std::int64_t>{5, 2, 7}));
  EXPECT_EQ(sglang.unanimous, (std::vector<std::uint8_t>{0, 1, 0}));
  EXPECT_EQ(vllm.unanimous, sglang.unanimous);
}

TEST(TpConsensus, FourRanksWithRankZeroLargestAndSmallest) {
  // Columns: rank 0 largest (9 vs 7, 7, 8 -> MIN 7), rank 0 smallest (1 -> 1), a tie below
  // rank 0 (4 vs 8, 5, 4 -> 4), all zero, and INT64_MAX against INT64_MAX - 1.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  const Tensor ids = I64Tensor({4, 5}, {9, 1, 4, 0, kMax,  //
                                        7, 3, 8, 0, kMax - 1,  //
                                        8, 2, 5, 0, kMax,  //
                                        7, 5, 4, 0, kMax});
  EXPECT_EQ(RunConsensus("sglang", ids).token, (std::vector<std::int64_t>{7, 1, 4, 0, kMax - 1}));
  EXPECT_EQ(RunConsensus("vllm", ids).token, (std::vector<std::int64_t>{9, 1, 4, 0, kMax}));
  EXPECT_EQ(RunConsensus("sglang", ids).unanimous, (std::vector<std::uint8_t>{0, 0, 0, 1, 0}));
}

TEST(TpConsensus, AcceptsInt32Ids) {
  // SGLang's sampled ids are int32 (probs_idx.to(torch.int32) in sampler.py).
  const Tensor ids = I32Tensor({3, 2}, {2147483647, 6, 2147483646, 5, 2147483647, 7});
  EXPECT_EQ(RunConsensus("sglang", ids).token, (std::vector<std::int64_t>{2147483646, 5}));
  EXPECT_EQ(RunConsensus("vllm", ids).token, (std::vector<std::int64_t>{2147483647, 6}));
}

TEST(TpConsensus, OneRankIsTheIdentityAndEmptyBatchIsEmpty) {
  const Consensus one = RunConsensus("sglang", I64Tensor({1, 3}, {4, 0, 151935}));
  EXPECT_EQ(one.token, (std::vector<std::int64_t>{4, 0, 151935}));
  EXPECT_EQ(one.unanimous, (std::vector<std::uint8_t>{1, 1, 1}));
  EXPECT_TRUE(RunConsensus("vllm", Tensor(DType::kI64, {4, 0})).token.empty());
}

TEST(TpConsensus, RejectsBadInput) {
  // A negative id (garbage from a rank), no rank, wrong dtype, wrong rank.
  EXPECT_THROW(RunConsensus("sglang", I64Tensor({2, 2}, {1, 2, 3, -1})), std::invalid_argument);
  EXPECT_THROW(RunConsensus("sglang", Tensor(DType::kI64, {0, 3})), std::invalid_argument);
  EXPECT_THROW(RunConsensus("sglang", F32Tensor({2, 1}, {1.0f, 2.0f})), std::invalid_argument);
  EXPECT_THROW(RunConsensus("sglang", I64Tensor({2}, {1, 2})), std::invalid_argument);
  EXPECT_THROW(RunReference("tp_consensus", "canonical", {{"rank_ids", I64Tensor({1, 1}, {0})}}), std::exception);
  try {
    RunConsensus("sglang", I64Tensor({2, 2}, {1, 2, 3, -1}));
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rank_ids[1, 1] = -1"), std::string::npos) << e.what();
  }
}

// MIN is the smallest id of the column, held by at least one rank; rank 0 is rank 0's; both
// are unanimous exactly when min == max.
RC_GTEST_PROP(TpConsensus, MinIsALowerBoundHeldByARank, (std::vector<std::uint16_t> raw, std::uint8_t ranks_raw)) {
  const std::int64_t ranks = 1 + ranks_raw % 8;
  RC_PRE(!raw.empty());
  const std::int64_t batch = static_cast<std::int64_t>(raw.size());
  std::vector<std::int64_t> ids;
  for (std::int64_t r = 0; r < ranks; ++r) {
    for (std::int64_t b = 0; b < batch; ++b) ids.push_back(raw[static_cast<std::size_t>((b + r * 7) % batch)] % 5);
  }
  const Tensor t = I64Tensor({ranks, batch}, ids);
  const Consensus sglang = RunConsensus("sglang", t), vllm = RunConsensus("vllm", t);
  for (std::int64_t b = 0; b < batch; ++b) {
    bool held = false, same = true;
    for (std::int64_t r = 0; r < ranks; ++r) {
      const std::int64_t x = ids[static_cast<std::size_t>(r * batch + b)];
      RC_ASSERT(sglang.token[static_cast<std::size_t>(b)] <= x);
      held = held || x == sglang.token[static_cast<std::size_t>(b)];
      same = same && x == ids[static_cast<std::size_t>(b)];
    }
    RC_ASSERT(held);
    RC_ASSERT(vllm.token[static_cast<std::size_t>(b)] == ids[static_cast<std::size_t>(b)]);
    RC_ASSERT(sglang.unanimous[static_cast<std::size_t>(b)] == (same ? 1 : 0));
  }
}

// Per-rank draws (harness/tp_consensus_check.h, docs/spec/tp_consensus.md "Per-rank draws"):
// the backend's own seeded pipeline draws, run as four ranks, must agree on every row.
TEST(TpRanksCheck, ReferencePassesEveryProfile) {
  reference::ReferenceBackend backend;
  const auto results = harness::CheckTpRanks(backend);
  ASSERT_EQ(results.size(), 3u);  // canonical, vllm, sglang
  for (const auto& r : results) EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
  EXPECT_TRUE(harness::CheckTpRanks(backend, {"decode_steps"}).empty());
  EXPECT_EQ(harness::CheckTpRanks(backend, {}, {"vllm"}).size(), 1u);
}

// The case's rows really draw: flat rows over 64 tokens give different tokens across rows, so
// agreement across ranks is not that of a constant answer.
TEST(TpRanksCheck, TheCaseDrawsDifferentTokensOnItsFlatRows) {
  reference::ReferenceBackend backend;
  for (Profile p : {Profile::kCanonical, Profile::kVllm, Profile::kSglang}) {
    const Case c = harness::TpRanksCheckCase(p);
    const Tensor token = backend.Run("pipeline", c).at("token");
    std::vector<std::int64_t> flat(token.data<std::int64_t>().begin(), token.data<std::int64_t>().begin() + 6);
    std::sort(flat.begin(), flat.end());
    EXPECT_GE(std::unique(flat.begin(), flat.end()) - flat.begin(), 3) << ProfileName(p);
    Case bad = c;
    bad.params["tp_rank"] = -1;
    EXPECT_THROW(backend.Run("pipeline", bad), std::exception);
  }
}

TEST(TpRanksCheck, RejectsRankKeyedAndUnseededPerRankNoise) {
  for (const char* name : {"tp_rank_keyed_noise", "tp_unseeded_rank_uniforms"}) {
    auto backend = statistical::MakeWrongSampler(name);
    const auto results = harness::CheckTpRanks(*backend);
    ASSERT_EQ(results.size(), 3u);
    for (const auto& r : results) {
      EXPECT_EQ(r.verdict, Verdict::kFail) << name << " " << r.id;
      EXPECT_NE(r.reason.find("depends on the rank"), std::string::npos) << r.reason;
    }
  }
}

}  // namespace
}  // namespace sampcheck::testing
