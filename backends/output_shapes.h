// SPDX-License-Identifier: Apache-2.0
#pragma once
// The output shapes a case calls for, from the stage catalogue's symbolic shapes
// (core/stage_catalogue.h, e.g. inputs "[B, V]" and "[B, K]", output "[B, K + 1]") bound to
// the case's input tensors. Used to refuse a backend's response from its header alone, before
// its data is read (docs/spec/exchange.md "run"), so a response of the wrong size costs
// no memory.
//
// Contract: each symbol (B, V, K, ...) takes the extent of the first present input that names
// it at that position (inputs whose rank differs from their spec are ignored); a dimension
// "S + n" is that extent plus n. A dimension whose symbol no present input binds is unknown
// (nullopt) and not checked. Outputs of a stage not in the catalogue: an empty map.
// Example: greedy with in.logits [3, 7]: {"token": [3]}.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/case.h"

namespace sampcheck::backends {

using ExpectedShape = std::vector<std::optional<std::int64_t>>;

// Every output the stage lists; nullopt for a shape whose spelling is not understood.
std::map<std::string, std::optional<ExpectedShape>> ExpectedOutputShapes(const Case& c);
// "[3, ?]"
std::string ExpectedShapeString(const ExpectedShape& shape);
// True when `shape` has the rank and every known extent of `expected`.
bool ShapeMatches(const ExpectedShape& expected, const Shape& shape);

}  // namespace sampcheck::backends
