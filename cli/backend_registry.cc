// SPDX-License-Identifier: Apache-2.0
// Built-in backends (cli/backend_registry.h).
#include "cli/backend_registry.h"

#include "core/error.h"
#include "reference/reference_backend.h"

namespace sampcheck::cli {

std::vector<std::string> BuiltinBackendNames() { return {"reference"}; }

std::unique_ptr<Backend> MakeBackend(const std::string& name) {
  if (name == "reference") return std::make_unique<reference::ReferenceBackend>();
  std::string valid;
  for (const auto& n : BuiltinBackendNames()) valid += (valid.empty() ? "" : ", ") + n;
  throw InputError("unknown backend '" + name + "'; valid backends: " + valid);
}

}  // namespace sampcheck::cli
