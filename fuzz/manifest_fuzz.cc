// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the golden manifest reader (core/manifest.h, docs/spec/golden.md
// "Manifest") on arbitrary bytes, parsed as ReadManifest does. Oracle: accepted, or refused
// with InputError; anything else (another exception type, a crash, a sanitizer report) is a
// finding (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sampcheck;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  try {
    const Manifest m = ManifestFromJson(j, "fuzz/manifest.json");
    (void)ManifestToJson(m).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const InputError&) {
  }
  return 0;
}
