// SPDX-License-Identifier: Apache-2.0
#pragma once
// Whole-file writes that never leave a half-written file: the bytes go to a temporary file
// in the same directory, are flushed, and the temporary is renamed over the target
// (rename(2) is atomic within a file system). On any error the temporary is removed and
// InputError names the path.

#include <filesystem>
#include <string>
#include <string_view>

namespace sampcheck {

void WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes);
std::string ReadWholeFile(const std::filesystem::path& path);

}  // namespace sampcheck
