// SPDX-License-Identifier: Apache-2.0
#pragma once
// safetensors reader and writer (format: huggingface/safetensors, docs/spec/safetensors.md).
//
// File layout: u64 little-endian N; N bytes of UTF-8 JSON header; raw little-endian data.
// Header: {"NAME": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
// "__metadata__": {"key": "string value"}} with offsets relative to the data section.
//
// Reader contract: every fault throws InputError whose message starts with the file path and
// names the fault and, where there is one, the tensor: file shorter than 8 bytes; header
// length beyond the file or above kMaxHeaderBytes; header not valid JSON or not an object;
// a duplicate tensor name; an entry that is not an object with exactly dtype/shape/
// data_offsets; unknown or unsupported dtype; a negative or non-integer extent; an element
// count or byte size overflowing int64; offsets not two non-decreasing integers within the
// data section; a byte range not equal to numel * dtype size; ranges that overlap or leave
// holes (safetensors requires the data section to be covered exactly); non-string metadata.
// Allocation is bounded by the real file size, never by a header value.
//
// Writer contract: tensors in name order, data packed in that order, header JSON with sorted
// keys padded with spaces to a multiple of 8 bytes (as the Python writer does, so data stays
// aligned). The file is written to "<path>.tmp.<pid>" and renamed over <path>, so a reader
// never sees a half-written file. Output is a pure function of the inputs (byte-identical
// from run to run).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace sampcheck {

// Same bound as the reference Rust implementation (MAX_HEADER_SIZE = 100,000,000).
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

using Metadata = std::map<std::string, std::string>;

struct SafetensorsFile {
  TensorMap tensors;
  Metadata metadata;
};

// One header entry, checked against the data section's real size.
struct SafetensorsEntry {
  std::string name;
  DType dtype;
  Shape shape;
  std::uint64_t begin;  // byte range in the data section
  std::uint64_t end;
};

// A checked header: every reader-contract check above except the data itself; entries
// sorted by byte range.
struct SafetensorsHeader {
  std::vector<SafetensorsEntry> entries;
  Metadata metadata;
  std::uint64_t data_offset = 0;  // 8 + header length
  std::uint64_t data_size = 0;
};

// `what` names the source in error messages (normally the path).
SafetensorsFile ParseSafetensors(std::span<const std::byte> bytes, const std::string& what);
// `prefix`: the file's first bytes, holding at least the length and the header;
// `file_size`: the whole file's size.
SafetensorsHeader ParseSafetensorsHeader(std::span<const std::byte> prefix, std::uint64_t file_size,
                                         const std::string& what);
// Whole-file read for files sampcheck wrote itself.
SafetensorsFile ReadSafetensors(const std::filesystem::path& path);
// For untrusted files (core/input_limits.h): a regular file of at most max_bytes (`variable`
// raises the cap); the header is read and checked first, then `check` (which throws to refuse
// the file, e.g. for a shape the caller does not expect) runs before any data is read.
using HeaderCheck = std::function<void(const SafetensorsHeader&)>;
SafetensorsFile ReadSafetensors(const std::filesystem::path& path, std::uint64_t max_bytes,
                                std::string_view variable, const HeaderCheck& check = {});

std::string SerializeSafetensors(const TensorMap& tensors, const Metadata& metadata);
void WriteSafetensors(const std::filesystem::path& path, const TensorMap& tensors,
                      const Metadata& metadata = {});

}  // namespace sampcheck
