// SPDX-License-Identifier: Apache-2.0
#pragma once
// A case: one invocation of a stage — named input tensors plus JSON scalar parameters — and,
// for a golden case, the expected output tensors and the rule to compare them with.
//
// File form (docs/spec/golden.md): one safetensors file per case. Inputs are stored as
// "in.NAME", expected outputs as "out.NAME", and the metadata key "sampcheck.case" holds
// {"id", "stage", "profile", "params", "comparison"} as compact JSON with sorted keys, so
// NumPy users read everything with a JSON parser and np.frombuffer.
// Example: a greedy case holds "in.logits" [2, 5] f32 and "out.token" [2] i64.

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/comparison.h"
#include "core/profile.h"
#include "core/tensor.h"

namespace sampcheck {

struct Case {
  std::string id;       // "<stage>/<name>/<profile>", unique in a golden set
  std::string stage;    // a name from the stage catalogue
  // Parsed once where a case is read (ParseCase, the exchange and plugin boundaries); printed
  // with ProfileName.
  Profile profile = Profile::kCanonical;
  nlohmann::json params = nlohmann::json::object();  // scalar parameters only
  TensorMap inputs;
};

struct GoldenCase {
  Case input;
  TensorMap expected;
  ComparisonRule comparison;
};

GoldenCase ReadCaseFile(const std::filesystem::path& path);
// The serialised file bytes (deterministic) and an atomic write of them.
std::string SerializeCase(const GoldenCase& golden);
// The same bytes; the tensors are moved into the serializer instead of copied (a golden case
// of several GiB, docs/spec/input_classes.md "Large indices", must not be held twice).
std::string SerializeCase(GoldenCase&& golden);
void WriteCaseFile(const std::filesystem::path& path, const GoldenCase& golden);

}  // namespace sampcheck
