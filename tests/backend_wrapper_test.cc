// SPDX-License-Identifier: Apache-2.0
// Backends that wrap another forward its capabilities whole (core/stage_capabilities.h), and
// the one backend factory (cli/backend_registry.h) builds every kind of backend for every
// command, wrong: ones included.
//
// Why: when a backend's capabilities were six separate virtuals, the isolated and sharded
// wrappers each forwarded some of them; one that did not forward CountsWithReferenceNoise gave
// a sharded run a different report from the single-process one. The probe
// (tests/support/capability_probe.h) differs from the defaults in every field, so a wrapper
// that answers anything but the inner backend's struct fails here. The sharded wrapper needs
// MPI: tests/sharded_backend_wrapper_test.cc.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backends/isolated_backend.h"
#include "cli/backend_registry.h"
#include "core/error.h"
#include "core/stage_catalogue.h"
#include "gpu/fast/fast_backend.h"
#include "reference/reference_backend.h"
#include "tests/support/capability_probe.h"

namespace sampcheck {
namespace {

using testing::CapabilityProbe;
using testing::ProbeCapabilities;

// The stages a wrapper is asked about: every catalogue stage and one that does not exist.
std::vector<std::string> StagesToAsk() {
  std::vector<std::string> stages;
  for (const auto& s : StageCatalogue()) stages.push_back(s.name);
  stages.push_back("no_such_stage");
  return stages;
}

TEST(CapabilityProbe, DiffersFromTheDefaultInEveryField) {
  const StageCapabilities probe = ProbeCapabilities("greedy"), plain{};
  EXPECT_NE(probe.profiles, plain.profiles);
  EXPECT_NE(probe.claims_bitwise, plain.claims_bitwise);
  EXPECT_NE(probe.count_draws, plain.count_draws);
  EXPECT_NE(probe.counts_with_reference_noise, plain.counts_with_reference_noise);
  EXPECT_NE(probe.count_draws_range, plain.count_draws_range);
  EXPECT_NE(probe.statistical_skip_reason, plain.statistical_skip_reason);
  EXPECT_NE(probe.concurrent_runs, plain.concurrent_runs);
  EXPECT_NE(ProbeCapabilities("greedy"), ProbeCapabilities("pipeline"));
}

TEST(ProfileSet, HoldsExactlyTheProfilesAdded) {
  const ProfileSet s = ProfileSet{}.Add(Profile::kSglang).Add(Profile::kAscendV2);
  for (Profile p : kAllProfiles) {
    EXPECT_EQ(s.Contains(p), p == Profile::kSglang || p == Profile::kAscendV2) << ProfileName(p);
    EXPECT_TRUE(ProfileSet::All().Contains(p)) << ProfileName(p);
    EXPECT_FALSE(ProfileSet{}.Contains(p)) << ProfileName(p);
  }
}

// All but concurrent_runs: its Run forks a child process per call, one at a time.
TEST(BackendWrapper, IsolatedForwardsTheWholeStructForEveryStageButConcurrentRuns) {
  backends::IsolatedBackend isolated(std::make_unique<CapabilityProbe>(), 10.0);
  for (const auto& stage : StagesToAsk()) {
    SCOPED_TRACE(stage);
    StageCapabilities expected = ProbeCapabilities(stage);
    expected.concurrent_runs = false;
    EXPECT_EQ(isolated.Capabilities(stage), expected);
  }
}

// It claims count_draws_range, so it must count a range (in its child): the probe's counts
// name the range that arrived.
TEST(BackendWrapper, IsolatedCountsTheRangeItClaims) {
  backends::IsolatedBackend isolated(std::make_unique<CapabilityProbe>(), 10.0);
  Case c;
  c.id = "range";
  c.stage = "exponential_race";
  const Tensor counts = isolated.CountDrawsRange("exponential_race", c, 5, 7, 42);
  ASSERT_EQ(counts.numel(), 2);
  EXPECT_EQ(counts.data<std::int64_t>()[0], 5);
  EXPECT_EQ(counts.data<std::int64_t>()[1], 7);
}

// The wrong samplers wrap the reference and plant a bug in front of Run and CountDraws: they
// declare the reference's capabilities except count_draws_range (a range would bypass the bug).
TEST(BackendWrapper, WrongSamplersDeclareTheReferencesCapabilitiesButNoRanges) {
  const reference::ReferenceBackend ref;
  for (const std::string name : {"wrong:top_p_off_by_one", "wrong:uniform_16bit", "wrong:logprob_rank_off_by_one",
                                 "wrong:temperature_x1.003"}) {
    SCOPED_TRACE(name);
    const auto wrong = cli::MakeBackend(name, {});
    EXPECT_EQ(wrong->Name(), name);
    for (const auto& stage : StagesToAsk()) {
      SCOPED_TRACE(stage);
      StageCapabilities expected = ref.Capabilities(stage);
      expected.count_draws_range = false;
      EXPECT_EQ(wrong->Capabilities(stage), expected);
    }
  }
}

TEST(BackendFactory, IsolatesAnInProcessBackendOnRequestWithItsCapabilities) {
  const std::vector<std::string> names = {"reference", "gpu-emulated", "gpu-fast-emulated",
                                          "wrong:top_p_off_by_one", "wrong:" + gpu::GpuFastWrongNames().at(0)};
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const auto plain = cli::MakeBackend(name, {});
    const auto isolated = cli::MakeBackend(name, {.isolate = true, .case_timeout_s = 5.0});
    EXPECT_EQ(plain->Name(), name);
    EXPECT_EQ(isolated->Name(), name);
    EXPECT_NE(dynamic_cast<backends::IsolatedBackend*>(isolated.get()), nullptr);
    EXPECT_EQ(dynamic_cast<backends::IsolatedBackend*>(plain.get()), nullptr);
    for (const auto& stage : StagesToAsk()) {
      SCOPED_TRACE(stage);
      StageCapabilities expected = plain->Capabilities(stage);
      expected.concurrent_runs = false;
      EXPECT_EQ(isolated->Capabilities(stage), expected);
    }
  }
}

// core/stage_capabilities.h's example: gpu-fast's stages are judged statistically, never bitwise.
TEST(BackendFactory, GpuFastDeclaresItsDrawStagesJudgedStatistically) {
  const auto fast = cli::MakeBackend("gpu-fast-emulated", {});
  EXPECT_EQ(fast->Capabilities("pipeline"),
            (StageCapabilities{.profiles = ProfileSet{}.Add(Profile::kCanonical).Add(Profile::kVllm).Add(Profile::kSglang),
                               .claims_bitwise = false,
                               .concurrent_runs = true}));
  EXPECT_EQ(fast->Capabilities("inverse_cdf"),
            (StageCapabilities{.profiles = ProfileSet{}.Add(Profile::kCanonical), .claims_bitwise = false, .concurrent_runs = true}));
  EXPECT_EQ(fast->Capabilities("flashinfer_sampling_from_probs"),
            (StageCapabilities{.profiles = ProfileSet{}.Add(Profile::kFlashinfer), .claims_bitwise = false, .concurrent_runs = true}));
  EXPECT_EQ(fast->Capabilities("spec_random"),
            (StageCapabilities{.profiles = ProfileSet{}.Add(Profile::kVllm).Add(Profile::kFlashinfer),
                               .claims_bitwise = false,
                               .concurrent_runs = true}));
}

TEST(BackendFactory, UnknownNamesAreInputErrorsListingTheValidForms) {
  try {
    cli::MakeBackend("nope", {});
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown backend 'nope'; valid backends: reference"), std::string::npos) << what;
    EXPECT_NE(what.find("wrong:NAME"), std::string::npos) << what;
  }
  try {
    cli::MakeBackend("wrong:nope", {});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown wrong sampler 'nope'; valid: "), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sampcheck
