// SPDX-License-Identifier: Apache-2.0
#pragma once
// A backend whose capabilities (core/stage_capabilities.h) differ from the defaults in every
// field and depend on the stage, for the tests that check a wrapping backend forwards them
// whole (tests/backend_wrapper_test.cc, tests/sharded_backend_wrapper_test.cc). It counts
// draws in a pattern that names the range asked for, so a test can see which call arrived.

#include <string>
#include <vector>

#include "core/backend.h"
#include "core/error.h"

namespace sampcheck::testing {

// Not the default in any field; stage-dependent in the reason, so a wrapper that answered for
// a fixed stage would be caught too. A new field of StageCapabilities gets a non-default value
// here (CapabilityProbe.DiffersFromTheDefaultInEveryField checks each one).
inline StageCapabilities ProbeCapabilities(const std::string& stage) {
  return {.profiles = ProfileSet{}.Add(Profile::kVllm).Add(Profile::kBlockVerification),
          .claims_bitwise = false,
          .count_draws = true,
          .counts_with_reference_noise = true,
          .count_draws_range = true,
          .statistical_skip_reason = "probe declines the statistical cases of '" + stage + "'",
          .concurrent_runs = true};
}

class CapabilityProbe final : public Backend {
 public:
  std::string Name() const override { return "probe"; }
  std::vector<std::string> SupportedStages() const override { return {"exponential_race", "greedy"}; }
  TensorMap Run(const std::string& stage, const Case&) override { throw InputError("probe does not run " + stage); }
  StageCapabilities Capabilities(const std::string& stage) const override { return ProbeCapabilities(stage); }
  // Counts [1, 2]: {first_draw, draws}, so that a range call is told from a whole-stream one.
  Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override {
    return CountDrawsRange(stage, c, 0, draws, seed);
  }
  Tensor CountDrawsRange(const std::string&, const Case&, std::int64_t first_draw, std::int64_t draws,
                         std::uint64_t) override {
    return Tensor::FromValues<std::int64_t>(DType::kI64, {1, 2}, {first_draw, draws});
  }
};

}  // namespace sampcheck::testing
