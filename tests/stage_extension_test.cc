// SPDX-License-Identifier: Apache-2.0
// Adding a stage touches only its own files and one catalogue entry (docs/contributing.md
// "Adding a stage", docs/architecture.md "One place per stage"). This file is the proof: a toy
// stochastic stage, `toy_race`
// (token = argmax over i of weights[i] / q[i], q ~ Exp(1), i.e. a draw from weights / sum),
// is defined here alone — its catalogue entry, its reference implementation and its case
// family — and the existing layers pick it up by asking the catalogue: golden generation
// (v1 and the full set's large-vocabulary cases), golden verification, the exact target and
// the draw harness with its harness-supplied noise, which accepts the correct toy and rejects
// a wrong one.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/stage_catalogue.h"
#include "golden/case_family.h"
#include "golden/generator.h"
#include "golden/verifier.h"
#include "reference/reference_backend.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"
#include "harness/draw_harness.h"
#include "statistical/exact_target.h"

namespace sampcheck {
namespace {

constexpr char kToy[] = "toy_race";

StageInfo ToyStageInfo() {
  return {kToy,
          "argmax(weights / q): a draw from the normalised weights",
          {{"weights", "f32", "[B, V]", false, "non-negative weights", Role::kProbs},
           {"q", "f32", "[B, V]", false, "Exp(1) noise", Role::kNoise}},
          {{"token", "i64", "[B]", false, "drawn token", Role::kToken}},
          {},
          Tier::kExact,
          "exact",
          {Profile::kCanonical},
          "tests/stage_extension_test.cc",
          {ExactTargetKind::kNormalisedProbs, HarnessNoise::kExponential}};
}

// argmax_i w_i / q_i, lowest index on ties; `square` plants a fault (w_i^2 / q_i).
TensorMap Race(const Case& c, bool square) {
  const Tensor& w = c.inputs.at("weights");
  const Tensor& q = c.inputs.at("q");
  const std::int64_t rows = w.dim(0), vocab = w.dim(1);
  Tensor token(DType::kI64, {rows});
  for (std::int64_t b = 0; b < rows; ++b) {
    std::int64_t best = 0;
    float best_ratio = -1.0f;
    for (std::int64_t i = 0; i < vocab; ++i) {
      const auto at = static_cast<std::size_t>(b * vocab + i);
      const float wi = w.data<float>()[at];
      const float ratio = (square ? wi * wi : wi) / q.data<float>()[at];
      if (ratio > best_ratio) {
        best_ratio = ratio;
        best = i;
      }
    }
    token.data<std::int64_t>()[static_cast<std::size_t>(b)] = best;
  }
  return {{"token", token}};
}

TensorMap RunToyRace(const Case& c, Profile) { return Race(c, false); }

// The stage's three pieces, each registered from "its own file" (here, this one).
const ScopedStageRegistration kCatalogueEntry(ToyStageInfo());
const reference::ScopedReferenceStage kReferenceEntry(kToy, RunToyRace);

Tensor Row(std::vector<float> values) {
  Tensor t(DType::kF32, {1, static_cast<std::int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.data<float>().begin());
  return t;
}

void AddToyCases(golden::CaseList& list) {
  // q = 1 everywhere: the race is the argmax of the weights, token 1 (0.5 is the largest).
  list.Add(kToy, "dyadic_v4", {{"weights", Row({0.25f, 0.5f, 0.125f, 0.125f})}, {"q", Row({1, 1, 1, 1})}});
}

TensorMap LargeToyInputs(const std::string&, golden::SplitMix64& rng, std::int64_t vocab) {
  Tensor q(DType::kF32, {1, vocab});
  for (float& x : q.data<float>()) x = static_cast<float>(1 + rng.Below(1u << 20)) * 0x1p-18f;  // (0, 4]
  return {{"q", q}};
}

SAMPCHECK_CASE_FAMILY(ToyRace, {.stages = {kToy}, .add = AddToyCases, .large_inputs = LargeToyInputs});

// The fault: a backend whose toy draws follow w^2 instead of w.
class SquaredToyBackend final : public Backend {
 public:
  std::string Name() const override { return "toy-squared"; }
  std::vector<std::string> SupportedStages() const override { return {kToy}; }
  TensorMap Run(const std::string&, const Case& c) override { return Race(c, true); }
};

statistical::StatCase ToyStatCase() {
  statistical::StatCase s;
  s.id = "stats/toy_race/dyadic_v4/canonical";
  s.family = "dyadic weights";
  s.input.id = s.id;
  s.input.stage = kToy;
  s.input.profile = Profile::kCanonical;
  s.input.inputs.emplace("weights", Row({0.5f, 0.25f, 0.125f, 0.125f}));
  s.mde_tv_ci = 0.05;
  s.targeted_ratio = statistical::kNoTargetedTest;
  return s;
}

TEST(StageExtension, CatalogueKnowsTheToyStageRoles) {
  const StageInfo& info = RequireStage(kToy);
  EXPECT_TRUE(info.draw.draws());
  ASSERT_NE(info.DistributionInput(), nullptr);
  EXPECT_EQ(info.DistributionInput()->name, "weights");
  EXPECT_EQ(info.OutputWithRole(Role::kToken)->name, "token");
  EXPECT_TRUE(statistical::HasExactTarget(kToy));
}

TEST(StageExtension, GoldenGenerationAndVerificationPickItUp) {
  const auto dir = std::filesystem::temp_directory_path() / ("sampcheck_toy_" + std::to_string(::getpid()));
  golden::GenerateGoldenSet(dir, 1, golden::GoldenSet::kV1);
  reference::ReferenceBackend reference;
  const auto results = golden::VerifyGoldenSet(dir, reference, {{kToy}, {}, std::nullopt, {}});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].id, "toy_race/dyadic_v4/canonical");
  EXPECT_EQ(results[0].verdict, Verdict::kPass) << results[0].reason;
}

TEST(StageExtension, TheFullSetHasItsLargeVocabularyCases) {
  std::vector<std::string> ids;
  for (const Case& c : golden::BuildGoldenCases(1, golden::GoldenSet::kFull)) {
    if (c.stage == kToy) ids.push_back(c.id);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"toy_race/dyadic_v4/canonical", "toy_race/large_v32000/canonical",
                                           "toy_race/large_v151936/canonical"}));
}

TEST(StageExtension, TheDrawHarnessAcceptsTheToyAndRejectsAWrongOne) {
  // One L3 test at family-wise alpha 1e-4 with power 0.99 against TV 0.05: the squared
  // weights move TV by about 0.23 (0.5, 0.25, 0.125, 0.125 -> 0.727, 0.182, 0.045, 0.045),
  // far above the declared effect, so the wrong backend fails with probability > 0.99; the
  // correct one fails with probability <= 1e-4 (fixed seed epoch 0: the outcome is fixed).
  const std::vector<statistical::StatCase> cases = {ToyStatCase()};
  reference::ReferenceBackend reference;
  for (const auto& r : statistical::RunDrawHarness(reference, cases, {})) {
    EXPECT_NE(r.verdict, Verdict::kFail) << r.id << ": " << r.reason;
  }
  SquaredToyBackend wrong;
  bool rejected = false;
  for (const auto& r : statistical::RunDrawHarness(wrong, cases, {})) rejected |= r.verdict == Verdict::kFail;
  EXPECT_TRUE(rejected);
}

}  // namespace
}  // namespace sampcheck
