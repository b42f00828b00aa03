// SPDX-License-Identifier: Apache-2.0
// Exchange-directory backends (backends/exchange_backend.h, docs/spec/exchange.md), driven
// with the NumPy example backend (examples/python_backend/backend.py) and shell commands that
// wrap it to inject a fault. Expected outputs are the checked-in goldens.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "backends/exchange_backend.h"
#include "core/error.h"
#include "core/manifest.h"

namespace sampcheck::backends {
namespace {

const std::filesystem::path kGolden = std::filesystem::path(SAMPCHECK_SOURCE_DIR) / "golden" / "v1";
const std::string kExample =
    std::string(SAMPCHECK_PYTHON) + " " + SAMPCHECK_SOURCE_DIR + "/examples/python_backend/backend.py {cases} {responses}";

std::string Faulty(const std::string& mode) {
  return std::string(SAMPCHECK_PYTHON) + " " + SAMPCHECK_SOURCE_DIR + "/tests/support/faulty_exchange_backend.py " + mode +
         " {cases} {responses}";
}

GoldenCase ReadGolden(const std::string& id) {
  for (const auto& e : ReadManifest(kGolden).cases) {
    if (e.id == id) return ReadCaseFile(kGolden / e.file);
  }
  throw std::runtime_error("no golden case " + id);
}

void ExpectOutputsEqual(const TensorMap& expected, const TensorMap& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (const auto& [name, t] : expected) {
    ASSERT_TRUE(actual.contains(name)) << name;
    EXPECT_TRUE(BitwiseEqual(t.view(), actual.at(name).view())) << name;
  }
}

TEST(ExchangeBackend, DescribesTheExampleBackend) {
  ExchangeBackend backend(kExample, 60.0);
  EXPECT_EQ(backend.Name(), "example-python-numpy");
  EXPECT_EQ(backend.SupportedStages(),
            (std::vector<std::string>{"allowed_token_ids", "greedy", "logit_bias", "token_bitmask"}));
  EXPECT_TRUE(backend.Capabilities("logit_bias").profiles.Contains(Profile::kSglang));
  EXPECT_FALSE(backend.Capabilities("allowed_token_ids").profiles.Contains(Profile::kSglang));
  EXPECT_TRUE(backend.Capabilities("inverse_cdf").count_draws);
  EXPECT_FALSE(backend.Capabilities("greedy").count_draws);
}

TEST(ExchangeBackend, RunsAGroupInOneInvocationAndFailsOnlyTheBadCase) {
  ExchangeBackend backend(kExample, 60.0);
  const GoldenCase edges = ReadGolden("greedy/edges/canonical");
  const GoldenCase single = ReadGolden("greedy/single_column/canonical");
  Case broken = edges.input;
  broken.inputs.erase("logits");
  const auto outcomes = backend.RunBatch("greedy", {&edges.input, &broken, &single.input}, {});
  ASSERT_EQ(outcomes.size(), 3u);
  ASSERT_EQ(outcomes[0].error, "");
  ExpectOutputsEqual(edges.expected, outcomes[0].outputs);
  EXPECT_EQ(outcomes[1].error, "backend error: KeyError: 'logits'");
  ASSERT_EQ(outcomes[2].error, "");
  ExpectOutputsEqual(single.expected, outcomes[2].outputs);
}

TEST(ExchangeBackend, CountDrawsReturnsCountsSummingToTheDraws) {
  ExchangeBackend backend(kExample, 60.0);
  Case c = ReadGolden("inverse_cdf/edges/canonical").input;
  c.inputs.erase("u");  // the backend draws with its own randomness
  const Tensor counts = backend.CountDraws("inverse_cdf", c, 1000, 7);
  const Tensor& probs = c.inputs.at("probs");
  ASSERT_EQ(counts.shape(), probs.shape());
  const auto n = counts.data<std::int64_t>();
  const std::int64_t rows = counts.dim(0), vocab = counts.dim(1);
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t sum = 0;
    for (std::int64_t t = 0; t < vocab; ++t) sum += n[static_cast<std::size_t>(r * vocab + t)];
    EXPECT_EQ(sum, 1000) << "row " << r;
  }
  EXPECT_THROW(backend.CountDraws("greedy", c, 10, 1), std::invalid_argument);  // not declared
}

TEST(ExchangeBackend, BadCommandsAreInputErrorsNamingTheFault) {
  try {
    ExchangeBackend backend("python3 backend.py", 10.0);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("must contain both {cases} and {responses}"), std::string::npos);
  }
  try {
    ExchangeBackend backend("echo it broke >&2; exit 3; : {cases} {responses}", 10.0);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "exec backend command exited with status 3; its output ends: it broke");
  }
  try {
    ExchangeBackend backend("true {cases} {responses}", 10.0);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("wrote no backend.json"), std::string::npos) << e.what();
  }
}

TEST(ExchangeBackend, CrashTimeoutAndMissingResponseFailTheUnansweredCases) {
  const GoldenCase edges = ReadGolden("greedy/edges/canonical");
  const GoldenCase single = ReadGolden("greedy/single_column/canonical");
  // Answers every case, then drops case 1's response and kills itself, on run requests only.
  ExchangeBackend crashing(kExample + "; if [ -e {cases}/0000.safetensors ]; then rm {responses}/0001.safetensors; kill -SEGV $$; fi",
                           60.0);
  auto outcomes = crashing.RunBatch("greedy", {&edges.input, &single.input}, {});
  EXPECT_EQ(outcomes[0].error, "");
  EXPECT_EQ(outcomes[1].error, "exec backend command crashed with SIGSEGV (segmentation fault)");

  ExchangeBackend hanging("if [ -e {cases}/0000.safetensors ]; then sleep 30; fi; " + kExample, 0.5);
  outcomes = hanging.RunBatch("greedy", {&edges.input}, {});
  EXPECT_EQ(outcomes[0].error, "exec backend command timed out after 0.5 s");

  ExchangeBackend forgetful(kExample + "; rm -f {responses}/0000.safetensors", 60.0);
  outcomes = forgetful.RunBatch("greedy", {&edges.input}, {});
  EXPECT_EQ(outcomes[0].error, "no response for this case (neither 0000.safetensors nor 0000.error)");
}

TEST(ExchangeBackend, MalformedResponsesFailTheCaseNamingTheFault) {
  Case c = ReadGolden("inverse_cdf/edges/canonical").input;
  c.inputs.erase("u");
  ExchangeBackend bad_counts(Faulty("bad_counts"), 60.0);
  try {
    bad_counts.CountDraws("inverse_cdf", c, 100, 3);
    FAIL() << "accepted counts that do not sum to the draws";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("out.counts row 0 sums to 101, not the 100 draws asked for"), std::string::npos)
        << e.what();
  }
  ExchangeBackend no_prefix(Faulty("no_prefix"), 60.0);
  const GoldenCase edges = ReadGolden("greedy/edges/canonical");
  const auto outcomes = no_prefix.RunBatch("greedy", {&edges.input}, {});
  EXPECT_NE(outcomes[0].error.find("0000.safetensors: response tensor 'token' lacks the out. prefix"), std::string::npos)
      << outcomes[0].error;
}

}  // namespace
}  // namespace sampcheck::backends
