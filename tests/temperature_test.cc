// SPDX-License-Identifier: Apache-2.0
// Tests of temperature (reference/temperature.h, docs/spec/temperature.md). Epsilons are the
// peers' Python constants: vLLM _SAMPLING_EPS = 1e-5, _MAX_TEMP = 1e-2; SGLang
// _SAMPLING_EPS = 1e-6.
#include <limits>

#include <gtest/gtest.h>

#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

struct Row {
  float t;
  bool greedy_canonical, greedy_vllm, greedy_sglang;
  int line;
};

TEST(Temperature, GreedyRowsFollowEachProfilesEpsilon) {
  // 5e-7 < 1e-6: greedy everywhere but vllm, which first raises (0, 0.01) to 0.01.
  // 5e-6: between the epsilons: canonical greedy, sglang samples.
  // f32(1e-5) = 9.99999974737875e-06 < 1e-5 (double): canonical greedy.
  // f32(1e-6) = 9.99999997475242708e-07 < 1e-6 (double): sglang greedy.
  const Row rows[] = {
      {0.0f, true, true, true, __LINE__},     {5e-7f, true, false, true, __LINE__},
      {5e-6f, true, false, false, __LINE__},  {1e-5f, true, false, false, __LINE__},
      {1e-6f, true, false, true, __LINE__},   {2e-5f, false, false, false, __LINE__},
      {0.5f, false, false, false, __LINE__},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(::testing::Message() << "line " << r.line << ", t = " << Describe(r.t));
    TensorMap in = {{"logits", F32Tensor({1, 2}, {1, 2})}, {"temperature", F32Tensor({1}, {r.t})}};
    EXPECT_EQ(RunReference("temperature", "canonical", in).at("is_greedy").data<std::uint8_t>()[0], r.greedy_canonical);
    EXPECT_EQ(RunReference("temperature", "vllm", in).at("is_greedy").data<std::uint8_t>()[0], r.greedy_vllm);
    EXPECT_EQ(RunReference("temperature", "sglang", in).at("is_greedy").data<std::uint8_t>()[0], r.greedy_sglang);
  }
}

TEST(Temperature, DividesOnceAndGreedyRowsKeepTheirBits) {
  // {1, 2} / 0.5 = {2, 4} exactly. Greedy row: divided by 1.0, bits kept (-0.0 included).
  TensorMap in = {{"logits", F32Tensor({2, 2}, {1, 2, -0.0f, 3})}, {"temperature", F32Tensor({2}, {0.5f, 0.0f})}};
  EXPECT_EQ(FloatBits(RunReference("temperature", "vllm", in).at("logits")),
            (std::vector<std::uint32_t>{Bits(2.0f), Bits(4.0f), 0x80000000u, Bits(3.0f)}));
}

TEST(Temperature, DivisionIsNotMultiplicationByReciprocal) {
  // 9 / 0.3f: 0.3f = 0.300000011920929, the exact quotient is 29.99999880791...; f32 values
  // near 30 are 2^-19 = 1.907e-6 apart, so the candidates are 30 (1.19e-6 away) and
  // 29.999998092651367 (0.72e-6 away): the division gives 0x41EFFFFF. Multiplying by the
  // rounded reciprocal 1 / 0.3f = 3.3333332538604736 gives 29.99999928474426 exactly, which
  // rounds to 30.0f (0x41F00000). The stage must give the division.
  TensorMap in = {{"logits", F32Tensor({1, 1}, {9})}, {"temperature", F32Tensor({1}, {0.3f})}};
  EXPECT_EQ(FloatBits(RunReference("temperature", "canonical", in).at("logits"))[0], 0x41EFFFFFu);
}

TEST(Temperature, VllmRaisesTinyTemperaturesToOneHundredth) {
  // t = 0.005 is raised to 0.01f = 0.00999999977648258; 1 / that = 100.0000022..., which
  // rounds to 100.0f (f32 values near 100 are 2^-17 = 7.6e-6 apart). canonical divides by
  // 0.005f = 0.004999999888241291: 200.0000045, which rounds to 200.0f likewise.
  TensorMap in = {{"logits", F32Tensor({1, 1}, {1})}, {"temperature", F32Tensor({1}, {0.005f})}};
  EXPECT_EQ(Floats(RunReference("temperature", "vllm", in).at("logits"))[0], 100.0f);
  EXPECT_EQ(Floats(RunReference("temperature", "canonical", in).at("logits"))[0], 200.0f);
}

TEST(Temperature, RejectsNegativeNanAndInfinite) {
  for (float t : {-1.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    TensorMap in = {{"logits", F32Tensor({1, 1}, {1})}, {"temperature", F32Tensor({1}, {t})}};
    EXPECT_THROW(RunReference("temperature", "canonical", in), std::invalid_argument) << t;
  }
}

}  // namespace
}  // namespace sampcheck::testing
