// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test-only generators for filter rows: small integers over 8 (frequent ties), some -inf.

#include <cstdint>
#include <limits>
#include <vector>

#include <rapidcheck.h>

namespace sampcheck::testing {

inline rc::Gen<std::vector<float>> FilterRows() {
  return rc::gen::map(rc::gen::nonEmpty(rc::gen::container<std::vector<std::int8_t>>(rc::gen::arbitrary<std::int8_t>())),
                      [](const std::vector<std::int8_t>& raw) {
                        std::vector<float> row;
                        for (auto v : raw) {
                          row.push_back(v == -128 ? -std::numeric_limits<float>::infinity()
                                                  : static_cast<float>(v / 4) / 8.0f);
                        }
                        if (row.size() > 1 && row[0] == -std::numeric_limits<float>::infinity()) row[0] = 0.0f;
                        return row;
                      });
}

inline constexpr Profile kFilterProfiles[] = {Profile::kCanonical, Profile::kVllm, Profile::kSglang,
                                              Profile::kFlashinfer, Profile::kAscendV2};

}  // namespace sampcheck::testing
