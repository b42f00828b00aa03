// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where `sampcheck conform` finds its golden set when --golden is not given (docs/spec/cli.md
// "Default golden set"): relative to the executable, so a moved build tree or an installed
// CLI keeps working.
//
// Candidates, in order, each relative to the directory of the running executable
// (/proc/self/exe):
//   1. SAMPCHECK_INSTALLED_GOLDEN_REL: the install layout, bin/ -> share/sampcheck/golden/v1;
//   2. SAMPCHECK_BUILD_GOLDEN_REL: the build tree, build/<preset>/cli/ -> the checkout's golden/v1.
// The first that holds manifest.json wins. None: InputError naming the places looked at and
// saying to pass --golden DIR.

#include <filesystem>

namespace sampcheck::cli {

std::filesystem::path DefaultGoldenDir();

}  // namespace sampcheck::cli
