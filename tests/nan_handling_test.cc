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

TEST(NanHandling, SglangDefaultKeepsNan) {
  // SGLang's Sampler._preprocess_logits calls sanitize_nan_logits
  // (python/sglang/srt/utils/async_probe.py), which returns before touching the logits unless
  // SGLANG_SANITIZE_NAN_LOGITS is set: every bit passes through.
  const float payload = std::bit_cast<float>(0x7FC12345u);
  Tensor in = F32Tensor({1, 3}, {payload, -0.0f, -std::numeric_limits<float>::infinity()});
  EXPECT_EQ(FloatBits(RunReference("nan_handling", "sglang", {{"logits", in}}).at("logits")), FloatBits(in));
  EXPECT_EQ(FloatBits(RunReference("nan_handling", "sglang", {{"logits", in}}, {{"nan_mode", "keep"}}).at("logits")),
            FloatBits(in));
}

TEST(NanHandling, SglangSanitizeMapsNanAndInfinitiesToPlusMinusOneE30) {
  // sanitize_nan_logits with SGLANG_SANITIZE_NAN_LOGITS: torch.nan_to_num_(logits, nan=-1e30,
  // posinf=1e30, neginf=-1e30) on f32 logits. 1e30 = 1.5777218104420236 * 2^99: fraction
  // 0.5777218104420236 * 2^23 = 4846281.80 -> 4846282 = 0x49F2CA, biased exponent 99 + 127 = 226
  // = 0xE2 -> 0x7149F2CA; -1e30 -> 0xF149F2CA. Finite values, -0.0 included, keep their bits.
  const float neg_nan = std::bit_cast<float>(0xFFC00000u);
  const float inf = std::numeric_limits<float>::infinity();
  Tensor in = F32Tensor({1, 6}, {std::numeric_limits<float>::quiet_NaN(), neg_nan, inf, -inf, -0.0f, 3.0f});
  EXPECT_EQ(FloatBits(RunReference("nan_handling", "sglang", {{"logits", in}}, {{"nan_mode", "sanitize"}}).at("logits")),
            (std::vector<std::uint32_t>{0xF149F2CAu, 0xF149F2CAu, 0x7149F2CAu, 0xF149F2CAu, 0x80000000u, 0x40400000u}));
}

TEST(NanHandling, SglangDetect1e5ReplacesEveryNanByMinusOneE5) {
  // Older SGLang with --enable-nan-detection (layers/sampler.py @584f55d1):
  // torch.where(torch.isnan(logits), torch.full_like(logits, -1e5), logits).
  // -1e5 = -100000 = -1.52587890625 * 2^16: sign 1, exponent 127 + 16 = 143 (0x8F),
  // fraction 0.52587890625 * 2^23 = 0x435000 -> bits 0xC7C35000. Infinities stay.
  const float neg_nan = std::bit_cast<float>(0xFFC00000u);
  const float payload = std::bit_cast<float>(0x7FC12345u);
  Tensor in = F32Tensor({1, 5}, {std::numeric_limits<float>::quiet_NaN(), neg_nan, payload, 1.0f,
                                 std::numeric_limits<float>::infinity()});
  EXPECT_EQ(FloatBits(RunReference("nan_handling", "sglang", {{"logits", in}}, {{"nan_mode", "detect_1e5"}}).at("logits")),
            (std::vector<std::uint32_t>{0xC7C35000u, 0xC7C35000u, 0xC7C35000u, 0x3F800000u, 0x7F800000u}));
}

TEST(NanHandling, NanModeIsSglangOnlyAndChecked) {
  Tensor in = F32Tensor({1, 1}, {1.0f});
  EXPECT_THROW(RunReference("nan_handling", "vllm", {{"logits", in}}, {{"nan_mode", "sanitize"}}), std::invalid_argument);
  EXPECT_THROW(RunReference("nan_handling", "sglang", {{"logits", in}}, {{"nan_mode", "zero"}}), std::invalid_argument);
  EXPECT_THROW(RunReference("nan_handling", "sglang", {{"logits", in}}, {{"nan_mode", 1}}), std::invalid_argument);
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
