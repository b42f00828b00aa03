// SPDX-License-Identifier: Apache-2.0
#pragma once
// The profiles of one stage a built-in check runs a backend on (docs/spec/cli.md, the --stage /
// --profile filters): the stage selected and claimed by the backend, each profile selected and
// claimed; none when the stage is not. Shared by the checks conform adds to its batch-invariance
// step, so that each applies the selection the same way.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.h"
#include "core/profile.h"
#include "core/selection.h"
#include "core/stage_catalogue.h"

namespace sampcheck::harness {

inline std::vector<Profile> ClaimedProfiles(const Backend& backend, std::string_view stage,
                                            const std::vector<std::string>& stages,
                                            const std::vector<std::string>& profiles) {
  std::vector<Profile> out;
  if (!Selected(stages, stage)) return out;
  const auto supported = backend.SupportedStages();
  if (std::find(supported.begin(), supported.end(), stage) == supported.end()) return out;
  const std::string name(stage);
  for (Profile profile : RequireStage(name).profiles) {
    if (Selected(profiles, profile) && backend.Capabilities(name).profiles.Contains(profile)) out.push_back(profile);
  }
  return out;
}

}  // namespace sampcheck::harness
