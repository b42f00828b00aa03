// SPDX-License-Identifier: Apache-2.0
// Atomic whole-file writes (core/atomic_file.h).
#include "core/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.h"

namespace sampcheck {

void WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes) {
  WriteFileAtomically(path, bytes, /*sync_to_disk=*/true);
}

void WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes, bool sync_to_disk) {
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    throw InputError(path.string() + ": cannot create temporary file: " + std::strerror(errno));
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fflush(f) == 0) && ok;
  if (sync_to_disk) ok = (::fsync(::fileno(f)) == 0) && ok;
  ok = (std::fclose(f) == 0) && ok;
  std::error_code ec;
  if (ok) std::filesystem::rename(tmp, path, ec);
  if (!ok || ec) {
    std::filesystem::remove(tmp, ec);
    throw InputError(path.string() + ": write failed" + (ok ? ": rename: " + ec.message() : ""));
  }
}

std::string ReadWholeFile(const std::filesystem::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path.string() + ": cannot open for reading: " + std::strerror(errno));
  std::string out;
  // One read sized from the file, then a loop in case it grew or is not a regular file.
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec) out.resize(static_cast<std::size_t>(size));
  std::size_t got = std::fread(out.data(), 1, out.size(), f);
  out.resize(got);
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw InputError(path.string() + ": read error");
  return out;
}

}  // namespace sampcheck
