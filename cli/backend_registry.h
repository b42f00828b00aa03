// SPDX-License-Identifier: Apache-2.0
#pragma once
// Built-in backends by name, for --backend. Unknown names get an InputError listing the
// valid ones.

#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"

namespace sampcheck::cli {

std::vector<std::string> BuiltinBackendNames();
std::unique_ptr<Backend> MakeBackend(const std::string& name);

}  // namespace sampcheck::cli
