// SPDX-License-Identifier: Apache-2.0
// The large-vocabulary family of the full golden set: every stage of the catalogue on one
// row of V = 32000 and V = 151936 bf16 logits, under every profile of the stage. Not in
// golden/v1, whose 8 MiB bound these would exceed (one f32 row of 151936 is 594 KiB).
// Each stage's own family (golden/<stem>_cases.cc) gives the row's other inputs
// (golden/case_family.h); the distribution input comes from the catalogue's roles.
#include <stdexcept>

#include "core/stage_catalogue.h"
#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

void AddLargeVocabularyCases(CaseList& list) {
  for (const StageInfo& stage : StageCatalogue()) {
    const CaseFamily* family = FindCaseFamily(stage.name);
    if (family == nullptr) {
      throw std::logic_error("stage '" + stage.name + "' has no case family: add golden/" + stage.name +
                             "_cases.cc with SAMPCHECK_CASE_FAMILY (golden/case_family.h)");
    }
    if (family->large_inputs == nullptr) continue;  // the family's add_large adds them
    const TensorSpec* main = stage.DistributionInput();
    for (std::int64_t vocab : {32000, 151936}) {
      const std::string name = "large_v" + std::to_string(vocab);
      auto rng = list.Rng(stage.name, name);
      TensorMap inputs = family->large_inputs(stage.name, rng, vocab);
      // Drawn for every stage, used or not, so a stage's inputs never depend on its role.
      Tensor logits = RandomLogits(rng, 1, vocab, DType::kBF16);
      // A stage with no distribution input (ids in, ids out) takes its family's inputs alone.
      if (main != nullptr && inputs.count(main->name) == 0) {
        if (main->role == Role::kProbs) {
          Tensor probs(DType::kF32, {1, vocab});  // k / 16, k in [0, 16]: zeros included
          for (float& p : probs.data<float>()) p = static_cast<float>(rng.Below(17)) / 16.0f;
          probs.data<float>()[0] = 1.0f;
          inputs.emplace(main->name, std::move(probs));
        } else {
          inputs.emplace(main->name, std::move(logits));
        }
      }
      list.Add(stage.name, name, inputs);
    }
  }
  for (const CaseFamily* family : CaseFamilies()) {
    if (family->add_large != nullptr) family->add_large(list);
  }
}

}  // namespace sampcheck::golden
