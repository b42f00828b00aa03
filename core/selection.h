// SPDX-License-Identifier: Apache-2.0
#pragma once
// The --stage / --profile filters of every subcommand (docs/spec/cli.md): an empty filter
// selects everything, otherwise a name is selected when the filter lists it exactly.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/profile.h"

namespace sampcheck {

inline bool Selected(const std::vector<std::string>& filter, std::string_view name) {
  return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
}

// A --profile filter holds names as given (checked with ParseProfile by the command); a case's
// profile is selected when the filter lists its name.
inline bool Selected(const std::vector<std::string>& filter, Profile profile) {
  return Selected(filter, ProfileName(profile));
}

}  // namespace sampcheck
