// SPDX-License-Identifier: Apache-2.0
// Layer names (core/test_statistics.h).
#include "core/test_statistics.h"

namespace sampcheck {

std::string_view TestLayerName(TestLayer layer) {
  switch (layer) {
    case TestLayer::kKnownAnswer: return "L0";
    case TestLayer::kStructural: return "L1";
    case TestLayer::kTargeted: return "L2";
    case TestLayer::kOmnibus: return "L3";
    case TestLayer::kTails: return "L4";
  }
  return "?";
}

}  // namespace sampcheck
