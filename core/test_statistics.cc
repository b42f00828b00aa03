// SPDX-License-Identifier: Apache-2.0
// Layer names (core/test_statistics.h).
#include "core/test_statistics.h"

#include <utility>

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

TestStatistics PlannedTest(TestLayer layer, std::string test, std::int64_t n, double alpha, double mde, double power,
                           std::uint64_t seed) {
  TestStatistics s;
  s.layer = layer;
  s.test = std::move(test);
  s.n = n;
  s.alpha = alpha;
  s.mde = mde;
  s.power = power;
  s.seed = seed;
  return s;
}

}  // namespace sampcheck
