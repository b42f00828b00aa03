// SPDX-License-Identifier: Apache-2.0
// The noise harness (harness/noise_harness.h): every generator and conversion of
// reference/rng/ passes at epoch 0, and planted defects are caught: a 16-bit uniform (its
// floor count), a skewed uniform u^1.02 (PIT chi-square and KS), an Exp(1) with a light tail
// (tail counts). Through the noise stage: the reference and gpu-emulated backends pass, a
// backend with biased Exp(1) noise, one with 16-bit uniforms and one that cannot produce
// noise fail, and a backend that does not declare the stage is not asked. The endpoint probes
// hit their words, and an Exp(1) with an atom at q = +0 (2^-25 or 2^-24) fails them.
//
// Error budget: each run is one Holm family at alpha 1e-4 with fixed seeds; the pass test
// can fail falsely with probability <= 1e-4 before the seed is fixed. The defects are far
// beyond the declared alternatives (floor 2^-16 = 256x, tails 2x) or the PIT's TV 0.01 at
// n = 2^20, where the power printed in each result is >= 0.99.
#include "harness/noise_harness.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>

#include <gtest/gtest.h>

#include "core/stage_catalogue.h"
#include "gpu/backend/gpu_backend.h"
#include "reference/reference_backend.h"
#include "reference/rng/philox.h"
#include "reference/rng/uniform.h"
#include "core/split_mix64.h"
#include "harness/draw_harness.h"
#include "harness/wrong/wrong_samplers.h"
#include "reference/rng/noise_stream.h"

namespace sampcheck::statistical {
namespace {

std::uint32_t Word(std::uint64_t seed, std::uint64_t i) {
  return rng::Philox4x32_10({{static_cast<std::uint32_t>(i / 4), 0, 0, 0x7e57}},
                            {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}})
      .v[i % 4];
}

bool Failed(std::vector<CaseResult> results, const std::string& suffix) {
  ApplyHolm(results, kFamilyWiseAlpha);
  for (const auto& r : results) {
    if (r.id.size() >= suffix.size() && r.id.compare(r.id.size() - suffix.size(), suffix.size(), suffix) == 0) {
      std::printf("%s: %s\n", r.id.c_str(), r.reason.c_str());
      return r.verdict == Verdict::kFail;
    }
  }
  ADD_FAILURE() << "no result ending in " << suffix;
  return false;
}

TEST(NoiseHarness, EverySourcePassesWithCompleteReports) {
  const auto results = RunNoiseHarness(0, false);
  EXPECT_EQ(static_cast<std::int64_t>(results.size()), NoiseFamilySize());
  EXPECT_EQ(NoiseSources().size(), 7u);
  for (const auto& r : results) {
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
    EXPECT_EQ(r.stage, "noise");
    ASSERT_TRUE(r.statistics.has_value()) << r.id;
    EXPECT_FALSE(r.statistics->test.empty()) << r.id;
    EXPECT_GT(r.statistics->n, 0) << r.id;
    EXPECT_TRUE(r.statistics->effect.has_value()) << r.id;
    if (r.statistics->test == "pit-chi-square") {
      EXPECT_EQ(r.statistics->bins, 100);
      EXPECT_GE(r.statistics->power, 0.99) << r.id;
    }
  }
}

TEST(NoiseHarness, SixteenBitUniformFailsItsFloorCount) {
  const NoiseSource bad{"test/uniform_16bit", ContinuousLaw::kUniform01, NoiseFloor::kExactZero,
                        [](std::uint64_t s, std::uint64_t i) { return static_cast<double>(Word(s, i) >> 16) * 0x1p-16; }};
  EXPECT_TRUE(Failed(RunNoiseSource(bad, 0, kNoiseCiN), "/floor"));
}

TEST(NoiseHarness, SkewedUniformFailsPitAndKs) {
  const NoiseSource bad{"test/uniform_pow", ContinuousLaw::kUniform01, NoiseFloor::kNone, [](std::uint64_t s, std::uint64_t i) {
                          return std::pow(static_cast<double>(rng::UniformClosedOpen53F64(Word(s, 2 * i), Word(s, 2 * i + 1))), 1.02);
                        }};
  EXPECT_TRUE(Failed(RunNoiseSource(bad, 0, kNoiseCiN), "/pit"));
  EXPECT_TRUE(Failed(RunNoiseSource(bad, 0, kNoiseCiN), "/ks"));
}

TEST(NoiseHarness, LightTailedExponentialFailsItsTailCount) {
  // min(-log u, 6.9): nothing beyond the 1 - 1e-3 quantile 6.9078 (expected 1049 of 2^20).
  const NoiseSource bad{"test/exp_clipped", ContinuousLaw::kExponential1, NoiseFloor::kNone, [](std::uint64_t s, std::uint64_t i) {
                          const double u = rng::UniformClosedOpen53F64(Word(s, 2 * i), Word(s, 2 * i + 1));
                          return std::min(-std::log1p(-u), 6.9);
                        }};
  EXPECT_TRUE(Failed(RunNoiseSource(bad, 0, kNoiseCiN), "/tail_above_0.999"));
}

// The reference with the noise stage's output rewritten by `fault` (samples, law).
class FaultyNoiseBackend final : public Backend {
 public:
  using Fault = std::function<void(std::span<float>, const std::string& law, const std::string& generator)>;
  explicit FaultyNoiseBackend(Fault fault) : fault_(std::move(fault)) {}
  std::string Name() const override { return "test:faulty_noise"; }
  std::vector<std::string> SupportedStages() const override { return {NoiseStage().name}; }
  TensorMap Run(const std::string& stage, const Case& c) override {
    TensorMap out = ref_.Run(stage, c);
    fault_(out.at("noise").data<float>(), c.params["law"].get<std::string>(), c.params["generator"].get<std::string>());
    return out;
  }

 private:
  Fault fault_;
  reference::ReferenceBackend ref_;
};

// A result under `prefix` that fails, with a raw p below the Holm-worst level of the whole
// noise family (1e-4 / 60), so it is rejected in any run's Holm family that holds it (the
// fault tests below run only the sources their fault touches, to keep CI time small).
bool AnyFailure(const std::vector<CaseResult>& results, const std::string& prefix) {
  bool failed = false;
  const double level = kFamilyWiseAlpha / static_cast<double>(BackendNoiseFamilySize());
  for (const auto& r : results) {
    if (r.verdict == Verdict::kFail && r.id.rfind(prefix, 0) == 0 &&
        (!r.statistics || r.statistics->p_value < level)) {
      std::printf("%s: %s\n", r.id.c_str(), r.reason.c_str());
      failed = true;
    }
  }
  return failed;
}

TEST(BackendNoiseHarness, ReferencePassesEverySourceWithStatedPower) {
  reference::ReferenceBackend ref;
  ASSERT_TRUE(DeclaresNoiseStage(ref));
  const auto results = RunBackendNoiseHarness(ref, 0, false);
  // The family's p-values plus three structural checks per source (support, offset, seeds) and
  // the endpoint probes of the three philox sources.
  std::int64_t structural = 0;
  for (const auto& r : results) structural += r.statistics && r.statistics->layer == TestLayer::kStructural;
  EXPECT_EQ(structural, 3 * 6 + 3);
  EXPECT_EQ(static_cast<std::int64_t>(results.size()) - structural, BackendNoiseFamilySize());
  EXPECT_EQ(BackendNoiseSources().size(), 6u);
  for (const auto& r : results) {
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
    if (r.statistics && (r.statistics->test == "pit-chi-square" || r.statistics->test == "ks")) {
      EXPECT_GE(r.statistics->power, 0.99) << r.id;
    }
  }
}

TEST(BackendNoiseHarness, GpuEmulatedPassesThroughItsKernel) {
  auto gpu = gpu::MakeGpuEmulatedBackend();
  ASSERT_TRUE(DeclaresNoiseStage(*gpu));
  for (const auto& r : RunBackendNoiseHarness(*gpu, 0, false)) EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
}

TEST(BackendNoiseHarness, BiasedExponentialNoiseIsRejected) {
  // Exp(1) * 1.05: KS distance 0.05 / e = 0.018 at x = 1, beyond the declared 0.01 (power >= 0.99).
  FaultyNoiseBackend bad([](std::span<float> x, const std::string& law, const std::string&) {
    if (law == "exponential") for (float& v : x) v *= 1.05f;
  });
  const auto results = RunBackendNoiseHarness(bad, 0, false, true, {"philox/exponential", "murmur3/exponential", "philox/uniform"});
  EXPECT_TRUE(AnyFailure(results, "noise/philox/exponential/ks"));
  EXPECT_TRUE(AnyFailure(results, "noise/murmur3/exponential/ks"));
  EXPECT_FALSE(AnyFailure(results, "noise/philox/uniform/"));
}

TEST(BackendNoiseHarness, SixteenBitUniformIsRejectedByItsAtomCount) {
  // A (0, 1] uniform of 16 bits, ((w >> 16) + 1) 2^-16 with w the top bits of the reference's
  // sample: u = 1.0 with probability 2^-16 instead of curand_uniform's 2^-25 (16 expected at
  // n = 2^20 instead of 1/32). SGLang's [0, 1] uniform of 16 bits, (h >> 16) / 65535: u = 0
  // with probability 2^-16 instead of 2^-32.
  FaultyNoiseBackend bad([](std::span<float> x, const std::string& law, const std::string& generator) {
    if (law != "uniform") return;
    for (float& v : x) {
      const auto top = static_cast<std::uint32_t>(static_cast<double>(v) * 65536.0);  // [0, 65536]
      v = generator == "philox" ? static_cast<float>(std::min(top, 65535u) + 1) * 0x1p-16f
                                : static_cast<float>(std::min(top, 65535u)) / 65535.0f;
    }
  });
  const auto results = RunBackendNoiseHarness(bad, 0, false, true, {"philox/uniform", "murmur3/uniform"});
  EXPECT_TRUE(AnyFailure(results, "noise/philox/uniform/floor"));
  EXPECT_TRUE(AnyFailure(results, "noise/murmur3/uniform/floor"));
}

// The result whose id is exactly `id`, or a test failure.
const CaseResult& Find(const std::vector<CaseResult>& results, const std::string& id) {
  for (const auto& r : results) {
    if (r.id == id) return r;
  }
  ADD_FAILURE() << "no result " << id;
  static const CaseResult none;
  return none;
}

// L1 (alpha 0): 20 planted values outside a source's range among 2^20 samples used to pass all
// of the battery; each now fails noise/<source>/support with the count and the first index.
TEST(BackendNoiseHarness, SamplesOutsideTheRangeFailTheSupportCheckWithCountAndFirstIndex) {
  struct Plant {
    std::string source;
    float value;
  };
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<Plant> plants = {
      {"philox/exponential", inf},   {"philox/exponential", -inf},  {"murmur3/exponential", 3e38f},
      {"philox/exponential", -0.5f}, {"murmur3/exponential", -1.0f}, {"philox/uniform", 1.5f},
      {"murmur3/uniform", -0.5f},    {"philox/uniform", 0.0f},       {"philox/exponential", 0.0f},
      {"murmur3/exponential", 0.0f}, {"philox/gumbel", -inf},        {"murmur3/gumbel", inf},
      {"philox/gumbel", std::numeric_limits<float>::quiet_NaN()},
  };
  for (const Plant& plant : plants) {
    SCOPED_TRACE(plant.source + " " + std::to_string(plant.value));
    FaultyNoiseBackend bad([&](std::span<float> x, const std::string&, const std::string&) {
      if (x.size() != static_cast<std::size_t>(kNoiseCiN)) return;  // the main request only, not the probes
      for (std::size_t k = 0; k < 20; ++k) x[1000 + 40000 * k] = plant.value;  // 20 values, first at 1000
    });
    const auto results = RunBackendNoiseHarness(bad, 0, false, true, {plant.source});
    const CaseResult& r = Find(results, "noise/" + plant.source + "/support");
    EXPECT_EQ(r.verdict, Verdict::kFail) << r.reason;
    EXPECT_NE(r.reason.find("20 of 1048576 samples"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("first: sample 1000 ="), std::string::npos) << r.reason;
    std::printf("%s: %s\n", r.id.c_str(), r.reason.c_str());
  }
}

// The probe counters are where the spec's generator is at an edge: each word recomputed from
// Philox4x32-10 (reference/rng/philox.h, checked against Random123's vectors in rng_test.cc),
// and the reference's samples there are the edge values the conversions' contracts state:
// curand_uniform gives 1.0 for words >= 0xffffff80 and 1 - 2^-24 just below; PyTorch's clamp
// gives q = 2^-24 for both (docs/spec/noise.md "Samples"); a word below 2^8 gives u <= 2^-24.
TEST(BackendNoiseHarness, EndpointProbesHitTheirWords) {
  for (const NoiseEndpointProbe& probe : kPhiloxEndpointProbes) {
    SCOPED_TRACE(probe.counter);
    EXPECT_EQ(rng::CurandPhiloxWord(kNoiseEndpointSeed, 0, probe.counter), probe.word);
    const float u = rng::UniformOpenClosedCurandF32(probe.word);
    const float q = rng::NoiseSampleF32(rng::NoiseGenerator::kPhilox, rng::NoiseLaw::kExponential, kNoiseEndpointSeed, probe.counter);
    if (probe.word >= 0xffffff80u) {
      EXPECT_EQ(u, 1.0f);
      EXPECT_EQ(q, 0x1p-24f);
    } else if (probe.word >= 0xffffff00u) {
      EXPECT_EQ(u, 1.0f - 0x1p-24f);
      EXPECT_EQ(q, 0x1p-24f);
    } else {
      EXPECT_LT(probe.word, 0x100u);
      EXPECT_LE(u, 0x1p-24f);
      EXPECT_GT(q, 16.6f);
    }
  }
}

// An Exp(1) with an atom at q = +0 outside its range [2^-24, 33 ln 2]: at the CI n the random
// stream meets an atom of 2^-24 with probability 6% only, the endpoint probes every time.
TEST(BackendNoiseHarness, AnExponentialAtomAtZeroFailsTheEndpointProbes) {
  for (const char* name : {"noise_exponential_unclamped", "noise_exponential_24bit_zero"}) {
    SCOPED_TRACE(name);
    auto bad = MakeWrongSampler(name);
    const auto results = RunBackendNoiseHarness(*bad, 0, false, true, {"philox/exponential", "philox/gumbel", "philox/uniform"});
    const CaseResult& q = Find(results, "noise/philox/exponential/endpoints");
    EXPECT_EQ(q.verdict, Verdict::kFail);
    EXPECT_NE(q.reason.find("gave 0 ="), std::string::npos) << q.reason;
    std::printf("%s: %s\n", q.id.c_str(), q.reason.c_str());
    EXPECT_EQ(Find(results, "noise/philox/gumbel/endpoints").verdict, Verdict::kFail);  // g = -log(+0) = +inf
    EXPECT_EQ(Find(results, "noise/philox/uniform/endpoints").verdict, Verdict::kPass);
  }
}

// A sorted stream has the law's values in the wrong order: the lag-1 correlation is about 1
// and there are 2 runs instead of n / 2 (order p far below 1e-100).
TEST(BackendNoiseHarness, ASortedStreamFailsTheOrderTest) {
  FaultyNoiseBackend bad([](std::span<float> x, const std::string&, const std::string&) { std::sort(x.begin(), x.end()); });
  const auto results = RunBackendNoiseHarness(bad, 0, false, true, {"philox/exponential", "murmur3/gumbel"});
  EXPECT_TRUE(AnyFailure(results, "noise/philox/exponential/order"));
  EXPECT_TRUE(AnyFailure(results, "noise/murmur3/gumbel/order"));
}

// No randomness at all: the quantile grid (i + 1/2) / n of U(0, 1), shuffled by a fixed
// Fisher–Yates (SplitMix64), so neighbours are unrelated and the serial tests see nothing;
// every PIT bin holds n / 100 +- 1, X^2 of order 1e-3 against df = 99: the too-even tail's
// p is below 1e-60.
TEST(BackendNoiseHarness, AShuffledQuantileGridFailsTheOrderTestAsTooEven) {
  FaultyNoiseBackend bad([](std::span<float> x, const std::string& law, const std::string&) {
    if (law != "uniform") return;
    const std::size_t n = x.size();
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>((static_cast<double>(i) + 0.5) / static_cast<double>(n));
    SplitMix64 rng(0x9e3779b97f4a7c15ULL);
    for (std::size_t i = n; i > 1; --i) std::swap(x[i - 1], x[rng.Next() % i]);
  });
  const auto results = RunBackendNoiseHarness(bad, 0, false, true, {"philox/uniform", "murmur3/uniform"});
  EXPECT_TRUE(AnyFailure(results, "noise/philox/uniform/order"));
  EXPECT_TRUE(AnyFailure(results, "noise/murmur3/uniform/order"));
  EXPECT_EQ(Find(results, "noise/philox/uniform/support").verdict, Verdict::kPass);
}

// The reference with every row's seed (and, with `keep_offset` false, offset) replaced by 0.
class IgnoresKeyBackend final : public Backend {
 public:
  explicit IgnoresKeyBackend(bool keep_offset) : keep_offset_(keep_offset) {}
  std::string Name() const override { return "test:ignores_key"; }
  std::vector<std::string> SupportedStages() const override { return {NoiseStage().name}; }
  TensorMap Run(const std::string& stage, const Case& c) override {
    Case copy = c;
    for (auto& v : copy.inputs.at("seed").data<std::int64_t>()) v = 0;
    if (!keep_offset_) {
      for (auto& v : copy.inputs.at("offset").data<std::int64_t>()) v = 0;
    }
    return ref_.Run(stage, copy);
  }

 private:
  bool keep_offset_;
  reference::ReferenceBackend ref_;
};

// A backend that ignores the seed returns the same stream for every seed (correlation 1 at a
// second seed); one that also ignores the offset returns counters 0.. for any offset.
TEST(BackendNoiseHarness, ABackendThatIgnoresSeedOrOffsetFailsTheStreamChecks) {
  IgnoresKeyBackend seedless(/*keep_offset=*/true);
  auto results = RunBackendNoiseHarness(seedless, 0, false, true, {"philox/gumbel"});
  EXPECT_EQ(Find(results, "noise/philox/gumbel/seeds").verdict, Verdict::kFail);
  EXPECT_EQ(Find(results, "noise/philox/gumbel/offset").verdict, Verdict::kPass);
  IgnoresKeyBackend keyless(/*keep_offset=*/false);
  results = RunBackendNoiseHarness(keyless, 0, false, true, {"murmur3/uniform"});
  const CaseResult& off = Find(results, "noise/murmur3/uniform/offset");
  EXPECT_EQ(off.verdict, Verdict::kFail);
  EXPECT_NE(off.reason.find("differ from the same counters"), std::string::npos) << off.reason;
  EXPECT_EQ(Find(results, "noise/murmur3/uniform/seeds").verdict, Verdict::kFail);
}

TEST(BackendNoiseHarness, ABackendThatThrowsFailsEachSourceWithItsMessage) {
  FaultyNoiseBackend bad([](std::span<float>, const std::string&, const std::string&) { throw std::runtime_error("device lost"); });
  const auto results = RunBackendNoiseHarness(bad, 0, false);
  ASSERT_EQ(results.size(), BackendNoiseSources().size());
  for (const auto& r : results) {
    EXPECT_EQ(r.verdict, Verdict::kFail);
    EXPECT_NE(r.reason.find("device lost"), std::string::npos) << r.reason;
  }
}

TEST(BackendNoiseHarness, OnlyBackendsThatDeclareTheStageAreAsked) {
  class NoNoise final : public Backend {
   public:
    std::string Name() const override { return "test:no_noise"; }
    std::vector<std::string> SupportedStages() const override { return {"greedy"}; }
    TensorMap Run(const std::string&, const Case&) override { return {}; }
  };
  NoNoise b;
  EXPECT_FALSE(DeclaresNoiseStage(b));
  EXPECT_NE(NoiseStage().OutputWithRole(Role::kNoise), nullptr);
}

}  // namespace
}  // namespace sampcheck::statistical
