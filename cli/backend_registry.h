// SPDX-License-Identifier: Apache-2.0
#pragma once
// Backends by name, for --backend: the built-in ones, "plugin:PATH" (a C ABI plugin,
// docs/spec/plugin_abi.md) and "exec:COMMAND" (an exchange-directory command,
// docs/spec/exchange.md). Unknown names get an InputError listing the valid ones.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.h"

namespace sampcheck::cli {

std::vector<std::string> BuiltinBackendNames();
std::unique_ptr<Backend> MakeBackend(const std::string& name);

// Fault isolation (docs/spec/cli.md "Backends"): `isolate` unset means the default, on for
// plugin and exec backends and off for built-in ones. Plugins are isolated by running each
// case group in a forked child (backends/isolated_backend.h); an exec backend is a separate
// process already, and --no-isolate does not change that.
struct BackendOptions {
  std::optional<bool> isolate;
  double case_timeout_s = 60.0;
};
std::unique_ptr<Backend> MakeBackend(const std::string& spec, const BackendOptions& options);

}  // namespace sampcheck::cli
