// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reference backend: sampcheck's executable specification behind the Backend interface.
// It runs every stage of the catalogue that has a reference implementation, under the case's
// profile (checked against the stage's profile list).

#include "core/backend.h"

namespace sampcheck::reference {

class ReferenceBackend final : public Backend {
 public:
  std::string Name() const override { return "reference"; }
  std::vector<std::string> SupportedStages() const override;
  TensorMap Run(const std::string& stage, const Case& c) override;
  // Own randomness for the statistical harness (reference/count_draws.h) for the stages whose
  // catalogue entry says the reference draws them; draw d is keyed by d, so any range of draws
  // can be counted.
  StageCapabilities Capabilities(const std::string& stage) const override;
  Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override;
  Tensor CountDrawsRange(const std::string& stage, const Case& c, std::int64_t first_draw, std::int64_t draws,
                         std::uint64_t seed) override;
};

}  // namespace sampcheck::reference
