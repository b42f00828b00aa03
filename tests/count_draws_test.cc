// SPDX-License-Identifier: Apache-2.0
// The reference backend's own draws (reference/count_draws.h): the fast race equals the naive
// race bit for bit, counts have the promised shape, and the statistical verdict on the counts
// is left to draw_harness_test / the calibration test.
#include "reference/count_draws.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "reference/reference_backend.h"

namespace sampcheck::reference {
namespace {

// Every draw path (count_draws.h): the tests compare each one this host runs with the naive race.
constexpr rng::PhiloxIsa kIsas[] = {rng::PhiloxIsa::kScalar, rng::PhiloxIsa::kAvx2, rng::PhiloxIsa::kAvx512};

// The fast paths skip the logarithm of tokens that cannot win and bracket the rest; each must
// pick the same token as the loop that computes every q (ties in probability, zeros and tiny
// weights included), on every path this host runs.
TEST(CountDraws, FastRaceEqualsNaiveRace) {
  const std::vector<std::vector<float>> rows = {
      {1.0f, 0x1p-20f},
      {0.5f, 0.25f, 0.125f, 0.125f, 0.0f},
      std::vector<float>(50, 1.0f),
      std::vector<float>(33, 1.0f),  // one token past the 32 of an AVX2 group
      std::vector<float>(65, 1.0f),  // one token past the 64 of an AVX-512F group
      [] {  // 129 tokens, three groups: ties in probability across the group boundaries
        std::vector<float> r(129);
        for (std::size_t i = 0; i < r.size(); ++i) r[i] = 1.0f / static_cast<float>(1 + i / 40);
        return r;
      }(),
      [] {  // peaked: most tokens are skipped, and the winner changes late in some draws
        std::vector<float> r(300);
        for (std::size_t i = 0; i < r.size(); ++i) r[i] = 1.0f / static_cast<float>((i + 1) * (i + 1));
        return r;
      }(),
      [] {
        std::vector<float> r(1024);
        for (std::size_t i = 0; i < r.size(); ++i) r[i] = i % 3 == 0 ? 0.0f : 1.0f / static_cast<float>(1 + i % 17);
        return r;
      }(),
  };
  int paths = 0;
  std::int64_t redrawn = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    SCOPED_TRACE(k);
    const RaceRow naive(rows[k], rng::PhiloxIsa::kScalar);
    std::vector<RaceRow> fast;
    for (rng::PhiloxIsa isa : kIsas) {
      if (RaceRow::Runs(isa)) fast.emplace_back(rows[k], isa);
    }
    paths = static_cast<int>(fast.size());
    std::vector<std::int64_t> want(2000);
    for (std::uint32_t d = 0; d < 2000; ++d) {
      want[d] = naive.DrawNaive(0x1234, 7, d);
      for (std::size_t i = 0; i < fast.size(); ++i) {
        ASSERT_EQ(fast[i].Draw(0x1234, 7, d), want[d]) << "draw " << d << " path " << i;
      }
    }
    // Many draws at once (lanes = draws), from an offset that is no multiple of 16 and with a
    // tail shorter than the lanes.
    for (std::size_t i = 0; i < fast.size(); ++i) {
      std::vector<std::int64_t> got(1995);
      redrawn += fast[i].DrawMany(0x1234, 7, 3, got);
      for (std::size_t d = 0; d < got.size(); ++d) ASSERT_EQ(got[d], want[d + 3]) << "draw " << d + 3 << " path " << i;
    }
  }
  EXPECT_GE(paths, 1);
  // Near ties of the lanes' keys are drawn again exactly: some were met here (about 1 in 10^4).
  if (paths > 1) {
    EXPECT_GT(redrawn, 0);
  }
}

// Many draws at once on rows the lanes must hand to the per-draw path (a probability outside
// [2^-100, 2^100]: f32 ratios that could underflow or overflow to a tie), on rows at the edges of
// the lanes' range, at the end of the draw range (first_draw + count = 2^32) and with 1 or 2
// tokens.
TEST(CountDraws, DrawManyEqualsNaiveOnExtremeRows) {
  const std::vector<std::vector<float>> rows = {
      {1.0f, 0x1p-110f, 0x1p-110f, 0.5f},           // tiny (below 2^-100): per-draw path
      {0x1p110f, 1.0f, 0x1p100f, 3.0f},             // huge (above 2^100): per-draw path
      {0x1p-149f, 0x1p-149f, 0x1p-149f},            // subnormal ties: every ratio rounds alike
      {0x1p100f, 0x1p-100f, 0x1p-100f, 0x1p100f},   // the lanes' bounds: ties at both ends
      {0x1p-100f, 0x1p-100f, 0x1p-99f},             // tiny ratios near the lanes' floor
      {3.0f},                                       // one token
      {0.0f, 2.0f, 0.0f, 2.0f},                     // two tied tokens among zeros
      std::vector<float>(2000, 0x1p-60f),           // flat, the largest support here
  };
  for (std::size_t k = 0; k < rows.size(); ++k) {
    SCOPED_TRACE(k);
    const RaceRow naive(rows[k], rng::PhiloxIsa::kScalar);
    for (rng::PhiloxIsa isa : kIsas) {
      if (!RaceRow::Runs(isa)) continue;
      const RaceRow race(rows[k], isa);
      for (const std::uint32_t first : {0u, 0xffffffffu - 36u}) {
        std::vector<std::int64_t> got(first == 0 ? 300 : 37);
        race.DrawMany(0xfeed, 2, first, got);
        for (std::size_t d = 0; d < got.size(); ++d) {
          const auto draw = first + static_cast<std::uint32_t>(d);
          const std::int64_t want = naive.DrawNaive(0xfeed, 2, draw);
          ASSERT_EQ(got[d], want) << "draw " << draw << " isa " << static_cast<int>(isa);
          ASSERT_EQ(race.Draw(0xfeed, 2, draw), want) << "draw " << draw << " isa " << static_cast<int>(isa);
        }
      }
    }
  }
}

// The lanes' keys rest on NegLog1pNegApprox (count_draws.h): for every one of the 2^24 values of
// u its relative error against -log1p(-u) (libm in double, an independent source, 1 ulp =
// 2^-52 beside the 2^-15 bound) is within kNegLog1pNegApproxError, +0 at u = 0, and every lane
// path gives the scalar's bits.
TEST(CountDraws, NegLog1pNegApproxIsWithinItsBoundForEveryU) {
  constexpr std::uint32_t kCount = 1u << 24;
  std::vector<std::uint32_t> words(kCount);
  for (std::uint32_t m = 0; m < kCount; ++m) words[m] = m << 8 | (m * 0x9du & 0xffu);  // low bits vary, unused
  std::vector<float> scalar(kCount);
  double worst = 0.0;
  for (std::uint32_t m = 0; m < kCount; ++m) {
    const float a = detail::NegLog1pNegApprox(words[m]);
    scalar[m] = a;
    if (m == 0) {
      ASSERT_EQ(a, 0.0f);
      ASSERT_FALSE(std::signbit(a));
      continue;
    }
    const double u = static_cast<double>(m) * 0x1p-24;
    const double q = -std::log1p(-u);
    worst = std::max(worst, std::abs(static_cast<double>(a) / q - 1.0));
  }
  EXPECT_LE(worst, detail::kNegLog1pNegApproxError);
  RecordProperty("worst_relative_error", std::to_string(worst));
  for (rng::PhiloxIsa isa : kIsas) {
    if (!RaceRow::Runs(isa)) continue;
    std::vector<float> lanes(kCount);
    detail::NegLog1pNegApproxLanes(words, lanes, isa);
    if (std::memcmp(lanes.data(), scalar.data(), kCount * sizeof(float)) == 0) continue;  // the same bits
    for (std::uint32_t m = 0; m < kCount; ++m) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(lanes[m]), std::bit_cast<std::uint32_t>(scalar[m]))
          << "m " << m << " isa " << static_cast<int>(isa);
    }
  }
}

RC_GTEST_PROP(CountDraws, FastRaceEqualsNaiveOnAnyRow, (std::vector<std::uint8_t> weights, std::uint64_t seed)) {
  std::vector<float> probs;
  for (auto w : weights) probs.push_back(static_cast<float>(w % 9) * 0.125f);
  RC_PRE(std::any_of(probs.begin(), probs.end(), [](float p) { return p > 0.0f; }));
  const RaceRow naive(probs, rng::PhiloxIsa::kScalar);
  for (rng::PhiloxIsa isa : kIsas) {
    if (!RaceRow::Runs(isa)) continue;
    const RaceRow race(probs, isa);
    std::vector<std::int64_t> many(64);
    race.DrawMany(seed, 1, 5, many);
    for (std::uint32_t d = 0; d < 64; ++d) {
      RC_ASSERT(race.Draw(seed, 1, d) == naive.DrawNaive(seed, 1, d));
      RC_ASSERT(many[d] == naive.DrawNaive(seed, 1, d + 5));
    }
  }
}

// Weights over a wide range of powers of two (tiny and huge ratios, subnormals, ties, rows the
// lanes hand to the per-draw path): many draws at once equal the naive race.
RC_GTEST_PROP(CountDraws, DrawManyEqualsNaiveOnWideRows, (std::vector<std::uint8_t> exponents, std::uint64_t seed)) {
  std::vector<float> probs;
  for (auto e : exponents) probs.push_back(e % 7 == 0 ? 0.0f : std::ldexp(1.0f + static_cast<float>(e % 3) * 0.25f, e - 150));
  RC_PRE(std::any_of(probs.begin(), probs.end(), [](float p) { return p > 0.0f; }));
  const RaceRow naive(probs, rng::PhiloxIsa::kScalar);
  for (rng::PhiloxIsa isa : kIsas) {
    if (!RaceRow::Runs(isa)) continue;
    const RaceRow race(probs, isa);
    std::vector<std::int64_t> many(40);
    race.DrawMany(seed, 3, 11, many);
    for (std::uint32_t d = 0; d < many.size(); ++d) RC_ASSERT(many[d] == naive.DrawNaive(seed, 3, d + 11));
  }
}

TEST(CountDraws, CountsAreRowsTimesVocabAndSumToDraws) {
  Case c;
  c.id = "exponential_race/count/canonical";
  c.stage = "exponential_race";
  c.profile = Profile::kCanonical;
  c.inputs.emplace("probs", Tensor::FromValues(DType::kF32, {2, 3}, std::vector<float>{1, 0, 1, 0, 0, 2}));
  ReferenceBackend backend;
  ASSERT_TRUE(backend.Capabilities("exponential_race").count_draws);
  EXPECT_FALSE(backend.Capabilities("greedy").count_draws);
  const Tensor counts = backend.CountDraws("exponential_race", c, 1000, 42);
  ASSERT_EQ(counts.shape(), (Shape{2, 3}));
  const auto n = counts.data<std::int64_t>();
  EXPECT_EQ(n[0] + n[2], 1000);
  EXPECT_EQ(n[1], 0);  // probability 0: never drawn
  EXPECT_EQ(n[3], 0);
  EXPECT_EQ(n[4], 0);
  EXPECT_EQ(n[5], 1000);  // the only positive token
  // Same seed, same counts; another seed, other counts.
  const Tensor again = backend.CountDraws("exponential_race", c, 1000, 42);
  EXPECT_TRUE(std::equal(n.begin(), n.end(), again.data<std::int64_t>().begin()));
  const Tensor other = backend.CountDraws("exponential_race", c, 1000, 43);
  EXPECT_NE(other.data<std::int64_t>()[0], n[0]);
}

TEST(CountDraws, PipelineGreedyRowsGiveTheirToken) {
  Case c;
  c.id = "pipeline/count/canonical";
  c.stage = "pipeline";
  c.profile = Profile::kCanonical;
  c.inputs.emplace("logits", Tensor::FromValues(DType::kF32, {2, 3}, std::vector<float>{0, 2, 2, 0, 0, 0}));
  c.inputs.emplace("temperature", Tensor::FromValues(DType::kF32, {2}, std::vector<float>{0.0f, 1.0f}));
  ReferenceBackend backend;
  const Tensor counts = backend.CountDraws("pipeline", c, 300, 1);
  const auto n = counts.data<std::int64_t>();
  EXPECT_EQ(n[0], 0);
  EXPECT_EQ(n[1], 300);  // lowest index among tied maxima
  EXPECT_EQ(n[2], 0);
  EXPECT_EQ(n[3] + n[4] + n[5], 300);
  EXPECT_GT(n[3], 0);
  EXPECT_GT(n[4], 0);
  EXPECT_GT(n[5], 0);
}

TEST(CountDraws, PipelineAppliesBiasAndRejectsOtherStages) {
  Case c;
  c.id = "pipeline/count/canonical";
  c.stage = "pipeline";
  c.profile = Profile::kCanonical;
  c.inputs.emplace("logits", Tensor::FromValues(DType::kF32, {1, 2}, std::vector<float>{0, 0}));
  c.inputs.emplace("temperature", Tensor::FromValues(DType::kF32, {1}, std::vector<float>{1.0f}));
  // A bias of -50 on token 0: its probability is e^-50 ~ 2e-22, never drawn in 10 draws
  // (false-failure probability 2e-21).
  c.inputs.emplace("bias", Tensor::FromValues(DType::kF32, {1, 2}, std::vector<float>{-50.0f, 0.0f}));
  ReferenceBackend backend;
  const Tensor counts = backend.CountDraws("pipeline", c, 10, 1);
  EXPECT_EQ(counts.data<std::int64_t>()[0], 0);
  EXPECT_EQ(counts.data<std::int64_t>()[1], 10);
  EXPECT_THROW(backend.CountDraws("greedy", c, 10, 1), std::exception);
}

}  // namespace
}  // namespace sampcheck::reference
