// SPDX-License-Identifier: Apache-2.0
// C ABI plugins (backends/plugin_backend.h, docs/spec/plugin_abi.md) and their fault isolation
// (backends/isolated_backend.h): the example plugin against golden/v1, then one deliberately
// broken plugin per fault (tests/support/broken_plugin.c). Each broken plugin misbehaves only on
// the single-column cases (V = 1) and answers the rest correctly, so every test checks both
// that the faulty cases fail with a reason naming the fault and that the run went on.
// Expected outputs are the checked-in goldens (independently checked by
// tests/python/check_golden_case.py), never values printed by the plugin.
#include <memory>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "backends/isolated_backend.h"
#include "backends/plugin_backend.h"
#include "core/error.h"
#include "core/profile.h"
#include "golden/verifier.h"

namespace sampcheck::backends {
namespace {

const std::filesystem::path kGolden = std::filesystem::path(SAMPCHECK_SOURCE_DIR) / "golden" / "v1";

std::string BrokenPlugin(const std::string& fault) {
  return std::string(SAMPCHECK_BROKEN_PLUGIN_DIR) + "/libbroken_plugin_" + fault + ".so";
}

// The single-column cases of greedy and token_bitmask in golden/v1 (V = 1).
const std::set<std::string> kSingleColumnGreedy = {"greedy/single_column/canonical"};
const std::set<std::string> kSingleColumnBitmask = {"token_bitmask/random_v1_f32/canonical",
                                                    "token_bitmask/random_v1_bf16/canonical"};

std::vector<CaseResult> VerifyGreedyAndBitmask(Backend& backend) {
  golden::VerifyOptions options;
  options.stages = {"greedy", "token_bitmask"};
  return golden::VerifyGoldenSet(kGolden, backend, options);
}

// Every case in `faulty` fails with a reason containing `reason`; every other case passes.
void ExpectOnlyFaultyFail(const std::vector<CaseResult>& results, const std::set<std::string>& faulty,
                          const std::string& reason) {
  ASSERT_EQ(results.size(), 33u);  // 16 greedy + 17 token_bitmask cases in golden/v1
  for (const auto& r : results) {
    if (faulty.contains(r.id)) {
      EXPECT_EQ(r.verdict, Verdict::kFail) << r.id;
      EXPECT_NE(r.reason.find(reason), std::string::npos) << r.id << ": " << r.reason;
    } else {
      EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
    }
  }
}

std::set<std::string> Union(std::set<std::string> a, const std::set<std::string>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

TEST(PluginBackend, ExamplePluginPassesItsStagesAndSkipsUndeclaredProfiles) {
  PluginBackend plugin(SAMPCHECK_EXAMPLE_PLUGIN);
  EXPECT_EQ(plugin.Name(), "example-c-plugin");
  EXPECT_EQ(plugin.SupportedStages(), (std::vector<std::string>{"greedy", "logit_bias", "token_bitmask"}));
  EXPECT_TRUE(plugin.Capabilities("logit_bias").profiles.Contains(Profile::kVllm));
  EXPECT_FALSE(plugin.Capabilities("logit_bias").profiles.Contains(Profile::kSglang));
  golden::VerifyOptions options;
  options.stages = {"greedy", "token_bitmask", "logit_bias"};
  const auto results = golden::VerifyGoldenSet(kGolden, plugin, options);
  int passed = 0, skipped = 0;
  for (const auto& r : results) {
    if (ParseProfile(r.profile) == Profile::kSglang) {
      EXPECT_EQ(r.verdict, Verdict::kSkip) << r.id;
      EXPECT_NE(r.reason.find("does not declare profile 'sglang' for stage 'logit_bias'"), std::string::npos) << r.reason;
      ++skipped;
    } else {
      EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
      ++passed;
    }
  }
  // golden/v1: 16 greedy, 17 token_bitmask, 23 logit_bias per profile.
  EXPECT_EQ(passed, 16 + 17 + 23 + 23);
  EXPECT_EQ(skipped, 23);
}

TEST(PluginBackend, UnknownAbiVersionIsRefusedNamingBothVersions) {
  const std::string path = BrokenPlugin("unknown_abi");
  try {
    PluginBackend plugin(path);
    FAIL() << "loaded a plugin of ABI version 99";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("plugin ABI version 99 is not supported"), std::string::npos) << message;
    EXPECT_NE(message.find("supports ABI version 1"), std::string::npos) << message;
  }
}

// docs/spec/plugin_abi.md "Distributional stages": the optional export turns golden cases of
// the named stage into skips with the distributional-tier reason; other stages still pass.
TEST(PluginBackend, DistributionalStagesAreSkippedByGoldenVerify) {
  PluginBackend plugin(std::string(SAMPCHECK_BROKEN_PLUGIN_DIR) + "/libdistributional_plugin.so");
  EXPECT_FALSE(plugin.Capabilities("greedy").claims_bitwise);
  EXPECT_TRUE(plugin.Capabilities("token_bitmask").claims_bitwise);
  IsolatedBackend isolated(std::make_unique<PluginBackend>(std::string(SAMPCHECK_BROKEN_PLUGIN_DIR) +
                                                           "/libdistributional_plugin.so"),
                           30.0);
  EXPECT_FALSE(isolated.Capabilities("greedy").claims_bitwise);
  const auto results = VerifyGreedyAndBitmask(plugin);
  ASSERT_EQ(results.size(), 33u);  // 16 greedy + 17 token_bitmask cases in golden/v1
  for (const auto& r : results) {
    if (!plugin.Capabilities(r.stage).claims_bitwise) {  // greedy, by the plugin's export
      EXPECT_EQ(r.verdict, Verdict::kSkip) << r.id;
      EXPECT_NE(r.reason.find("claims only the distributional tier for stage 'greedy'"), std::string::npos) << r.reason;
    } else {
      EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
    }
  }
}

TEST(PluginBackend, DistributionalStageNotDeclaredIsRefusedAtLoad) {
  const std::string path = std::string(SAMPCHECK_BROKEN_PLUGIN_DIR) + "/libdistributional_plugin_undeclared.so";
  try {
    PluginBackend plugin(path);
    FAIL() << "loaded";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": distributional stage 'softmax' is not one of the plugin's declared stages");
  }
}

TEST(PluginBackend, MissingFileAndMissingEntrySymbolAreInputErrors) {
  EXPECT_THROW(
      {
        try {
          PluginBackend plugin("/nonexistent/libnothing.so");
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("/nonexistent/libnothing.so: cannot load plugin"), std::string::npos);
          throw;
        }
      },
      InputError);
  EXPECT_THROW(
      {
        try {
          PluginBackend plugin("libc.so.6");
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("does not export sampcheck_backend_v1"), std::string::npos) << e.what();
          throw;
        }
      },
      InputError);
}

TEST(PluginBackend, ErrorCodeAndMessageBecomeTheReason) {
  PluginBackend plugin(BrokenPlugin("error_code"));  // in process: an error code needs no isolation
  ExpectOnlyFaultyFail(VerifyGreedyAndBitmask(plugin), Union(kSingleColumnGreedy, kSingleColumnBitmask),
                       "plugin error 42: injected failure for a single-column case");
}

TEST(PluginBackend, SegfaultFailsThatCaseAndTheRunGoesOn) {
  IsolatedBackend backend(std::make_unique<PluginBackend>(BrokenPlugin("segfault")), 30.0);
  ExpectOnlyFaultyFail(VerifyGreedyAndBitmask(backend), Union(kSingleColumnGreedy, kSingleColumnBitmask),
                       "backend process crashed with SIGSEGV (segmentation fault) while running this case");
}

TEST(PluginBackend, AbortFailsThatCaseAndTheRunGoesOn) {
  IsolatedBackend backend(std::make_unique<PluginBackend>(BrokenPlugin("abort")), 30.0);
  ExpectOnlyFaultyFail(VerifyGreedyAndBitmask(backend), Union(kSingleColumnGreedy, kSingleColumnBitmask),
                       "backend process aborted (SIGABRT) while running this case");
}

TEST(PluginBackend, HangTimesOutAndTheRunGoesOn) {
  // 1 s per case: the other cases take milliseconds; the three hanging ones cost 3 s.
  IsolatedBackend backend(std::make_unique<PluginBackend>(BrokenPlugin("hang")), 1.0);
  ExpectOnlyFaultyFail(VerifyGreedyAndBitmask(backend), Union(kSingleColumnGreedy, kSingleColumnBitmask),
                       "timed out after 1 s");
}

TEST(PluginBackend, WrongShapeIsNamed) {
  IsolatedBackend backend(std::make_unique<PluginBackend>(BrokenPlugin("wrong_shape")), 30.0);
  const auto results = VerifyGreedyAndBitmask(backend);
  ExpectOnlyFaultyFail(results, Union(kSingleColumnGreedy, kSingleColumnBitmask), "has the wrong shape");
  for (const auto& r : results) {
    if (r.id == "greedy/single_column/canonical") {
      EXPECT_EQ(r.reason, "output 'token' has the wrong shape: [3, 1], the case needs [3]");
    }
  }
}

TEST(PluginBackend, WrongDtypeIsNamed) {
  IsolatedBackend backend(std::make_unique<PluginBackend>(BrokenPlugin("wrong_dtype")), 30.0);
  const auto results = VerifyGreedyAndBitmask(backend);
  ExpectOnlyFaultyFail(results, Union(kSingleColumnGreedy, kSingleColumnBitmask), "has the wrong dtype");
  for (const auto& r : results) {
    if (r.id == "greedy/single_column/canonical") {
      EXPECT_EQ(r.reason, "output 'token' has the wrong dtype: f64, the stage gives i64");
    }
  }
}

TEST(PluginBackend, NaNWhereTheStageAllowsNoneIsNamed) {
  // Only float outputs can hold NaN: greedy's i64 token is untouched, token_bitmask's logits
  // get a NaN at [0, 0].
  IsolatedBackend backend(std::make_unique<PluginBackend>(BrokenPlugin("nan_output")), 30.0);
  ExpectOnlyFaultyFail(VerifyGreedyAndBitmask(backend), kSingleColumnBitmask,
                       "output 'logits' is NaN at [0, 0] where the stage allows no NaN");
}

TEST(PluginBackend, MissingOutputIsNamed) {
  IsolatedBackend backend(std::make_unique<PluginBackend>(BrokenPlugin("missing_output")), 30.0);
  const auto results = VerifyGreedyAndBitmask(backend);
  ExpectOnlyFaultyFail(results, Union(kSingleColumnGreedy, kSingleColumnBitmask), "is missing");
  for (const auto& r : results) {
    if (r.id == "greedy/single_column/canonical") {
      EXPECT_EQ(r.reason, "output 'token' is missing");
    }
  }
}

TEST(PluginBackend, ExtraOutputIsNamed) {
  IsolatedBackend backend(std::make_unique<PluginBackend>(BrokenPlugin("extra_output")), 30.0);
  ExpectOnlyFaultyFail(VerifyGreedyAndBitmask(backend), Union(kSingleColumnGreedy, kSingleColumnBitmask),
                       "unexpected output 'debug'");
}

}  // namespace
}  // namespace sampcheck::backends
