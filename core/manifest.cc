// SPDX-License-Identifier: Apache-2.0
// Golden manifest (core/manifest.h).
#include "core/manifest.h"

#include <set>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/input_limits.h"

namespace sampcheck {

nlohmann::json ManifestToJson(const Manifest& m) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& e : m.cases) {
    cases.push_back({{"id", e.id},
                     {"stage", e.stage},
                     {"profile", ProfileName(e.profile)},
                     {"file", e.file},
                     {"sha256", e.sha256},
                     {"comparison", e.comparison}});
  }
  return {{"format", kGoldenFormatName},
          {"format_version", kGoldenFormatVersion},
          {"generator", m.generator},
          {"cases", cases}};
}

namespace {
std::string Field(const nlohmann::json& e, const char* key, const std::string& where) {
  if (!e.is_object() || !e.contains(key) || !e[key].is_string()) {
    throw InputError(where + ": field '" + key + "' missing or not a string");
  }
  return e[key].get<std::string>();
}

// The profile name, parsed once here: an unknown name is an error naming the entry and the
// accepted names.
Profile ProfileField(const nlohmann::json& e, const std::string& where) {
  const std::string name = Field(e, "profile", where);
  try {
    return ParseProfile(name);
  } catch (const InputError& err) {
    throw InputError(where + ": field 'profile': " + err.what());
  }
}

bool IsSafeRelativePath(const std::string& file) {
  if (file.empty() || file.front() == '/') return false;
  for (const auto& part : std::filesystem::path(file)) {
    if (part == "..") return false;
  }
  return true;
}
}  // namespace

Manifest ManifestFromJson(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object()) throw InputError(what + ": manifest is not a JSON object");
  if (!j.contains("format") || j["format"] != kGoldenFormatName) {
    throw InputError(what + ": 'format' must be \"" + kGoldenFormatName + "\"");
  }
  if (!j.contains("format_version") || !j["format_version"].is_number_integer() ||
      j["format_version"].get<int>() != kGoldenFormatVersion) {
    throw InputError(what + ": unsupported 'format_version' (this sampcheck reads version " +
                     std::to_string(kGoldenFormatVersion) + ")");
  }
  if (!j.contains("cases") || !j["cases"].is_array()) {
    throw InputError(what + ": 'cases' must be an array");
  }
  Manifest m;
  if (j.contains("generator")) m.generator = j["generator"];
  std::set<std::string> ids;
  for (std::size_t i = 0; i < j["cases"].size(); ++i) {
    const auto& c = j["cases"][i];
    const std::string where = what + ": cases[" + std::to_string(i) + "]";
    ManifestEntry e{Field(c, "id", where),   Field(c, "stage", where),  ProfileField(c, where),
                    Field(c, "file", where), Field(c, "sha256", where), Field(c, "comparison", where)};
    if (!ids.insert(e.id).second) throw InputError(where + ": duplicate case id '" + e.id + "'");
    if (!IsSafeRelativePath(e.file)) {
      throw InputError(where + ": file '" + e.file + "' is not a relative path inside the set");
    }
    m.cases.push_back(std::move(e));
  }
  return m;
}

Manifest ReadManifest(const std::filesystem::path& golden_dir) {
  const auto path = golden_dir / "manifest.json";
  const std::string text = ReadBoundedFile(path, MaxManifestBytes(), kMaxManifestBytesVariable);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw InputError(path.string() + ": not valid JSON");
  // A generator object is kept as it is; its size is bounded by the file's.
  return ManifestFromJson(j, path.string());
}

}  // namespace sampcheck
