// SPDX-License-Identifier: Apache-2.0
// The default golden set of the CLI (cli/default_golden.h).
#include "cli/default_golden.h"

#include <string>
#include <system_error>
#include <vector>

#include "core/error.h"

namespace sampcheck::cli {

std::filesystem::path DefaultGoldenDir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    throw InputError("no default golden set: cannot locate the sampcheck executable (/proc/self/exe: " +
                     ec.message() + "); pass --golden DIR, a golden set directory holding manifest.json "
                     "(golden/v1 of a sampcheck checkout, or PREFIX/share/sampcheck/golden/v1 of an install)");
  }
  const std::filesystem::path bin = exe.parent_path();
  const std::vector<std::filesystem::path> candidates = {
      (bin / SAMPCHECK_INSTALLED_GOLDEN_REL).lexically_normal(),
      (bin / SAMPCHECK_BUILD_GOLDEN_REL).lexically_normal(),
  };
  std::string looked;
  for (const auto& dir : candidates) {
    if (std::filesystem::is_regular_file(dir / "manifest.json", ec)) return dir;
    looked += (looked.empty() ? "" : ", ") + dir.string();
  }
  throw InputError("no default golden set: no manifest.json in " + looked +
                   " (looked relative to the executable " + exe.string() +
                   "); pass --golden DIR, a golden set directory holding manifest.json (golden/v1 of a sampcheck "
                   "checkout, or PREFIX/share/sampcheck/golden/v1 of an install)");
}

}  // namespace sampcheck::cli
