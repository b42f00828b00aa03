// SPDX-License-Identifier: Apache-2.0
// Golden set generation (golden/generator.h).
#include "golden/generator.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/manifest.h"
#include "core/sha256.h"
#include "core/stage_catalogue.h"
#include "golden/case_family.h"
#include "golden/case_list.h"
#include "golden/case_text.h"
#include "golden/huge_cases.h"
#include "reference/reference_backend.h"

namespace sampcheck::golden {

GoldenSet ParseGoldenSet(const std::string& name) {
  if (name == "v1") return GoldenSet::kV1;
  if (name == "full") return GoldenSet::kFull;
  if (name == "huge") return GoldenSet::kHuge;
  throw InputError("unknown golden set '" + name + "'; valid sets: v1, full, huge");
}

const char* GoldenSetName(GoldenSet set) {
  switch (set) {
    case GoldenSet::kV1: return "v1";
    case GoldenSet::kFull: return "full";
    case GoldenSet::kHuge: return "huge";
  }
  throw std::logic_error("GoldenSetName: unknown GoldenSet");
}

std::vector<Case> BuildGoldenCases(std::uint64_t seed, GoldenSet set) {
  CaseList list(seed, set);
  if (set == GoldenSet::kHuge) {
    AddHugeCases(list, HugeRowsFromEnvironment());  // the huge set holds only its own cases
    return list.TakeCases();
  }
  for (const CaseFamily* family : CaseFamilies()) family->add(list);
  if (set == GoldenSet::kFull) AddLargeVocabularyCases(list);
  return list.TakeCases();
}

namespace {

// Refuses, before anything is written, an --out that is not a golden set this generator may
// replace (docs/spec/golden.md "Generation"): the swap below removes the old directory whole, so
// a mistyped path (a checkout's golden/ instead of golden/v1, a home directory, a file) would be
// deleted. Replaceable: absent, an empty directory, or a directory whose manifest.json names
// this generator and which holds nothing but that manifest, the files it lists and their .txt
// forms. Anything else is an InputError naming the path, with nothing touched.
void CheckReplaceable(const std::filesystem::path& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(out, ec);
  if (ec || st.type() == fs::file_type::not_found) return;  // absent: created by the swap
  if (st.type() == fs::file_type::symlink) {
    throw InputError(out.string() + ": is a symbolic link; --out must be a golden set directory, an "
                     "empty directory or a new path (nothing was written)");
  }
  if (st.type() != fs::file_type::directory) {
    throw InputError(out.string() + ": exists and is not a directory; --out must be a golden set "
                     "directory, an empty directory or a new path (nothing was written)");
  }
  if (fs::is_empty(out, ec) && !ec) return;
  const std::string refuse = out.string() + ": is not a golden set";
  const std::string keep = "; refusing to replace it (nothing was written). Give a new path, an empty "
                           "directory or an existing golden set directory such as golden/v1";
  Manifest manifest;
  try {
    manifest = ReadManifest(out);
  } catch (const InputError& e) {
    throw InputError(refuse + " (" + e.what() + ")" + keep);
  }
  const nlohmann::json& gen = manifest.generator;
  if (!gen.is_object() || !gen.contains("name") || gen["name"] != "sampcheck") {
    throw InputError(refuse + " (its manifest.json does not name the sampcheck generator)" + keep);
  }
  std::set<fs::path> listed{"manifest.json"};
  for (const ManifestEntry& e : manifest.cases) {
    listed.insert(fs::path(e.file).lexically_normal());
    listed.insert(fs::path(e.id + ".txt").lexically_normal());
  }
  for (auto it = fs::recursive_directory_iterator(out, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::file_type type = it->symlink_status().type();
    if (type == fs::file_type::directory) continue;
    const fs::path rel = it->path().lexically_relative(out);
    if (type != fs::file_type::regular || !listed.count(rel)) {
      throw InputError(refuse + ": " + it->path().string() + " is not part of the set its manifest lists" + keep);
    }
  }
  if (ec) throw InputError(out.string() + ": cannot list the directory: " + ec.message() + keep);
}

// The scratch directory's files reach the disk before the swap: one syncfs(2) of its file system
// instead of an fsync per file (about 4 ms each here: the 1161 files of `generate --set v1` took
// 5 s of wall time for 0.5 s of CPU). The files are new and their directory is swapped in
// whole, so no reader sees one before it is complete whatever the order they reach the disk.
void SyncToDisk(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool ok = fd >= 0 && ::syncfs(fd) == 0;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (!ok) throw InputError(dir.string() + ": cannot flush the new golden set to disk: " + std::strerror(err));
}

void SwapIntoPlace(const std::filesystem::path& tmp, const std::filesystem::path& out) {
  std::error_code ec;
  if (!std::filesystem::exists(out)) {
    std::filesystem::rename(tmp, out, ec);
    if (ec) throw InputError(out.string() + ": cannot move the new golden set into place: " + ec.message());
    return;
  }
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, out.c_str(), RENAME_EXCHANGE) != 0) {
    throw InputError(out.string() + ": cannot swap the new golden set into place: " +
                     std::strerror(errno));
  }
  std::filesystem::remove_all(tmp, ec);  // now the old set
}

}  // namespace

Manifest GenerateGoldenSet(const std::filesystem::path& out_dir, std::uint64_t seed, GoldenSet set) {
  const std::filesystem::path out = std::filesystem::absolute(out_dir).lexically_normal();
  std::filesystem::path tmp = out;
  tmp += ".tmp." + std::to_string(::getpid());
  CheckReplaceable(out);
  std::error_code ec;
  // The scratch directory must be new: a path of that name is somebody's, never removed here.
  if (std::filesystem::exists(std::filesystem::symlink_status(tmp, ec))) {
    throw InputError(tmp.string() + ": already exists; remove it or choose another --out (nothing was written)");
  }
  if (!out.parent_path().empty()) std::filesystem::create_directories(out.parent_path(), ec);
  if (ec || !std::filesystem::create_directory(tmp, ec) || ec) {
    throw InputError(tmp.string() + ": cannot create directory: " + (ec ? ec.message() : std::string("exists")));
  }

  Manifest manifest;
  manifest.generator = {{"name", "sampcheck"},
                        {"version", SAMPCHECK_VERSION},
                        {"host_flags", SAMPCHECK_HOST_FLAGS},
                        {"seed", seed},
                        {"set", GoldenSetName(set)}};
  reference::ReferenceBackend reference;
  try {
    std::vector<Case> cases = BuildGoldenCases(seed, set);
    for (Case& c : cases) {
      TensorMap expected = reference.Run(c.stage, c);
      const ComparisonRule rule = ComparisonRule::Parse(RequireStage(c.stage).comparison);
      ManifestEntry entry{c.id, c.stage, c.profile, c.id + ".safetensors", "", rule.ToString()};
      // The case moves into the GoldenCase and its tensors into the file's bytes: at most one
      // copy of a case's inputs exists beside the bytes (the huge set's 4.3 GB logits).
      GoldenCase g{std::move(c), std::move(expected), rule};
      std::filesystem::create_directories((tmp / entry.file).parent_path());
      if (HasTextForm(g)) WriteFileAtomically(tmp / (entry.id + ".txt"), CaseText(g), /*sync_to_disk=*/false);
      const std::string bytes = SerializeCase(std::move(g));
      WriteFileAtomically(tmp / entry.file, bytes, /*sync_to_disk=*/false);
      entry.sha256 = Sha256Hex(bytes);
      manifest.cases.push_back(std::move(entry));
    }
    WriteFileAtomically(tmp / "manifest.json", ManifestToJson(manifest).dump(1) + "\n", /*sync_to_disk=*/false);
    SyncToDisk(tmp);
    SwapIntoPlace(tmp, out);
  } catch (...) {
    std::filesystem::remove_all(tmp, ec);
    throw;
  }
  return manifest;
}

}  // namespace sampcheck::golden
