// SPDX-License-Identifier: Apache-2.0
#pragma once
// Bounds on what sampcheck reads from files it did not write (docs/spec/cli.md "Input
// limits"): golden case files, manifests, and a backend's responses. A FIFO in place of a
// file would block for ever and a link to /dev/zero would grow without end, so every such
// file must be a regular file no larger than its cap, and is read with the cap enforced
// while reading (a file that grows meanwhile is cut off, not followed).
//
// Caps (bytes), each overridable by an environment variable holding a positive integer:
//   case files      SAMPCHECK_MAX_CASE_BYTES      default 1 GiB
//   manifests       SAMPCHECK_MAX_MANIFEST_BYTES  default 64 MiB
//   responses       SAMPCHECK_MAX_RESPONSE_BYTES  default 1 GiB (exchange responses, plugin
//                   outputs, an isolated child's frames)
// The full golden set's largest case is below 40 MiB and its manifest below 4 MiB, so the
// defaults leave a wide margin while keeping one bad file far from exhausting memory.
// A backend's error text is cut to kMaxReasonBytes with a note saying so.
// Example: ReadBoundedFile("golden/v1/manifest.json", MaxManifestBytes(), "SAMPCHECK_MAX_MANIFEST_BYTES")

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace sampcheck {

inline constexpr std::uint64_t kDefaultMaxCaseBytes = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kDefaultMaxManifestBytes = std::uint64_t{64} << 20;
inline constexpr std::uint64_t kDefaultMaxResponseBytes = std::uint64_t{1} << 30;
inline constexpr std::size_t kMaxReasonBytes = 4096;

inline constexpr char kMaxCaseBytesVariable[] = "SAMPCHECK_MAX_CASE_BYTES";
inline constexpr char kMaxManifestBytesVariable[] = "SAMPCHECK_MAX_MANIFEST_BYTES";
inline constexpr char kMaxResponseBytesVariable[] = "SAMPCHECK_MAX_RESPONSE_BYTES";

// The cap in effect: the variable's value, or the default. A variable that is set but not a
// positive decimal integer below 2^63: InputError naming it.
std::uint64_t MaxCaseBytes();
std::uint64_t MaxManifestBytes();
std::uint64_t MaxResponseBytes();

// Checks that `path` is a regular file (after following links) of at most max_bytes and
// returns its bytes. Never blocks on a FIFO (opened non-blocking, then refused). InputError
// naming the path and, for size, the cap and `variable` that raises it.
std::string ReadBoundedFile(const std::filesystem::path& path, std::uint64_t max_bytes, std::string_view variable);
// As ReadBoundedFile, but reads only the first `count` bytes (at most the file size); *size
// receives the file's size. For formats whose header says how much follows.
std::string ReadBoundedPrefix(const std::filesystem::path& path, std::uint64_t max_bytes, std::string_view variable,
                              std::uint64_t offset, std::uint64_t count, std::uint64_t* size);

// What a case's declared shapes can make sampcheck allocate: the reference sizes per-row and
// per-vocabulary work by the shape, not by the bytes present, so a tensor of shape [0, 2^30]
// (0 bytes) used to cost gigabytes. A tensor's declared extent is its element size times the
// product of its dimensions with each 0 counted as 1; it must be at most the case-file cap
// (MaxCaseBytes), the size of the largest tensor a case file may hold. InputError naming
// `where`, the tensor and the variable that raises the cap. The product saturates, so any
// dimensions are safe to pass.
void CheckDeclaredExtent(const std::string& where, const std::string& tensor, std::span<const std::int64_t> dims,
                         std::size_t element_bytes);

// `text` cut to kMaxReasonBytes (on a UTF-8 boundary where there is one), with
// " [... N more bytes cut]" appended when it was cut.
std::string CapReason(std::string text);
// The same for the first bytes of a longer text of total_bytes.
std::string CapReason(std::string text, std::uint64_t total_bytes);

}  // namespace sampcheck
