// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test-only helpers: bit patterns and readable float printing for failure messages
// (docs/contributing.md "Tests": hex bits and %a next to decimals).

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace sampcheck::testing {

inline std::uint32_t Bits(float x) { return std::bit_cast<std::uint32_t>(x); }
inline float FromBits(std::uint32_t b) { return std::bit_cast<float>(b); }
// "1.5 (0x1.8p+0, 0x3fc00000)"
std::string Describe(float x);
inline std::vector<std::uint32_t> FloatBitsOf(const std::vector<float>& v) {
  std::vector<std::uint32_t> out;
  for (float x : v) out.push_back(Bits(x));
  return out;
}

}  // namespace sampcheck::testing
