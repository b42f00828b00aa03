// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the safetensors reader (core/safetensors.h, docs/spec/safetensors.md)
// on arbitrary bytes. Oracle: a file is either parsed, and then re-serialises and re-parses to
// the same tensors, or refused with InputError; any other exception, a crash or a sanitizer
// report is a finding (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "core/error.h"
#include "core/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sampcheck;
  const auto bytes = std::as_bytes(std::span(data, size));
  SafetensorsFile file;
  try {
    file = ParseSafetensors(bytes, "fuzz.safetensors");
  } catch (const InputError&) {
    return 0;
  }
  // Round trip: what was accepted is written back and reads the same. Metadata and names that
  // the writer refuses (not valid UTF-8 for the header JSON) are the only allowed refusal.
  std::string again;
  try {
    again = SerializeSafetensors(file.tensors, file.metadata);
  } catch (const InputError&) {
    return 0;
  }
  const SafetensorsFile back = ParseSafetensors(std::as_bytes(std::span(again.data(), again.size())), "round trip");
  if (back.metadata != file.metadata || back.tensors.size() != file.tensors.size()) std::abort();
  for (const auto& [name, t] : file.tensors) {
    const auto it = back.tensors.find(name);
    if (it == back.tensors.end() || it->second.dtype() != t.dtype() || it->second.shape() != t.shape()) std::abort();
    const auto a = t.bytes(), b = it->second.bytes();
    if (a.size() != b.size() || !std::equal(a.begin(), a.end(), b.begin())) std::abort();
  }
  return 0;
}
