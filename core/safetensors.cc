// SPDX-License-Identifier: Apache-2.0
// safetensors reader and writer (core/safetensors.h; format and accepted/rejected files in
// docs/spec/safetensors.md, following huggingface/safetensors).
//
// The reader validates in three passes so that no allocation depends on an unchecked header
// value: (1) the 8-byte length and the JSON text, both bounded by the real input size;
// (2) every entry's dtype, shape and offsets, checked against the data section's real size;
// (3) the byte ranges, sorted, must tile the data section exactly. Only then are tensors
// allocated, so the total allocation equals the data section size.
#include "core/safetensors.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/input_limits.h"

namespace sampcheck {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kMetadataKey = "__metadata__";
constexpr std::size_t kLengthPrefixBytes = 8;
// A valid header nests three levels (top object > entry object > shape/offsets array); deeper
// nesting is rejected before the DOM grows, so a 100 MB "[[[[..." header cannot exhaust
// memory or stack.
constexpr int kMaxJsonDepth = 8;
// Every dtype name in the safetensors format (safetensors/src/tensor.rs, enum Dtype), so a
// valid-but-unsupported dtype gets a different message from a misspelt one.
constexpr std::array<std::string_view, 19> kKnownSafetensorsDTypes = {
    "BOOL", "F4",  "F6_E2M3", "F6_E3M2", "U8",  "I8",  "F8_E5M2", "F8_E4M3", "F8_E8M0", "I16",
    "U16",  "F16", "BF16",    "I32",     "U32", "F32", "F64",     "I64",     "U64"};

std::string Quote(std::string_view s) { return Json(std::string(s)).dump(); }

std::string SupportedDTypeList() {
  std::string s;
  for (DType d : kAllDTypes) {
    if (!s.empty()) s += ", ";
    s += SafetensorsName(d);
  }
  return s;
}

// A fault in input `what`; `tensor` (may be empty) names the entry.
[[noreturn]] void Fail(const std::string& what, const std::string& tensor,
                       const std::string& fault) {
  std::string msg = what + ": ";
  if (!tensor.empty()) msg += "tensor " + Quote(tensor) + ": ";
  throw InputError(msg + fault);
}

// A non-negative JSON integer that fits in int64, or nullopt with `why` set.
std::optional<std::int64_t> NonNegativeInt64(const Json& v, std::string* why) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      *why = "overflows int64";
      return std::nullopt;
    }
    return static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i < 0) {
      *why = "is negative";
      return std::nullopt;
    }
    return i;
  }
  *why = "is not an integer";
  return std::nullopt;
}

Json ParseHeaderJson(std::string_view text, const std::string& what) {
  // nlohmann::json keeps the last of duplicate keys silently; the callback sees every key
  // and rejects repeats (safetensors' serde parser rejects them too).
  std::vector<std::set<std::string>> seen;  // keys of each open object
  std::string current_tensor;               // key at depth 1, for messages
  auto callback = [&](int depth, Json::parse_event_t event, Json& parsed) -> bool {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (depth >= kMaxJsonDepth) {
          Fail(what, "", "header JSON nests deeper than " + std::to_string(kMaxJsonDepth) +
                             " levels (a valid header nests 3)");
        }
        if (event == Json::parse_event_t::object_start) seen.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        if (!seen.empty()) seen.pop_back();
        break;
      case Json::parse_event_t::key: {
        const std::string& key = parsed.get_ref<const std::string&>();
        if (depth == 1) current_tensor = key;
        if (!seen.empty() && !seen.back().insert(key).second) {
          if (depth == 1) {
            if (key == kMetadataKey) Fail(what, "", "duplicate \"__metadata__\" in header");
            Fail(what, "", "duplicate tensor name " + Quote(key) +
                               " in header (names must be unique)");
          }
          Fail(what, current_tensor == kMetadataKey ? "" : current_tensor,
               "duplicate key " + Quote(key) +
                   (current_tensor == kMetadataKey ? " in __metadata__" : " in its entry"));
        }
        break;
      }
      default:
        break;
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/true);
  } catch (const Json::exception& e) {
    Fail(what, "", std::string("header is not valid JSON (") + e.what() + ")");
  }
}

void ParseMetadata(const Json& value, const std::string& what, Metadata* out) {
  if (!value.is_object()) {
    Fail(what, "", "__metadata__ is a JSON " + std::string(value.type_name()) +
                       ", expected an object of string values");
  }
  for (const auto& [key, v] : value.items()) {
    if (!v.is_string()) {
      Fail(what, "", "__metadata__ value for key " + Quote(key) + " is a JSON " +
                         std::string(v.type_name()) + ", expected a string");
    }
    (*out)[key] = v.get<std::string>();
  }
}

SafetensorsEntry ParseEntry(const std::string& name, const Json& entry, std::uint64_t data_size,
                     const std::string& what) {
  if (!entry.is_object()) {
    Fail(what, name, "entry is a JSON " + std::string(entry.type_name()) +
                         ", expected an object with dtype, shape and data_offsets");
  }
  for (const auto& [key, v] : entry.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      Fail(what, name, "unexpected field " + Quote(key) +
                           " (expected exactly dtype, shape and data_offsets)");
    }
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!entry.contains(key)) {
      Fail(what, name, std::string("missing field \"") + key +
                           "\" (expected exactly dtype, shape and data_offsets)");
    }
  }

  SafetensorsEntry spec;
  spec.name = name;
  const Json& dtype = entry["dtype"];
  if (!dtype.is_string()) {
    Fail(what, name, "dtype is a JSON " + std::string(dtype.type_name()) + ", expected a string");
  }
  const std::string dtype_name = dtype.get<std::string>();
  const auto parsed_dtype = DTypeFromSafetensorsName(dtype_name);
  if (!parsed_dtype) {
    const bool known = std::find(kKnownSafetensorsDTypes.begin(), kKnownSafetensorsDTypes.end(),
                                 dtype_name) != kKnownSafetensorsDTypes.end();
    Fail(what, name, std::string(known ? "unsupported" : "unknown") + " dtype " +
                         Quote(dtype_name) + " (sampcheck reads " + SupportedDTypeList() + ")");
  }
  spec.dtype = *parsed_dtype;

  const Json& shape = entry["shape"];
  if (!shape.is_array()) {
    Fail(what, name, "shape is a JSON " + std::string(shape.type_name()) +
                         ", expected an array of non-negative integers");
  }
  spec.shape.reserve(shape.size());  // bounded by the header text, already in memory
  for (std::size_t i = 0; i < shape.size(); ++i) {
    std::string why;
    const auto extent = NonNegativeInt64(shape[i], &why);
    if (!extent) {
      Fail(what, name, "shape extent " + std::to_string(i) + " (" + shape[i].dump() + ") " + why +
                           " (extents must be integers in [0, 2^63))");
    }
    spec.shape.push_back(*extent);
  }
  const auto numel = CheckedNumElements(spec.shape, DTypeSize(spec.dtype));
  if (!numel) {
    Fail(what, name, "shape " + ShapeString(spec.shape) + " of " +
                         std::string(SafetensorsName(spec.dtype)) +
                         " has an element count or byte size that would overflow int64");
  }
  const auto expected_bytes = static_cast<std::uint64_t>(*numel) * DTypeSize(spec.dtype);

  const Json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) {
    Fail(what, name, "data_offsets is " + offsets.dump() +
                         ", expected two non-negative integers [begin, end]");
  }
  std::array<std::uint64_t, 2> range{};
  for (std::size_t i = 0; i < 2; ++i) {
    std::string why;
    const auto v = NonNegativeInt64(offsets[i], &why);
    if (!v) {
      Fail(what, name, "data_offsets " + offsets.dump() + ": " +
                           (i == 0 ? "begin " : "end ") + why +
                           " (expected non-negative integers)");
    }
    range[i] = static_cast<std::uint64_t>(*v);
  }
  spec.begin = range[0];
  spec.end = range[1];
  if (spec.begin > spec.end) {
    Fail(what, name, "data_offsets " + offsets.dump() +
                         " are reversed (expected begin <= end)");
  }
  if (spec.end > data_size) {
    Fail(what, name, "data_offsets " + offsets.dump() + " extend beyond the data section of " +
                         std::to_string(data_size) + " bytes");
  }
  if (spec.end - spec.begin != expected_bytes) {
    Fail(what, name, "byte range " + offsets.dump() + " holds " +
                         std::to_string(spec.end - spec.begin) + " bytes but shape " +
                         ShapeString(spec.shape) + " of " +
                         std::string(SafetensorsName(spec.dtype)) + " needs " +
                         std::to_string(expected_bytes) + " (size mismatch)");
  }
  return spec;
}

// The ranges, sorted by (begin, end), must tile [0, data_size) with no overlap and no hole
// (safetensors' validate(): MetadataIncompleteBuffer / InvalidOffset).
void CheckCoverage(std::vector<SafetensorsEntry>* specs, std::uint64_t data_size,
                   const std::string& what) {
  std::sort(specs->begin(), specs->end(), [](const SafetensorsEntry& a, const SafetensorsEntry& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  std::uint64_t cursor = 0;
  const SafetensorsEntry* previous = nullptr;
  for (const SafetensorsEntry& s : *specs) {
    if (s.begin < cursor) {
      Fail(what, s.name, "byte range [" + std::to_string(s.begin) + ", " +
                             std::to_string(s.end) + ") overlaps tensor " +
                             Quote(previous->name) + " ending at " + std::to_string(cursor) +
                             " (ranges must not overlap)");
    }
    if (s.begin > cursor) {
      Fail(what, s.name, "byte range starts at " + std::to_string(s.begin) +
                             ", leaving a hole of unused bytes [" + std::to_string(cursor) +
                             ", " + std::to_string(s.begin) +
                             ") (ranges must cover the data section exactly)");
    }
    cursor = s.end;
    previous = &s;
  }
  if (cursor != data_size) {
    Fail(what, "", "data section has " + std::to_string(data_size) +
                       " bytes but the tensors cover only " + std::to_string(cursor) +
                       ", leaving a hole of unused bytes at the end (ranges must cover the "
                       "data section exactly)");
  }
}

}  // namespace

SafetensorsHeader ParseSafetensorsHeader(std::span<const std::byte> prefix, std::uint64_t file_size,
                                         const std::string& what) {
  if (file_size < kLengthPrefixBytes || prefix.size() < kLengthPrefixBytes) {
    Fail(what, "", "file is truncated: " + std::to_string(file_size) +
                       " bytes, shorter than the 8-byte header length");
  }
  std::uint64_t header_len = 0;
  for (std::size_t i = 0; i < kLengthPrefixBytes; ++i) {
    header_len |= static_cast<std::uint64_t>(prefix[i]) << (8 * i);
  }
  if (header_len > kMaxHeaderBytes) {
    Fail(what, "", "header length " + std::to_string(header_len) + " exceeds the maximum of " +
                       std::to_string(kMaxHeaderBytes) + " bytes");
  }
  const std::uint64_t available = file_size - kLengthPrefixBytes;
  if (header_len > available || header_len > prefix.size() - kLengthPrefixBytes) {
    Fail(what, "", "header length " + std::to_string(header_len) +
                       " extends beyond the end of the file (" + std::to_string(available) +
                       " bytes follow the length; truncated file?)");
  }
  const std::string_view header_text(reinterpret_cast<const char*>(prefix.data()) +
                                         kLengthPrefixBytes,
                                     static_cast<std::size_t>(header_len));
  const Json header = ParseHeaderJson(header_text, what);
  if (!header.is_object()) {
    Fail(what, "", "header is a JSON " + std::string(header.type_name()) +
                       ", expected an object");
  }
  SafetensorsHeader out;
  out.data_offset = kLengthPrefixBytes + header_len;
  out.data_size = file_size - out.data_offset;
  out.entries.reserve(header.size());  // bounded by the header text
  for (const auto& [name, entry] : header.items()) {
    if (name == kMetadataKey) {
      ParseMetadata(entry, what, &out.metadata);
    } else {
      out.entries.push_back(ParseEntry(name, entry, out.data_size, what));
    }
  }
  CheckCoverage(&out.entries, out.data_size, what);
  return out;
}

namespace {

// Tensors of a checked header from its data section (exactly header.data_size bytes).
SafetensorsFile BuildTensors(SafetensorsHeader header, std::span<const std::byte> data) {
  SafetensorsFile file;
  file.metadata = std::move(header.metadata);
  for (const SafetensorsEntry& s : header.entries) {
    Tensor t(s.dtype, s.shape);
    if (t.nbytes() != 0) {
      std::memcpy(t.bytes().data(), data.data() + s.begin, t.nbytes());
    }
    file.tensors.emplace(s.name, std::move(t));
  }
  return file;
}

}  // namespace

SafetensorsFile ParseSafetensors(std::span<const std::byte> bytes, const std::string& what) {
  SafetensorsHeader header = ParseSafetensorsHeader(bytes, bytes.size(), what);
  const auto data = bytes.subspan(static_cast<std::size_t>(header.data_offset));
  return BuildTensors(std::move(header), data);
}

SafetensorsFile ReadSafetensors(const std::filesystem::path& path) {
  const std::string bytes = ReadWholeFile(path);
  return ParseSafetensors(std::as_bytes(std::span(bytes.data(), bytes.size())), path.string());
}

SafetensorsFile ReadSafetensors(const std::filesystem::path& path, std::uint64_t max_bytes,
                                std::string_view variable, const HeaderCheck& check) {
  const std::string what = path.string();
  std::uint64_t size = 0;
  const std::string length = ReadBoundedPrefix(path, max_bytes, variable, 0, kLengthPrefixBytes, &size);
  std::uint64_t header_len = 0;
  for (std::size_t i = 0; i < length.size(); ++i) {
    header_len |= static_cast<std::uint64_t>(static_cast<unsigned char>(length[i])) << (8 * i);
  }
  // Only the header is read before it has been checked: the data section is read once the
  // shapes are known to be what the caller expects.
  const std::uint64_t prefix_len = kLengthPrefixBytes + std::min(header_len, kMaxHeaderBytes);
  const std::string prefix = ReadBoundedPrefix(path, max_bytes, variable, 0, prefix_len, &size);
  SafetensorsHeader header =
      ParseSafetensorsHeader(std::as_bytes(std::span(prefix.data(), prefix.size())), size, what);
  if (check) check(header);
  std::uint64_t size_now = 0;
  const std::string data =
      ReadBoundedPrefix(path, max_bytes, variable, header.data_offset, header.data_size, &size_now);
  if (size_now != size || data.size() != header.data_size) {
    Fail(what, "", "file changed size while it was read (" + std::to_string(size) + " then " +
                       std::to_string(size_now) + " bytes)");
  }
  return BuildTensors(std::move(header), std::as_bytes(std::span(data.data(), data.size())));
}

namespace {

std::string Serialize(const TensorMap& tensors, const Metadata& metadata,
                      const std::string& what) {
  // nlohmann::json objects are std::maps, so dump() writes keys sorted bytewise at every
  // level, with no whitespace: the header is a pure function of the inputs.
  Json header = Json::object();
  if (!metadata.empty()) {
    Json meta = Json::object();
    for (const auto& [key, value] : metadata) meta[key] = value;
    header[std::string(kMetadataKey)] = std::move(meta);
  }
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {  // TensorMap iterates in name order
    if (name == kMetadataKey) {
      Fail(what, name, "the name is reserved for metadata and cannot name a tensor");
    }
    Json entry = Json::object();
    entry["dtype"] = std::string(SafetensorsName(tensor.dtype()));
    entry["shape"] = tensor.shape();
    entry["data_offsets"] = {offset, offset + tensor.nbytes()};
    offset += tensor.nbytes();
    header[name] = std::move(entry);
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const Json::exception& e) {
    // type_error 316: a name or metadata string that is not valid UTF-8.
    Fail(what, "", std::string("cannot encode the header (names and metadata must be valid "
                               "UTF-8): ") + e.what());
  }
  // Pad with spaces so that the data section starts at a multiple of 8 (8 + header length).
  text.append((8 - text.size() % 8) % 8, ' ');

  std::string out;
  out.reserve(kLengthPrefixBytes + text.size() + offset);
  const std::uint64_t n = text.size();
  for (std::size_t i = 0; i < kLengthPrefixBytes; ++i) {
    out.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
  }
  out += text;
  for (const auto& [name, tensor] : tensors) {
    const auto b = tensor.bytes();
    out.append(reinterpret_cast<const char*>(b.data()), b.size());
  }
  return out;
}

}  // namespace

std::string SerializeSafetensors(const TensorMap& tensors, const Metadata& metadata) {
  return Serialize(tensors, metadata, "safetensors writer");
}

void WriteSafetensors(const std::filesystem::path& path, const TensorMap& tensors,
                      const Metadata& metadata) {
  WriteFileAtomically(path, Serialize(tensors, metadata, path.string()));
}

}  // namespace sampcheck
