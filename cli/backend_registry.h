// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one backend factory behind every command's --backend (docs/spec/cli.md "Backends"): the
// built-in backends, "wrong:NAME" (a planted bug: harness/wrong/wrong_samplers.h, and the fast
// kernel's in gpu/fast/fast_backend.h), "plugin:PATH" (a C ABI plugin, docs/spec/plugin_abi.md) and
// "exec:COMMAND" (an exchange-directory command, docs/spec/exchange.md), each wrapped in fault
// isolation (backends/isolated_backend.h) where the options say so. `golden verify`,
// `conform`, `stats` (and `--against`) and sampcheck-mpi's `stats` and `tp` all call it, so a
// name that works in one works in all. Unknown names get an InputError listing the valid ones.
// Example: MakeBackend("wrong:top_p_off_by_one", {})->Name() == "wrong:top_p_off_by_one".

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.h"

namespace sampcheck::cli {

// The built-in names (without the wrong:, plugin: and exec: forms).
std::vector<std::string> BuiltinBackendNames();

// Fault isolation (docs/spec/cli.md "Backends"): `isolate` unset means the default, on for
// plugin backends and off for built-in and wrong: ones. Isolated backends run each case group
// in a forked child (backends/isolated_backend.h); an exec backend is a separate process
// already, and --no-isolate does not change that.
struct BackendOptions {
  std::optional<bool> isolate;
  double case_timeout_s = 60.0;
};
std::unique_ptr<Backend> MakeBackend(const std::string& spec, const BackendOptions& options);

}  // namespace sampcheck::cli
