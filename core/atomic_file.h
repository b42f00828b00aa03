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
// sync_to_disk = false skips the fsync: the rename still makes the replacement atomic for
// readers and safe against the writer being killed, but not against a system crash. For
// files rewritten often (a report written as a run goes) or thrown away (exchange
// directories), where an fsync per write would dominate the run time.
void WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes, bool sync_to_disk);
std::string ReadWholeFile(const std::filesystem::path& path);

}  // namespace sampcheck
