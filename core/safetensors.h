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
#include <map>
#include <span>
#include <string>

#include "core/tensor.h"

namespace sampcheck {

// Same bound as the reference Rust implementation (MAX_HEADER_SIZE = 100,000,000).
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

using Metadata = std::map<std::string, std::string>;

struct SafetensorsFile {
  TensorMap tensors;
  Metadata metadata;
};

// `what` names the source in error messages (normally the path).
SafetensorsFile ParseSafetensors(std::span<const std::byte> bytes, const std::string& what);
SafetensorsFile ReadSafetensors(const std::filesystem::path& path);

std::string SerializeSafetensors(const TensorMap& tensors, const Metadata& metadata);
void WriteSafetensors(const std::filesystem::path& path, const TensorMap& tensors,
                      const Metadata& metadata = {});

}  // namespace sampcheck
