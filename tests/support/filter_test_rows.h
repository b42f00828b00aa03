// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test-only inputs for the filter stages: the dyadic row whose softmax is exactly
// {0.5, 0.25, 0.125, 0.125} (derived by hand in tests/softmax_test.cc), a count of kept
// entries, and generators of rows of small multiples of 1/8 (frequent ties) with some -inf.

#include <cstdint>
#include <limits>
#include <vector>

#include <rapidcheck.h>

#include "core/profile.h"

namespace sampcheck::testing {

// f32(ln 2) = 0.693147182464599609375 (0x3F317218), 1.9e-9 above ln 2: exp(-kLn2F) and
// exp(-2 kLn2F) round to exactly 0.5 and 0.25.
inline constexpr float kLn2F = 0x1.62e43p-1f;
// Softmax exactly {0.5, 0.25, 0.125, 0.125}.
inline const std::vector<float> kDyadic = {0.0f, -kLn2F, -2 * kLn2F, -2 * kLn2F};

// Entries that are not -inf.
inline int Kept(const std::vector<float>& row) {
  int n = 0;
  for (float v : row) n += v != -std::numeric_limits<float>::infinity();
  return n;
}

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
