// SPDX-License-Identifier: Apache-2.0
// Bounded reads of untrusted files (core/input_limits.h).
#include "core/input_limits.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/error.h"

namespace sampcheck {

namespace {

std::uint64_t CapFromEnvironment(const char* variable, std::uint64_t fallback) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return fallback;
  std::uint64_t value = 0;
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9' || value > (std::uint64_t{1} << 62) / 5) {
      throw InputError(std::string(variable) + "='" + text +
                       "' is not a byte count (expected a positive decimal integer below 2^63)");
    }
    value = value * 10 + static_cast<std::uint64_t>(*p - '0');
  }
  if (value == 0 || value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw InputError(std::string(variable) + "='" + text +
                     "' is not a byte count (expected a positive decimal integer below 2^63)");
  }
  return value;
}

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// An open descriptor closed on every path.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string ReadRange(const std::filesystem::path& path, std::uint64_t max_bytes, std::string_view variable,
                      std::uint64_t offset, std::uint64_t count, std::uint64_t* size_out) {
  const std::string where = path.string();
  // O_NONBLOCK: opening a FIFO with no writer would otherwise block before fstat can refuse it.
  const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) throw InputError(where + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw InputError(where + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    throw InputError(where + ": is " + FileKind(st.st_mode) + "; sampcheck reads only regular files here");
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) {
    throw InputError(where + ": file of " + std::to_string(size) + " bytes exceeds the limit of " +
                     std::to_string(max_bytes) + " bytes (raise it with " + std::string(variable) + ")");
  }
  if (size_out != nullptr) *size_out = size;
  if (offset > size) offset = size;
  if (count > size - offset) count = size - offset;
  std::string bytes(static_cast<std::size_t>(count), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t r = ::pread(fd.get(), bytes.data() + got, bytes.size() - got, static_cast<off_t>(offset + got));
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r < 0) throw InputError(where + ": read error: " + std::strerror(errno));
    if (r == 0) break;  // the file shrank meanwhile: what is there is judged as it is
    got += static_cast<std::size_t>(r);
  }
  bytes.resize(got);
  return bytes;
}

}  // namespace

std::uint64_t MaxCaseBytes() { return CapFromEnvironment(kMaxCaseBytesVariable, kDefaultMaxCaseBytes); }
std::uint64_t MaxManifestBytes() { return CapFromEnvironment(kMaxManifestBytesVariable, kDefaultMaxManifestBytes); }
std::uint64_t MaxResponseBytes() { return CapFromEnvironment(kMaxResponseBytesVariable, kDefaultMaxResponseBytes); }

void CheckDeclaredExtent(const std::string& where, const std::string& tensor, std::span<const std::int64_t> dims,
                         std::size_t element_bytes) {
  const std::uint64_t cap = MaxCaseBytes();
  std::uint64_t extent = element_bytes;
  std::string shape;
  for (std::int64_t d : dims) {
    shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    const auto f = static_cast<std::uint64_t>(d > 0 ? d : 1);
    extent = extent > cap / f ? cap + 1 : extent * f;  // saturates just above the cap
  }
  if (extent > cap) {
    throw InputError(where + ": tensor '" + tensor + "' declares shape [" + shape + "], an extent (zero dimensions " +
                     "counted as 1) above the limit of " + std::to_string(cap) + " bytes (raise it with " +
                     kMaxCaseBytesVariable + ")");
  }
}

std::string ReadBoundedFile(const std::filesystem::path& path, std::uint64_t max_bytes, std::string_view variable) {
  return ReadRange(path, max_bytes, variable, 0, max_bytes, nullptr);
}

std::string ReadBoundedPrefix(const std::filesystem::path& path, std::uint64_t max_bytes, std::string_view variable,
                              std::uint64_t offset, std::uint64_t count, std::uint64_t* size) {
  return ReadRange(path, max_bytes, variable, offset, count, size);
}

std::string CapReason(std::string text) {
  const std::uint64_t size = text.size();
  return CapReason(std::move(text), size);
}

std::string CapReason(std::string text, std::uint64_t total_bytes) {
  if (total_bytes <= kMaxReasonBytes && text.size() <= kMaxReasonBytes) return text;
  std::size_t cut = std::min(text.size(), kMaxReasonBytes);
  // Step back over UTF-8 continuation bytes (10xxxxxx) so a character is not split.
  for (int back = 0; back < 3 && cut > 0 && cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80;
       ++back) {
    --cut;
  }
  const std::uint64_t dropped = std::max<std::uint64_t>(total_bytes, text.size()) - cut;
  text.resize(cut);
  return text + " [... " + std::to_string(dropped) + " more bytes cut]";
}

}  // namespace sampcheck
