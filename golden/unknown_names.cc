// SPDX-License-Identifier: Apache-2.0
// Names a case may not carry (golden/unknown_names.h).
#include "golden/unknown_names.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/stage_catalogue.h"

namespace sampcheck::golden {
namespace {

// "a, b, c": the names of a catalogue list, for messages.
template <typename Spec>
std::string NameList(const std::vector<Spec>& specs) {
  std::string out;
  for (const auto& s : specs) out += (out.empty() ? "" : ", ") + s.name;
  return out.empty() ? "none" : out;
}

}  // namespace

// A typo in an optional input's or a parameter's name would silently change what the case
// tests (the stage would run with its default), so every name must be one the stage's
// catalogue entry lists. Returns the first fault with the accepted names, or "".
std::string UnknownNames(const Case& c) {
  const StageInfo* info = FindStage(c.stage);
  if (info == nullptr) return "unknown stage '" + c.stage + "'";
  // Loops over entries, not structured bindings: the lambdas capture the name, which clang
  // accepts for a structured binding only from version 16 (Debian 12 ships 14).
  for (const auto& entry : c.inputs) {
    const std::string& name = entry.first;
    const bool known = std::any_of(info->inputs.begin(), info->inputs.end(),
                                   [&](const TensorSpec& s) { return s.name == name; });
    if (!known) {
      return "tensor 'in." + name + "' is not an input of stage '" + c.stage + "'; its inputs are " +
             NameList(info->inputs);
    }
  }
  for (const auto& item : c.params.items()) {
    const std::string& name = item.key();
    const bool known = std::any_of(info->params.begin(), info->params.end(),
                                   [&](const ParamSpec& s) { return s.name == name; });
    if (!known) {
      return "parameter '" + name + "' is not a parameter of stage '" + c.stage + "'; its parameters are " +
             NameList(info->params);
    }
  }
  return "";
}

}  // namespace sampcheck::golden
