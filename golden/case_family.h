// SPDX-License-Identifier: Apache-2.0
#pragma once
// Case families: what one golden/<stem>_cases.cc contributes to the golden sets
// (docs/spec/golden.md "Generation"). A family registers itself from its own file with
// SAMPCHECK_CASE_FAMILY, so adding a stage needs no edit to the generator: the generator runs
// every family in the order of the catalogue (core/stage_catalogue.h), and the `full` set's
// large-vocabulary family asks each stage's family for its inputs.
//
// Example (golden/top_p_cases.cc):
//   SAMPCHECK_CASE_FAMILY(TopP, {.stages = {"top_p"}, .add = AddTopPCases,
//                                .large_inputs = LargeTopPInputs});

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

struct CaseFamily {
  std::vector<std::string> stages;  // the catalogue stages the family covers
  void (*add)(CaseList&) = nullptr;  // the cases of every golden set
  // The `full` set at V = 32000 and 151936, one row each: either the stage's inputs besides
  // its distribution input (large_vocabulary_cases.cc adds bf16 logits, or probabilities
  // k / 16 for a stage whose distribution input is probabilities, unless the family already
  // returned that input), or a function that adds the family's large cases itself.
  TensorMap (*large_inputs)(const std::string& stage, SplitMix64& rng, std::int64_t vocab) = nullptr;
  void (*add_large)(CaseList&) = nullptr;
};

// Registers a family at static initialisation (golden/CMakeLists.txt links the library whole,
// so a family's registrar is never dropped by the linker).
struct CaseFamilyRegistrar {
  explicit CaseFamilyRegistrar(CaseFamily family);
};

// Every registered family, ordered by the catalogue index of its first stage. Throws
// std::logic_error when a family names a stage the catalogue lacks.
std::vector<const CaseFamily*> CaseFamilies();
// The family covering `stage`, or nullptr.
const CaseFamily* FindCaseFamily(const std::string& stage);

}  // namespace sampcheck::golden

#define SAMPCHECK_CASE_FAMILY(id, ...) \
  static const ::sampcheck::golden::CaseFamilyRegistrar kSampcheckCaseFamily##id(::sampcheck::golden::CaseFamily __VA_ARGS__)
