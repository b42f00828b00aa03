// SPDX-License-Identifier: Apache-2.0
// Tests of multinomial_with_seed and multinomial_with_seed_token_ids
// (reference/seeded_gumbel.h, docs/spec/draws.md#multinomial_with_seed). Known answers come
// from tests/python/seeded_gumbel_reference.py (SGLang's function rewritten in Python with
// mpmath logarithms; no sampcheck code). The bounded skipping is checked against a plain
// evaluation of every column.
#include "reference/seeded_gumbel.h"

#include <bit>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/split_mix64.h"
#include "reference/math/log.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

Tensor I64Tensor(Shape shape, const std::vector<std::int64_t>& values) {
  return Tensor::FromValues<std::int64_t>(DType::kI64, std::move(shape), values);
}

std::int64_t Draw(const std::vector<float>& probs, std::int64_t seed, std::int64_t position,
                  const std::vector<std::int32_t>& ids = {}) {
  const auto v = static_cast<std::int64_t>(probs.size());
  TensorMap in = {{"probs", F32Tensor({1, v}, probs)}, {"seed", I64Tensor({1}, {seed})}, {"positions", I64Tensor({1}, {position})}};
  if (!ids.empty()) in.emplace("token_ids", I32Tensor({1, v}, ids));
  const char* stage = ids.empty() ? "multinomial_with_seed" : "multinomial_with_seed_token_ids";
  return RunReference(stage, "sglang", std::move(in)).at("token").data<std::int64_t>()[0];
}

// Every column evaluated, no bound: the definition in the header, literally.
std::int64_t PlainColumn(std::span<const float> probs, std::uint64_t seed, std::uint32_t position) {
  std::int64_t best = -1;
  double best_value = 0.0;
  for (std::size_t j = 0; j < probs.size(); ++j) {
    if (!(probs[j] > 0.0f)) continue;
    const double v = math::LogF64Dd(probs[j]) + rng::GumbelSglangFromHashF64(rng::SglangMurmurKey(seed, position, static_cast<std::uint32_t>(j)));
    if (best < 0 || v > best_value) best = static_cast<std::int64_t>(j), best_value = v;
  }
  return best;
}

const std::vector<float> kDyadic = {0.5f, 0.25f, 0.125f, 0.125f};

TEST(SeededGumbel, IndependentKnownAnswers) {
  // /usr/bin/python3 tests/python/seeded_gumbel_reference.py, lines "rank" and "ids".
  EXPECT_EQ(Draw(kDyadic, 0, 0), 0);
  EXPECT_EQ(Draw(kDyadic, 42, 7), 0);
  EXPECT_EQ(Draw(kDyadic, -1, 4294967295), 1);
  EXPECT_EQ(Draw({0.25f, 0.25f, 0.25f, 0.25f}, 1234567890123, 3), 3);
  EXPECT_EQ(Draw({0.0f, 0.0f, 1.0f, 0.0f}, 99, 1), 2);
  const std::vector<float> tenth(10, 0.1f);
  EXPECT_EQ(Draw(tenth, 2024, 11), 1);
  const std::vector<std::int32_t> ids = {7, 3, 151935, 0, 42, 1000, 5, 6, 8, 9};
  const std::vector<std::int32_t> ids4(ids.begin(), ids.begin() + 4);
  EXPECT_EQ(Draw(kDyadic, 0, 0, ids4), 0);
  EXPECT_EQ(Draw(kDyadic, 42, 7, ids4), 0);
  EXPECT_EQ(Draw(kDyadic, -1, 4294967295, ids4), 0);
  EXPECT_EQ(Draw({0.25f, 0.25f, 0.25f, 0.25f}, 1234567890123, 3, ids4), 1);
  EXPECT_EQ(Draw({0.0f, 0.0f, 1.0f, 0.0f}, 99, 1, ids4), 2);
  EXPECT_EQ(Draw(tenth, 2024, 11, ids), 9);
}

TEST(SeededGumbel, RankColumnsEqualIdentityTokenIds) {
  SplitMix64 rng(7);
  std::vector<float> probs(300);
  std::vector<std::int32_t> ids(300);
  for (std::size_t i = 0; i < probs.size(); ++i) probs[i] = static_cast<float>(rng.Below(8)) / 8.0f, ids[i] = static_cast<std::int32_t>(i);
  probs[0] = 1.0f;
  for (std::int64_t pos = 0; pos < 20; ++pos) EXPECT_EQ(Draw(probs, 5, pos), Draw(probs, 5, pos, ids));
}

TEST(SeededGumbel, RejectsBadInput) {
  EXPECT_THROW(Draw({0.0f, 0.0f}, 1, 1), std::invalid_argument);
  EXPECT_THROW(Draw({0.5f, -0.5f}, 1, 1), std::invalid_argument);
  EXPECT_THROW(Draw({0.5f, std::numeric_limits<float>::quiet_NaN()}, 1, 1), std::invalid_argument);
  EXPECT_THROW(Draw({0.5f, 0.5f}, 1, -1), std::invalid_argument);
  EXPECT_THROW(Draw({0.5f, 0.5f}, 1, std::int64_t{1} << 32), std::invalid_argument);
  EXPECT_THROW(Draw({0.5f, 0.5f}, 1, 0, {0, -3}), std::invalid_argument);
  // seed of the wrong dtype
  EXPECT_THROW(RunReference("multinomial_with_seed", "sglang",
                            {{"probs", F32Tensor({1, 2}, {0.5f, 0.5f})}, {"seed", I32Tensor({1}, {1})},
                             {"positions", I64Tensor({1}, {0})}}),
               std::invalid_argument);
}

// The skipping bound never changes the winner: peaked, flat, tiny and subnormal rows against
// the plain evaluation, including the full V = 151936.
TEST(SeededGumbel, BoundedSkippingEqualsPlainEvaluation) {
  SplitMix64 rng(20261122);
  for (std::size_t vocab : {1u, 2u, 37u, 1000u, 151936u}) {
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<float> probs(vocab);
      for (auto& p : probs) {
        const double u = static_cast<double>(rng.Next() >> 11) * 0x1p-53;
        switch (kind) {
          case 0: p = static_cast<float>(u); break;                              // flat
          case 1: p = static_cast<float>(std::exp(-30.0 * u)); break;            // peaked
          case 2: p = static_cast<float>(u * 1e-40); break;                      // subnormal
          default: p = rng.Below(3) == 0 ? 0.0f : static_cast<float>(u * u); break;  // with zeros
        }
      }
      probs[vocab / 2] = kind == 2 ? 1e-45f : 0.75f;
      for (std::uint32_t pos = 0; pos < (vocab > 1000 ? 3u : 40u); ++pos) {
        const std::uint64_t seed = rng.Next();
        ASSERT_EQ(reference::SeededGumbelColumn(probs, seed, pos), PlainColumn(probs, seed, pos))
            << "vocab " << vocab << " kind " << kind << " pos " << pos;
      }
    }
  }
}

// A zero probability is never drawn; a single survivor is always drawn.
RC_GTEST_PROP(SeededGumbel, NeverDrawsZeroProbabilityAndAlwaysTheSoleSurvivor,
              (std::vector<std::uint8_t> weights, std::int64_t seed, std::uint32_t position)) {
  RC_PRE(!weights.empty());
  std::vector<float> probs;
  for (std::uint8_t w : weights) probs.push_back(w % 3 == 0 ? 0.0f : static_cast<float>(w) / 255.0f);
  probs[0] = 0.5f;
  const auto token = static_cast<std::size_t>(Draw(probs, seed, position));
  RC_ASSERT(probs[token] > 0.0f);
  std::vector<float> single(probs.size(), 0.0f);
  const std::size_t at = static_cast<std::size_t>(position) % single.size();
  single[at] = 1e-30f;
  RC_ASSERT(Draw(single, seed, position) == static_cast<std::int64_t>(at));
}

// The token-id variant keys the noise by id, so permuting columns together with their ids
// draws the same id.
RC_GTEST_PROP(SeededGumbel, TokenIdColumnsFollowTheirIds, (std::vector<std::uint8_t> weights, std::int64_t seed)) {
  RC_PRE(weights.size() >= 2);
  std::vector<float> probs;
  std::vector<std::int32_t> ids;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    probs.push_back(static_cast<float>(weights[i] + 1) / 256.0f);
    ids.push_back(static_cast<std::int32_t>(3 * i + 1));
  }
  const auto first = ids[static_cast<std::size_t>(Draw(probs, seed, 9, ids))];
  std::reverse(probs.begin(), probs.end());
  std::reverse(ids.begin(), ids.end());
  RC_ASSERT(ids[static_cast<std::size_t>(Draw(probs, seed, 9, ids))] == first);
}

}  // namespace
}  // namespace sampcheck::testing
