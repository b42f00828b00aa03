// SPDX-License-Identifier: Apache-2.0
// Golden set generation (golden/generator.h).
#include "golden/generator.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/sha256.h"
#include "core/stage_catalogue.h"
#include "golden/case_list.h"
#include "golden/case_text.h"
#include "reference/reference_backend.h"

namespace sampcheck::golden {

GoldenSet ParseGoldenSet(const std::string& name) {
  if (name == "v1") return GoldenSet::kV1;
  if (name == "full") return GoldenSet::kFull;
  throw InputError("unknown golden set '" + name + "'; valid sets: v1, full");
}

std::vector<Case> BuildGoldenCases(std::uint64_t seed, GoldenSet set) {
  CaseList list(seed, set);
  AddLogitBiasCases(list);
  AddPenaltiesCases(list);
  AddMinNewTokensCases(list);
  AddTokenBitmaskCases(list);
  AddAllowedTokenIdsCases(list);
  AddBadWordsCases(list);
  AddNanHandlingCases(list);
  AddTemperatureCases(list);
  AddGreedyCases(list);
  AddSoftmaxCases(list);
  AddTopKCases(list);
  AddTopPCases(list);
  AddMinPCases(list);
  AddSamplingFiltersCases(list);
  AddAscendTopKTopPSampleV2Cases(list);
  AddDrawCases(list);
  AddSeededDrawCases(list);
  AddPipelineCases(list);
  AddSpecGreedyCases(list);
  AddSpecRandomCases(list);
  AddTpConsensusCases(list);
  if (set == GoldenSet::kFull) AddLargeVocabularyCases(list);
  return list.cases();
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
                        {"set", set == GoldenSet::kV1 ? "v1" : "full"}};
  reference::ReferenceBackend reference;
  try {
    for (const Case& c : BuildGoldenCases(seed, set)) {
      GoldenCase g{c, reference.Run(c.stage, c),
                   ComparisonRule::Parse(RequireStage(c.stage).comparison)};
      const std::string file = c.id + ".safetensors";
      const std::string bytes = SerializeCase(g);
      std::filesystem::create_directories((tmp / file).parent_path());
      WriteFileAtomically(tmp / file, bytes);
      if (HasTextForm(g)) WriteFileAtomically(tmp / (c.id + ".txt"), CaseText(g));
      manifest.cases.push_back({c.id, c.stage, c.profile, file, Sha256Hex(bytes), g.comparison.ToString()});
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
