// SPDX-License-Identifier: Apache-2.0
#pragma once
// The golden manifest: `manifest.json` at the root of a golden directory, listing every case
// file with its SHA-256 (docs/spec/golden.md "Manifest").
//
// {
//   "format": "sampcheck-golden", "format_version": 1,
//   "generator": {"name": "sampcheck", "version": "0.1.0", "host_flags": "...", "seed": N},
//   "cases": [{"id": "greedy/edges/canonical", "stage": "greedy", "profile": "canonical",
//              "file": "greedy/edges/canonical.safetensors", "sha256": "…",
//              "comparison": "exact"}, ...]
// }
// Case ids are unique; files are relative paths inside the directory without "..".
// The generator block deliberately holds no compiler version, date or commit: a golden set
// must be byte-identical when regenerated on any machine (the generator's determinism is what
// is recorded, by "host_flags").

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/profile.h"

namespace sampcheck {

inline constexpr char kGoldenFormatName[] = "sampcheck-golden";
inline constexpr int kGoldenFormatVersion = 1;

struct ManifestEntry {
  std::string id;
  std::string stage;
  Profile profile = Profile::kCanonical;  // parsed by ManifestFromJson, written with ProfileName
  std::string file;
  std::string sha256;
  std::string comparison;
};

struct Manifest {
  nlohmann::json generator = nlohmann::json::object();
  std::vector<ManifestEntry> cases;
};

nlohmann::json ManifestToJson(const Manifest& m);
// Validates format name and version, required fields, unique ids and safe relative paths;
// throws InputError naming `what` and the fault.
Manifest ManifestFromJson(const nlohmann::json& j, const std::string& what);
Manifest ReadManifest(const std::filesystem::path& golden_dir);

}  // namespace sampcheck
