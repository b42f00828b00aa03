// SPDX-License-Identifier: Apache-2.0
// Test-only helpers (tests/support/test_support.h).
#include "tests/support/test_support.h"

#include <cstdio>

namespace sampcheck::testing {

std::string Describe(float x) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.9g (%a, 0x%08x)", static_cast<double>(x),
                static_cast<double>(x), Bits(x));
  return buf;
}

}  // namespace sampcheck::testing
