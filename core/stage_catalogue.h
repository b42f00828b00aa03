// SPDX-License-Identifier: Apache-2.0
#pragma once
// The stage catalogue: every stage sampcheck specifies, with its inputs, outputs, scalar
// parameters, determinism tier, comparison rule, profiles and the spec section that defines
// it (DESIGN.md "The stage model"). `sampcheck stages` prints it; golden generation, verify
// and conform iterate over it.

#include <string>
#include <vector>

#include "core/profile.h"

namespace sampcheck {

enum class Tier { kExact, kCanonical, kDistributional };
std::string_view TierName(Tier t);

struct TensorSpec {
  std::string name;
  std::string dtypes;  // e.g. "f32|f16|bf16"
  std::string shape;   // e.g. "[B, V]"
  bool optional = false;
  std::string meaning;
};

struct ParamSpec {
  std::string name;
  std::string type;  // "int", "float", "string"
  std::string default_value;
  std::string meaning;
};

struct StageInfo {
  std::string name;
  std::string summary;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<ParamSpec> params;
  Tier tier;
  std::string comparison;  // ComparisonRule text
  std::vector<Profile> profiles;
  std::string spec_section;  // "docs/spec/penalties.md"
};

const std::vector<StageInfo>& StageCatalogue();
// nullptr when unknown.
const StageInfo* FindStage(std::string_view name);
// Throws InputError "unknown stage 'x'; valid stages: ..." when unknown.
const StageInfo& RequireStage(std::string_view name);
// Throws InputError when `profile` is not one of the stage's profiles, listing them.
void RequireStageProfile(const StageInfo& stage, std::string_view profile);

}  // namespace sampcheck
