// SPDX-License-Identifier: Apache-2.0
// Tests of nan_handling (reference/nan_handling.h, docs/spec/nan_handling.md).
#include <bit>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

TEST(NanHandling, SglangReplacesEveryNanByMinusOneE5) {
  // -1e5 = -100000 = -1.52587890625 * 2^16: sign 1, exponent 127 + 16 = 143 (0x8F),
  // fraction 0.52587890625 * 2^23 = 0x435000 -> bits 0xC7C35000.
  const float neg_nan = std::bit_cast<float>(0xFFC00000u);
  const float payload = std::bit_cast<float>(0x7FC12345u);
  Tensor in = F32Tensor({1, 4}, {std::numeric_limits<float>::quiet_NaN(), neg_nan, payload, 1.0f});
  EXPECT_EQ(FloatBits(RunReference("nan_handling", "sglang", {{"logits", in}}).at("logits")),
            (std::vector<std::uint32_t>{0xC7C35000u, 0xC7C35000u, 0xC7C35000u, 0x3F800000u}));
}

TEST(NanHandling, VllmAndCanonicalPassEverythingThrough) {
  const float payload = std::bit_cast<float>(0x7FC12345u);
  Tensor in = F32Tensor({1, 3}, {payload, -0.0f, std::numeric_limits<float>::infinity()});
  for (const char* profile : {"canonical", "vllm"}) {
    EXPECT_EQ(FloatBits(RunReference("nan_handling", profile, {{"logits", in}}).at("logits")), FloatBits(in)) << profile;
  }
}

}  // namespace
}  // namespace sampcheck::testing
