// SPDX-License-Identifier: Apache-2.0
// The noise stage (reference/noise.h, gpu/kernels/noise.cuh, docs/spec/noise.md): known answers for
// both generators' counter layouts, parameter checks, and the emulated kernel bitwise equal to
// the reference.
//
// Expected values: Philox words are rows of tests/rng_known_answers.txt (Random123's
// kat_vectors and rows derived from its Philox4x32-10 definition, checked by
// RngKnownAnswers.EveryRowOfTheFileMatches); the header example is converted by hand below;
// MurmurHash3 values come from the byte-wise MurmurHash3X86_32 over SGLang's 16-byte key,
// itself checked against SMHasher's verification value 0xB0F57EE3 and Ian Boyd's vectors
// (tests/rng_test.cc). The conversions are the ones tests/rng_test.cc pins at boundary words.
// All tests are exact: the false-failure budget is zero.
#include "reference/noise.h"

#include <cinttypes>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "gpu/backend/gpu_backend.h"
#include "reference/math/bits.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"
#include "reference/rng/uniform.h"

namespace sampcheck {
namespace {

using rng::NoiseGenerator;
using rng::NoiseLaw;

::testing::AssertionResult SameF32(float actual, float expected) {
  if (math::F32Bits(actual) == math::F32Bits(expected)) return ::testing::AssertionSuccess();
  char buf[160];
  std::snprintf(buf, sizeof buf, "got %a (0x%08" PRIx32 "), want %a (0x%08" PRIx32 ")", static_cast<double>(actual),
                math::F32Bits(actual), static_cast<double>(expected), math::F32Bits(expected));
  return ::testing::AssertionFailure() << buf;
}

Case NoiseCase(std::vector<std::int64_t> seeds, std::vector<std::int64_t> offsets, const char* generator, const char* law,
               std::int64_t n) {
  Case c;
  c.id = "noise/test/canonical";
  c.stage = "noise";
  c.profile = Profile::kCanonical;
  c.params = {{"generator", generator}, {"law", law}, {"n", n}};
  Tensor s(DType::kI64, {static_cast<std::int64_t>(seeds.size())});
  Tensor o(DType::kI64, {static_cast<std::int64_t>(offsets.size())});
  for (std::size_t i = 0; i < seeds.size(); ++i) s.data<std::int64_t>()[i] = seeds[i];
  for (std::size_t i = 0; i < offsets.size(); ++i) o.data<std::int64_t>()[i] = offsets[i];
  c.inputs.emplace("seed", std::move(s));
  c.inputs.emplace("offset", std::move(o));
  return c;
}

TEST(NoiseStream, HeaderExample) {
  // Word 0 of Philox4x32_10({0, 0, 0, 0}, {0, 0}) is 0x6627e8d5 (Random123 kat_vectors).
  // RN_f32(0x6627e8d5): 31 significant bits, the 7 dropped bits 0x55 > 0x40 round up, so
  // (0x6627e8d5 >> 7) + 1 = 0xcc4fd2 times 2^7; times 2^-32 is 0xcc4fd2 2^-25 = 0x1.989fa4p-2;
  // adding 2^-33 (1/256 ulp) rounds back to it.
  EXPECT_TRUE(SameF32(rng::NoiseSampleF32(NoiseGenerator::kPhilox, NoiseLaw::kUniform, 0, 0), 0x1.989fa4p-2f));
  const TensorMap out = reference::RunNoise(NoiseCase({0}, {0}, "philox", "uniform", 1), Profile::kCanonical);
  EXPECT_TRUE(SameF32(out.at("noise").data<float>()[0], 0x1.989fa4p-2f));
}

// Rows of rng_known_answers.txt with ctr[2] = ctr[3] = 0 (cuRAND subsequence 0): key
// {k0, k1} is seed k0 | k1 << 32, counter block {b0, b1} holds samples c = 4 (b0 | b1 << 32) + j.
struct PhiloxRow {
  int line;
  std::uint64_t seed;
  std::uint64_t block;
  std::uint32_t words[4];
};
constexpr PhiloxRow kPhiloxRows[] = {
    {__LINE__, 0, 0, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
    {__LINE__, 1, 1, {0xac08141bu, 0xdfc5ccbeu, 0x79c07a47u, 0xa7f66093u}},
    {__LINE__, 1, std::uint64_t{1} << 32, {0x833ff8dcu, 0x225c963cu, 0x232b88b3u, 0x0b334b07u}},
    {__LINE__, std::uint64_t{1} << 32, 1, {0xccf3076au, 0x6306f434u, 0xbea71965u, 0xd96fe48au}},
};

TEST(NoiseStage, PhiloxSamplesAreTheCuRandStreamWordsAtTheCounter) {
  for (const PhiloxRow& row : kPhiloxRows) {
    SCOPED_TRACE("known-answer row at line " + std::to_string(row.line));
    // offset 4 block - 1, n 6: the sample before the block, its four words, the next one.
    const auto offset = static_cast<std::int64_t>(4 * row.block) - (row.block > 0 ? 1 : 0);
    for (const char* law : {"uniform", "exponential", "gumbel"}) {
      const TensorMap out = reference::RunNoise(NoiseCase({static_cast<std::int64_t>(row.seed)}, {offset}, "philox", law, 6),
                                                Profile::kCanonical);
      const auto got = out.at("noise").data<float>();
      ASSERT_EQ(got.size(), 6u);
      for (int j = 0; j < 4; ++j) {
        const float u = rng::UniformOpenClosedCurandF32(row.words[j]);
        const float q = rng::ExponentialTorchCudaF32(u);
        const float want = std::string(law) == "uniform" ? u : std::string(law) == "exponential" ? q : -math::LogF32Cr(q);
        EXPECT_TRUE(SameF32(got[static_cast<std::size_t>(j + (row.block > 0 ? 1 : 0))], want)) << law << " word " << j;
      }
    }
  }
}

TEST(NoiseStage, Murmur3SamplesHashSeedPositionColumnWithTheCounterSplitAt32Bits) {
  // offset (7 << 32) + 0xfffffffe, n 3: columns 0xfffffffe, 0xffffffff of position 7, then
  // column 0 of position 8.
  const std::int64_t seed = -2;  // bytes fe ff ff ff ff ff ff ff
  const std::int64_t offset = (std::int64_t{7} << 32) + 0xfffffffe;
  const std::uint32_t keys[3][2] = {{7, 0xfffffffeu}, {7, 0xffffffffu}, {8, 0}};
  for (const char* law : {"uniform", "exponential", "gumbel"}) {
    const auto out = reference::RunNoise(NoiseCase({seed}, {offset}, "murmur3", law, 3), Profile::kCanonical);
    for (int i = 0; i < 3; ++i) {
      const rng::SglangKeyBytes key = rng::SglangMurmurKeyBytes(static_cast<std::uint64_t>(seed), keys[i][0], keys[i][1]);
      const double u = rng::UniformSglangF64(rng::MurmurHash3X86_32(key.b, 16, 0));
      double l = math::LogF64Dd(u);
      l = l < rng::kSglangLogMin ? rng::kSglangLogMin : l > rng::kSglangLogMax ? rng::kSglangLogMax : l;
      const double want = std::string(law) == "uniform" ? u : std::string(law) == "exponential" ? -l : rng::GumbelSglangF64(u);
      EXPECT_TRUE(SameF32(out.at("noise").data<float>()[static_cast<std::size_t>(i)], static_cast<float>(want))) << law << " " << i;
    }
  }
}

TEST(NoiseStage, GeneratorDefaultsToPhiloxAndNToOne) {
  Case c = NoiseCase({5}, {0}, "philox", "exponential", 1);
  c.params = {{"law", "exponential"}};
  const auto out = reference::RunNoise(c, Profile::kCanonical);
  ASSERT_EQ(out.at("noise").shape(), (Shape{1, 1}));
  EXPECT_TRUE(SameF32(out.at("noise").data<float>()[0], rng::NoiseSampleF32(NoiseGenerator::kPhilox, NoiseLaw::kExponential, 5, 0)));
}

TEST(NoiseStage, RejectsBadParametersAndInputsNamingThem) {
  const auto expect_error = [](Case c, const std::string& fragment) {
    try {
      reference::RunNoise(c, Profile::kCanonical);
      ADD_FAILURE() << "no error, wanted one containing '" << fragment << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  Case no_law = NoiseCase({1}, {0}, "philox", "uniform", 1);
  no_law.params.erase("law");
  expect_error(no_law, "parameter law is required");
  expect_error(NoiseCase({1}, {0}, "mt19937", "uniform", 1), "generator = 'mt19937'");
  expect_error(NoiseCase({1}, {0}, "philox", "normal", 1), "law = 'normal'");
  expect_error(NoiseCase({1}, {0}, "philox", "uniform", -1), "parameter n = -1");
  expect_error(NoiseCase({1}, {0}, "philox", "uniform", (std::int64_t{1} << 24) + 1), "[0, 2^24]");
  expect_error(NoiseCase({1}, {-1}, "philox", "uniform", 1), "offset[0] = -1");
  expect_error(NoiseCase({1}, {std::int64_t{1} << 62}, "philox", "uniform", 1), "[0, 2^62)");
  expect_error(NoiseCase({1, 2}, {0}, "philox", "uniform", 1), "offset");
  Case no_seed = NoiseCase({1}, {0}, "philox", "uniform", 1);
  no_seed.inputs.erase("seed");
  expect_error(no_seed, "seed");
}

TEST(NoiseKernel, EmulatedEqualsReferenceAcrossChunkBoundaries) {
  // n = 16384 + 5: two blocks per row, the second partly idle; three rows.
  auto gpu = gpu::MakeGpuEmulatedBackend();
  for (const char* generator : {"philox", "murmur3"}) {
    for (const char* law : {"uniform", "exponential", "gumbel"}) {
      const Case c = NoiseCase({3, -7, 1 << 20}, {0, 4294967290, 11}, generator, law, 16389);
      const Tensor want = reference::RunNoise(c, Profile::kCanonical).at("noise");
      const Tensor got = gpu->Run("noise", c).at("noise");
      ASSERT_EQ(got.shape(), want.shape());
      const auto a = got.data<float>(), b = want.data<float>();
      std::size_t mismatches = 0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (math::F32Bits(a[i]) != math::F32Bits(b[i]) && mismatches++ < 5) {
          ADD_FAILURE() << generator << " " << law << " sample " << i << ": " << SameF32(a[i], b[i]).message();
        }
      }
      EXPECT_EQ(mismatches, 0u) << generator << " " << law;
    }
  }
}

}  // namespace
}  // namespace sampcheck
