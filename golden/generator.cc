// SPDX-License-Identifier: Apache-2.0
// Golden set generation (golden/generator.h).
#include "golden/generator.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "core/atomic_file.h"
#include "core/error.h"
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
  std::error_code ec;
  std::filesystem::remove_all(tmp, ec);
  std::filesystem::create_directories(tmp, ec);
  if (ec) throw InputError(tmp.string() + ": cannot create directory: " + ec.message());

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
      if (HasTextForm(g)) WriteFileAtomically(tmp / (entry.id + ".txt"), CaseText(g));
      const std::string bytes = SerializeCase(std::move(g));
      WriteFileAtomically(tmp / entry.file, bytes);
      entry.sha256 = Sha256Hex(bytes);
      manifest.cases.push_back(std::move(entry));
    }
    WriteFileAtomically(tmp / "manifest.json", ManifestToJson(manifest).dump(1) + "\n");
    SwapIntoPlace(tmp, out);
  } catch (...) {
    std::filesystem::remove_all(tmp, ec);
    throw;
  }
  return manifest;
}

}  // namespace sampcheck::golden
