// SPDX-License-Identifier: Apache-2.0
#pragma once
// The --stage / --profile filters of every subcommand (docs/spec/cli.md): an empty filter
// selects everything, otherwise a name is selected when the filter lists it exactly.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace sampcheck {

inline bool Selected(const std::vector<std::string>& filter, std::string_view name) {
  return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
}

}  // namespace sampcheck
