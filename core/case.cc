// SPDX-License-Identifier: Apache-2.0
// Case files (core/case.h).
#include "core/case.h"

#include <utility>

#include "core/atomic_file.h"
#include "core/case_bytes.h"
#include "core/error.h"
#include "core/input_limits.h"
#include "core/safetensors.h"

namespace sampcheck {

namespace {
constexpr char kCaseKey[] = "sampcheck.case";
constexpr char kInputPrefix[] = "in.";
constexpr char kOutputPrefix[] = "out.";

std::string RequireString(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_string()) {
    throw InputError(where + ": metadata '" + kCaseKey + "' lacks string field '" + key + "'");
  }
  return j[key].get<std::string>();
}

Profile RequireProfile(const nlohmann::json& j, const std::string& where) {
  const std::string name = RequireString(j, "profile", where);
  try {
    return ParseProfile(name);
  } catch (const InputError& e) {
    throw InputError(where + ": metadata '" + kCaseKey + "' field 'profile': " + e.what());
  }
}
}  // namespace

GoldenCase ReadCaseFile(const std::filesystem::path& path) {
  const std::string bytes = ReadBoundedFile(path, MaxCaseBytes(), kMaxCaseBytesVariable);
  return ParseCase(std::as_bytes(std::span(bytes.data(), bytes.size())), path.string());
}

GoldenCase ParseCase(std::span<const std::byte> bytes, const std::string& where) {
  SafetensorsFile file = ParseSafetensors(bytes, where);
  auto it = file.metadata.find(kCaseKey);
  if (it == file.metadata.end()) {
    throw InputError(where + ": no '" + kCaseKey + "' metadata; not a sampcheck case file");
  }
  nlohmann::json meta = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object()) {
    throw InputError(where + ": metadata '" + kCaseKey + "' is not a JSON object");
  }
  GoldenCase g;
  g.input.id = RequireString(meta, "id", where);
  g.input.stage = RequireString(meta, "stage", where);
  g.input.profile = RequireProfile(meta, where);
  try {
    g.comparison = ComparisonRule::Parse(RequireString(meta, "comparison", where));
  } catch (const InputError& e) {
    const std::string why = e.what();
    throw InputError(why.starts_with(where) ? why : where + ": metadata '" + kCaseKey + "' field 'comparison': " + why);
  }
  if (meta.contains("params")) {
    if (!meta["params"].is_object()) {
      throw InputError(where + ": metadata '" + kCaseKey + "' field 'params' is not a JSON object");
    }
    g.input.params = meta["params"];
  }
  for (auto& [name, tensor] : file.tensors) {
    CheckDeclaredExtent(where, name, tensor.shape(), DTypeSize(tensor.dtype()));
    if (name.starts_with(kInputPrefix)) {
      g.input.inputs.emplace(name.substr(sizeof kInputPrefix - 1), std::move(tensor));
    } else if (name.starts_with(kOutputPrefix)) {
      g.expected.emplace(name.substr(sizeof kOutputPrefix - 1), std::move(tensor));
    } else {
      throw InputError(where + ": tensor '" + name + "' is neither 'in.*' nor 'out.*'");
    }
  }
  return g;
}

namespace {

std::string SerializeTensors(const TensorMap& tensors, const GoldenCase& golden) {
  nlohmann::json meta = {{"id", golden.input.id},
                         {"stage", golden.input.stage},
                         {"profile", ProfileName(golden.input.profile)},
                         {"params", golden.input.params},
                         {"comparison", golden.comparison.ToString()}};
  return SerializeSafetensors(tensors, {{kCaseKey, meta.dump()}});
}

}  // namespace

std::string SerializeCase(const GoldenCase& golden) {
  TensorMap tensors;
  for (const auto& [name, t] : golden.input.inputs) tensors.emplace(kInputPrefix + name, t);
  for (const auto& [name, t] : golden.expected) tensors.emplace(kOutputPrefix + name, t);
  return SerializeTensors(tensors, golden);
}

std::string SerializeCase(GoldenCase&& golden) {
  TensorMap tensors;
  for (auto& [name, t] : golden.input.inputs) tensors.emplace(kInputPrefix + name, std::move(t));
  for (auto& [name, t] : golden.expected) tensors.emplace(kOutputPrefix + name, std::move(t));
  return SerializeTensors(tensors, golden);
}

void WriteCaseFile(const std::filesystem::path& path, const GoldenCase& golden) {
  WriteFileAtomically(path, SerializeCase(golden));
}

}  // namespace sampcheck
