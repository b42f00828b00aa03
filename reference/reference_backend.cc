// SPDX-License-Identifier: Apache-2.0
// Stage dispatch of the reference backend (reference/reference_backend.h).
#include "reference/reference_backend.h"

#include "core/error.h"
#include "core/stage_catalogue.h"
#include "reference/count_draws.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

std::vector<std::string> ReferenceBackend::SupportedStages() const {
  std::vector<std::string> names;
  for (const auto& [name, fn] : ReferenceStages()) names.push_back(name);
  return names;
}

TensorMap ReferenceBackend::Run(const std::string& stage, const Case& c) {
  const StageInfo& info = RequireStage(stage);
  const Profile profile = RequireStageProfile(info, c.profile);
  auto it = ReferenceStages().find(stage);
  if (it == ReferenceStages().end()) {
    throw InputError("backend 'reference' does not implement stage '" + stage + "'");
  }
  return it->second(c, profile);
}

StageCapabilities ReferenceBackend::Capabilities(const std::string& stage) const {
  const bool draws = SupportsCountDrawsStage(stage);
  // Run computes from its case alone (the registry is only read), so calls may overlap.
  return {.count_draws = draws, .counts_with_reference_noise = draws, .count_draws_range = draws, .concurrent_runs = true};
}

Tensor ReferenceBackend::CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) {
  return CountDrawsRange(stage, c, 0, draws, seed);
}

Tensor ReferenceBackend::CountDrawsRange(const std::string& stage, const Case& c, std::int64_t first_draw,
                                         std::int64_t draws, std::uint64_t seed) {
  const StageInfo& info = RequireStage(stage);
  RequireStageProfile(info, c.profile);
  if (!SupportsCountDrawsStage(stage)) {
    throw InputError("backend 'reference' cannot draw stage '" + stage + "' with its own randomness");
  }
  if (c.stage == stage) return ReferenceCountDraws(c, draws, seed, first_draw);
  Case named = c;
  named.stage = stage;
  return ReferenceCountDraws(named, draws, seed, first_draw);
}

}  // namespace sampcheck::reference
