// SPDX-License-Identifier: Apache-2.0
// The kernels of gpu/ on the checking emulator (gpu/kernel_runner.h): the contract examples
// (hand-computed, from docs/spec/greedy.md, softmax.md, temperature.md and filters.md), bit equality with
// the reference on random rows, and padded rows (pitch > V, V = 1, the tile-misaligned
// vocabularies 151936 and 128256) whose pad entries hold +inf or NaN and must never win or be
// read. Every launch runs with the emulator's checks on: a violation throws and fails the test.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/split_mix64.h"
#include "gpu/kernel_runner.h"
#include "gpu/radix_select.cuh"  // filters
#include "reference/reductions.h"
#include "reference/softmax.h"

namespace sampcheck::gpu {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

std::uint32_t Bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Rows of V logits in [-8, 8), with some -inf, laid out with `pitch` per row and `pad` in
// the padding.
std::vector<float> RandomRows(std::int64_t rows, std::int64_t vocab, std::int64_t pitch, float pad,
                              std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<float> x(static_cast<std::size_t>(rows * pitch), pad);
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t i = 0; i < vocab; ++i) {
      const std::uint64_t r = rng.Next();
      float v = static_cast<float>(static_cast<std::int64_t>(r >> 40) - (1 << 23)) * 0x1p-20f;
      if ((r & 63) == 0) v = -kInf;
      x[static_cast<std::size_t>(b * pitch + i)] = v;
    }
  }
  return x;
}

std::span<const float> RowOf(const std::vector<float>& x, std::int64_t b, std::int64_t vocab, std::int64_t pitch) {
  return std::span<const float>(x).subspan(static_cast<std::size_t>(b * pitch), static_cast<std::size_t>(vocab));
}

std::int64_t GreedyOne(const std::vector<float>& row) {
  std::int64_t token = -7;
  MakeEmulatedRunner()->Greedy(row.data(), 1, static_cast<std::int64_t>(row.size()),
                               static_cast<std::int64_t>(row.size()), &token);
  return token;
}

// docs/spec/greedy.md's examples.
TEST(GpuGreedy, ContractExamples) {
  EXPECT_EQ(GreedyOne({1, 3, 3, -kInf}), 1);
  EXPECT_EQ(GreedyOne({-kInf, -kInf}), 0);
  EXPECT_EQ(GreedyOne({5, kNan, kNan}), 1);
  EXPECT_EQ(GreedyOne({-0.0f, 0.0f}), 0);  // equal values: lowest index
}

// Ties across lanes and across the tree: the maximum at indices 1500 (lane 476) and 2000
// (lane 976), nothing else as large: the lower index wins whatever lane holds it.
TEST(GpuGreedy, TieAcrossLanesGoesToLowerIndex) {
  std::vector<float> row(3000, 0.0f);
  row[2000] = 4.0f;
  row[1500] = 4.0f;
  EXPECT_EQ(GreedyOne(row), 1500);
}

struct Padded {
  std::int64_t vocab;
  std::int64_t pitch;
};

class GpuPaddedRows : public ::testing::TestWithParam<Padded> {};

// Pads of +inf and NaN would win an argmax if read; the answer must be the unpadded row's.
TEST_P(GpuPaddedRows, GreedyNeverPicksAPad) {
  const auto [vocab, pitch] = GetParam();
  const std::int64_t rows = 3;
  for (const float pad : {kInf, kNan}) {
    const std::vector<float> x = RandomRows(rows, vocab, pitch, pad, 20261124 + static_cast<std::uint64_t>(vocab));
    std::vector<std::int64_t> token(rows, -7);
    MakeEmulatedRunner()->Greedy(x.data(), rows, vocab, pitch, token.data());
    for (std::int64_t b = 0; b < rows; ++b) {
      EXPECT_EQ(token[static_cast<std::size_t>(b)], reference::CanonicalArgmax(RowOf(x, b, vocab, pitch)))
          << "row " << b << " pad " << pad;
      EXPECT_LT(token[static_cast<std::size_t>(b)], vocab);
    }
  }
}

TEST_P(GpuPaddedRows, SoftmaxMatchesReferenceBitwise) {
  const auto [vocab, pitch] = GetParam();
  const std::int64_t rows = 2;
  const std::vector<float> x = RandomRows(rows, vocab, pitch, kNan, 77 + static_cast<std::uint64_t>(vocab));
  for (const bool log : {false, true}) {
    std::vector<float> got(static_cast<std::size_t>(rows * vocab), -1.0f);
    MakeEmulatedRunner()->Softmax(x.data(), nullptr, rows, vocab, pitch, log, got.data());
    std::vector<float> want(static_cast<std::size_t>(vocab));
    for (std::int64_t b = 0; b < rows; ++b) {
      if (log) {
        reference::LogSoftmaxRow(RowOf(x, b, vocab, pitch), want);
      } else {
        reference::SoftmaxRow(RowOf(x, b, vocab, pitch), want);
      }
      int mismatches = 0;
      for (std::int64_t i = 0; i < vocab; ++i) {
        mismatches += Bits(got[static_cast<std::size_t>(b * vocab + i)]) != Bits(want[static_cast<std::size_t>(i)]);
      }
      EXPECT_EQ(mismatches, 0) << "row " << b << (log ? " log_softmax" : " softmax");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, GpuPaddedRows,
                         ::testing::Values(Padded{1, 1}, Padded{1, 64}, Padded{31, 32}, Padded{1024, 1024},
                                           Padded{1025, 1088}, Padded{151936, 152064}, Padded{128256, 128512}),
                         [](const auto& info) {
                           char name[64];
                           std::snprintf(name, sizeof name, "V%lldPitch%lld", static_cast<long long>(info.param.vocab),
                                         static_cast<long long>(info.param.pitch));
                           return std::string(name);
                         });

// docs/spec/softmax.md: {0, 0} -> {0.5, 0.5}; a row with one finite entry among -inf gives
// probability 1 there and +0 elsewhere, logprobs 0 and -inf; an all -inf row gives NaN.
TEST(GpuSoftmax, ContractExamples) {
  auto run = [](std::vector<float> x, bool log) {
    std::vector<float> y(x.size());
    MakeEmulatedRunner()->Softmax(x.data(), nullptr, 1, static_cast<std::int64_t>(x.size()),
                                  static_cast<std::int64_t>(x.size()), log, y.data());
    return y;
  };
  EXPECT_EQ(run({0, 0}, false), (std::vector<float>{0.5f, 0.5f}));
  const std::vector<float> one = run({-kInf, 2.5f, -kInf}, false);
  EXPECT_EQ(Bits(one[0]), Bits(0.0f));
  EXPECT_EQ(one[1], 1.0f);
  const std::vector<float> log_one = run({-kInf, 2.5f, -kInf}, true);
  EXPECT_EQ(log_one[0], -kInf);
  EXPECT_EQ(Bits(log_one[1]), Bits(0.0f));
  const std::vector<float> none = run({-kInf, -kInf}, false);
  EXPECT_TRUE(std::isnan(none[0]) && std::isnan(none[1]));
}

// With a temperature: y = x / t, one division per entry, before the max: the same bits as
// the reference's softmax of the divided row.
TEST(GpuSoftmax, DividesByTheTemperatureFirst) {
  const std::vector<float> x = {1.0f, 3.0f, -2.0f};
  const float t = 0.7f;
  std::vector<float> got(3);
  MakeEmulatedRunner()->Softmax(x.data(), &t, 1, 3, 3, false, got.data());
  std::vector<float> scaled = {x[0] / t, x[1] / t, x[2] / t};
  std::vector<float> want(3);
  reference::SoftmaxRow(scaled, want);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Bits(got[static_cast<std::size_t>(i)]), Bits(want[static_cast<std::size_t>(i)]));
}

// docs/spec/temperature.md: {1, 2} at t = 0.5 -> {2, 4}; t = 0 -> {1, 2} and greedy; vllm
// raises t = 0.001 to 0.01 (so 1 / 0.01f), canonical keeps it (1 / 0.001f, not greedy since
// 0.001 >= 1e-5); sglang's epsilon 1e-6 makes t = 5e-6 non-greedy where canonical's 1e-5 makes
// it greedy.
TEST(GpuTemperature, ContractExamples) {
  const std::vector<float> x = {1.0f, 2.0f};
  auto run = [&](float t, TemperatureRule rule, std::uint8_t* greedy) {
    std::vector<float> y(2);
    MakeEmulatedRunner()->Temperature(x.data(), &t, 1, 2, 2, rule, y.data(), greedy);
    return y;
  };
  const TemperatureRule canonical{1e-5, 0.0};
  const TemperatureRule vllm{1e-5, 1e-2};
  const TemperatureRule sglang{1e-6, 0.0};
  std::uint8_t g = 7;
  EXPECT_EQ(run(0.5f, canonical, &g), (std::vector<float>{2.0f, 4.0f}));
  EXPECT_EQ(g, 0);
  EXPECT_EQ(run(0.0f, canonical, &g), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(g, 1);
  EXPECT_EQ(run(0.001f, vllm, &g), (std::vector<float>{1.0f / 0.01f, 2.0f / 0.01f}));
  EXPECT_EQ(g, 0);
  EXPECT_EQ(run(0.001f, canonical, &g), (std::vector<float>{1.0f / 0.001f, 2.0f / 0.001f}));
  EXPECT_EQ(run(5e-6f, canonical, &g), x);
  EXPECT_EQ(g, 1);
  (void)run(5e-6f, sglang, &g);
  EXPECT_EQ(g, 0);
}

// docs/spec/nan_handling.md: sglang detect_1e5 {NaN, 1} -> {-100000, 1}; vllm (and sglang keep)
// {NaN, 1} -> {NaN, 1} with the NaN's bits kept (here a negative NaN with payload 0x123);
// sglang sanitize {NaN, -inf, +inf, 1} -> {f32(-1e30), f32(-1e30), f32(1e30), 1}.
TEST(GpuNanHandling, ContractExamples) {
  const std::uint32_t nan_bits = 0xffc00123u;
  float nan;
  std::memcpy(&nan, &nan_bits, sizeof nan);
  const std::vector<float> x = {nan, 1.0f, 0.0f, 0.0f};  // pitch 4, V 2: pads never read
  std::vector<float> y(2);
  MakeEmulatedRunner()->NanHandling(x.data(), 1, 2, 4, {.nan = true, .nan_value = -1e5f}, y.data());
  EXPECT_EQ(y, (std::vector<float>{-100000.0f, 1.0f}));
  MakeEmulatedRunner()->NanHandling(x.data(), 1, 2, 4, {}, y.data());
  EXPECT_EQ(Bits(y[0]), nan_bits);
  EXPECT_EQ(y[1], 1.0f);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> z = {nan, -inf, inf, 1.0f};
  std::vector<float> w(4);
  const NanRule sanitize{true, -1e30f, true, -1e30f, true, 1e30f};
  MakeEmulatedRunner()->NanHandling(z.data(), 1, 4, 4, sanitize, w.data());
  EXPECT_EQ(Bits(w[0]), 0xf149f2cau);  // f32(-1e30)
  EXPECT_EQ(Bits(w[1]), 0xf149f2cau);
  EXPECT_EQ(Bits(w[2]), 0x7149f2cau);  // f32(1e30)
  EXPECT_EQ(w[3], 1.0f);
}

// docs/spec/masks.md (xgrammar's tests): word 0b1010101010 over logits {1..10} keeps tokens 1,
// 3, 5, 7, 9 and sets 0, 2, 4, 6, 8 to -inf; an unmasked row is copied; tokens at or past
// vocab_size are untouched.
TEST(GpuTokenBitmask, ContractExamples) {
  std::vector<float> x(20);
  for (int i = 0; i < 10; ++i) x[static_cast<std::size_t>(i)] = x[static_cast<std::size_t>(10 + i)] = 1.0f + i;
  const std::vector<std::int32_t> mask = {0b1010101010, 0b1010101010};
  std::vector<float> y(20);
  const std::vector<std::uint8_t> masked = {1, 0};
  MakeEmulatedRunner()->TokenBitmask(x.data(), mask.data(), masked.data(), 2, 10, 10, 2, 1, 10, y.data());
  const std::vector<float> want_row0 = {-kInf, 2, -kInf, 4, -kInf, 6, -kInf, 8, -kInf, 10};
  EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + 10), want_row0);
  EXPECT_EQ(std::vector<float>(y.begin() + 10, y.end()), std::vector<float>(x.begin() + 10, x.end()));
  MakeEmulatedRunner()->TokenBitmask(x.data(), mask.data(), masked.data(), 2, 10, 10, 2, 1, 4, y.data());
  const std::vector<float> want_limited = {-kInf, 2, -kInf, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + 10), want_limited);
}

// docs/spec/logit_bias.md: logits {1, 2, 3}, sparse (0, 2, 0.5) -> {1, 2, 3.5}; vllm clamps
// 250 to 100 -> {1, 2, 103}; sglang's densified bias turns an unlisted -0.0 into +0.0 while
// canonical leaves it.
TEST(GpuLogitBias, ContractExamples) {
  const std::vector<float> x = {1.0f, -0.0f, 3.0f};
  const std::int32_t row = 0, id = 2;
  float value = 0.5f;
  std::vector<float> y(3);
  MakeEmulatedRunner()->LogitBias(x.data(), nullptr, &row, &id, &value, 1, 1, 3, 3, {false, false}, y.data());
  EXPECT_EQ(y[2], 3.5f);
  EXPECT_EQ(Bits(y[1]), Bits(-0.0f));
  value = 250.0f;
  MakeEmulatedRunner()->LogitBias(x.data(), nullptr, &row, &id, &value, 1, 1, 3, 3, {false, true}, y.data());
  EXPECT_EQ(y[2], 103.0f);
  value = kNan;  // Python's min(100, max(-100, nan)) is -100
  MakeEmulatedRunner()->LogitBias(x.data(), nullptr, &row, &id, &value, 1, 1, 3, 3, {false, true}, y.data());
  EXPECT_EQ(y[2], -97.0f);
  value = 0.5f;
  MakeEmulatedRunner()->LogitBias(x.data(), nullptr, &row, &id, &value, 1, 1, 3, 3, {true, false}, y.data());
  EXPECT_EQ(Bits(y[1]), Bits(0.0f));
  EXPECT_EQ(y[2], 3.5f);
}

// docs/spec/masks.md: logits {1, 2, 3, 4}, allowed {3, 1} -> {-inf, 2, -inf, 4}; an all -1 row
// is untouched.
TEST(GpuAllowedTokenIds, ContractExamples) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<std::int32_t> allowed = {3, 1, -1, -1};
  std::vector<float> y(8);
  MakeEmulatedRunner()->AllowedTokenIds(x.data(), allowed.data(), 2, 2, 4, 4, y.data());
  EXPECT_EQ(y, (std::vector<float>{-kInf, 2, -kInf, 4, 5, 6, 7, 8}));
}

// docs/spec/penalties.md: logits {1, 2, 3}, stop {2}, output_len 0 < min_tokens 1 -> {1, 2,
// -inf}; sglang adds -inf instead (+inf becomes NaN) and +0.0 elsewhere (-0.0 -> +0.0).
TEST(GpuMinNewTokens, ContractExamples) {
  const std::vector<float> x = {-0.0f, 2.0f, kInf};
  const std::int32_t len = 0, min = 1, stop = 2;
  std::vector<float> y(3);
  MakeEmulatedRunner()->MinNewTokens(x.data(), &len, &min, &stop, 1, 1, 3, 3, false, y.data());
  EXPECT_EQ(Bits(y[0]), Bits(-0.0f));
  EXPECT_EQ(y[2], -kInf);
  MakeEmulatedRunner()->MinNewTokens(x.data(), &len, &min, &stop, 1, 1, 3, 3, true, y.data());
  EXPECT_EQ(Bits(y[0]), Bits(0.0f));
  EXPECT_TRUE(std::isnan(y[2]));
  const std::int32_t done = 1;  // output_len 1 == min_tokens 1: inactive, untouched
  MakeEmulatedRunner()->MinNewTokens(x.data(), &done, &min, &stop, 1, 1, 3, 3, false, y.data());
  EXPECT_EQ(y[2], kInf);
}

// docs/spec/masks.md: output {5, 7}: word {7, 2} bans token 2, word {5, 2} does not, a
// one-token word {4} always bans 4, a word longer than len(output) + 1 ({1, 5, 7, 3}) is skipped.
TEST(GpuBadWords, ContractExamples) {
  const std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<std::int32_t> output = {5, 7, -1};
  // 4 words of up to 4 tokens, -1 padded.
  const std::vector<std::int32_t> words = {7, 2, -1, -1, 5, 6, -1, -1, 4, -1, -1, -1, 1, 5, 7, 3};
  std::vector<float> y(8);
  MakeEmulatedRunner()->BadWords(x.data(), output.data(), 3, words.data(), 4, 4, 1, 8, 8, y.data());
  EXPECT_EQ(y, (std::vector<float>{0, 1, -kInf, 3, -kInf, 5, 6, 7}));
}

// docs/spec/penalties.md's example (hand-computed): logits {2, -2, 1}, output ids {0, 0}, r = 2,
// f = 0.5, p = 0.25 -> token 0: 2 / 2 - 0.5 * 2 - 0.25 = -0.25; tokens 1 and 2 unchanged.
TEST(GpuPenalties, ContractExample) {
  const std::vector<float> x = {2.0f, -2.0f, 1.0f};
  const std::vector<std::int32_t> output = {0, 0};
  const float r = 2.0f, f = 0.5f, p = 0.25f;
  std::vector<float> y(3);
  MakeEmulatedRunner()->Penalties(x.data(), nullptr, 0, output.data(), 2, &r, &f, &p, 1, 3, 3, false, y.data());
  EXPECT_EQ(y, (std::vector<float>{-0.25f, -2.0f, 1.0f}));
  // sglang: x + ((0 - (0.5 + 0.5)) - 0.25) = 2 - 1.25 = 0.75, then 0.75 / 2 = 0.375.
  MakeEmulatedRunner()->Penalties(x.data(), nullptr, 0, output.data(), 2, &r, &f, &p, 1, 3, 3, true, y.data());
  EXPECT_EQ(y, (std::vector<float>{0.375f, -2.0f, 1.0f}));
}


// ---- filters (top_k, top_p, min_p, sampling_filters; docs/spec/filters.md) ----

// The ln 2 row: f32(ln 2) = 0x3f317218; exp(-ln2) and exp(-2 ln2) round to exactly 0.5 and
// 0.25 (docs/spec/softmax.md "Worked example"), so probs are exactly (0.5, 0.25, 0.125, 0.125).
std::vector<float> Ln2Row() {
  const float ln2 = 0.693147182f;
  return {0.0f, -ln2, -2.0f * ln2, -2.0f * ln2};
}

// Which entries of `out` are kept (not -inf), and that each kept one is the input's bits.
std::vector<int> KeptOf(const std::vector<float>& in, const std::vector<float>& out) {
  std::vector<int> kept;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -kInf && in[i] != -kInf) continue;
    if (out[i] != -kInf) {
      EXPECT_EQ(Bits(out[i]), Bits(in[i])) << "entry " << i << " changed";
      kept.push_back(static_cast<int>(i));
    }
  }
  return kept;
}

std::vector<float> TopKOne(const std::vector<float>& row, std::int32_t k, TopKRule rule) {
  std::vector<float> out(row.size());
  const auto v = static_cast<std::int64_t>(row.size());
  MakeEmulatedRunner()->TopK(row.data(), &k, 1, v, v, rule, out.data());
  return out;
}

std::vector<float> TopPOne(const std::vector<float>& row, float p, TopPWalk walk) {
  std::vector<float> out(row.size());
  const auto v = static_cast<std::int64_t>(row.size());
  MakeEmulatedRunner()->TopP(row.data(), &p, 1, v, v, walk, out.data());
  return out;
}

std::vector<float> MinPOne(const std::vector<float>& row, float m, MinPRule rule) {
  std::vector<float> out(row.size());
  const auto v = static_cast<std::int64_t>(row.size());
  MakeEmulatedRunner()->MinP(row.data(), &m, 1, v, v, rule, out.data());
  return out;
}

// A test kernel: out[0] = SelectKth(row, n) (gpu/radix_select.cuh).
struct SelectKernel {
  template <class B, class Arr, class Out>
  void operator()(B& block, Arr row, Out out, std::int64_t vocab, bool ascending, std::int64_t n) const {
    const std::uint64_t key = SelectKth(block, row, 0, vocab, ascending, n);
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) out.Store(0, key);
    });
  }
};

std::uint64_t SelectOne(std::vector<float> row, bool ascending, std::int64_t n) {
  std::uint64_t key = 0;
  const auto v = static_cast<std::int64_t>(row.size());
  const LaunchReport report = emu::Launch("select", 1, kCanonicalLanes, [&](Block& block) {
    SelectKernel{}(block, GlobalArray<float>(row.data(), v, "row"), GlobalArray<std::uint64_t>(&key, 1, "key"), v,
                   ascending, n);
  });
  EXPECT_TRUE(report.ok()) << report.Summary();
  return key;
}

TEST(GpuRadixSelect, KthKeyOfTheCanonicalOrder) {
  // Keys by hand (docs/spec/filters.md "Order"): 3.0f = 0x40400000, monotone key with the sign
  // bit set 0xc0400000, complemented for the descending order 0x3fbfffff; 2.0f = 0x40000000 ->
  // 0x3fffffff; 1.0f = 0x3f800000 -> 0x407fffff. Order of {1, 3, 3, 2}: (3, 1), (3, 2), (2, 3),
  // (1, 0).
  const std::vector<float> row = {1.0f, 3.0f, 3.0f, 2.0f};
  EXPECT_EQ(SelectOne(row, false, 1), 0x3fbfffff00000001ull);
  EXPECT_EQ(SelectOne(row, false, 2), 0x3fbfffff00000002ull);
  EXPECT_EQ(SelectOne(row, false, 3), 0x3fffffff00000003ull);
  EXPECT_EQ(SelectOne(row, false, 4), 0x407fffff00000000ull);
  // Ascending (vLLM's walk): (1, 0), (2, 3), (3, 1), (3, 2); 1.0f's monotone key 0xbf800000.
  EXPECT_EQ(SelectOne(row, true, 1), 0xbf80000000000000ull);
  EXPECT_EQ(SelectOne(row, true, 4), 0xc040000000000002ull);
  // Across lanes and passes: 3000 equal values, rank 2500 is index 2499 (ties by index).
  EXPECT_EQ(SelectOne(std::vector<float>(3000, 1.0f), false, 2500), 0x407fffff00000000ull + 2499);
}

TEST(GpuTopK, TiesAtTheKthValuePerRule) {
  // docs/spec/filters.md top_k "Worked examples".
  const TopKRule exact{false, false, 1024};
  const TopKRule ties{true, false, 1024};
  const std::vector<float> a = {1.0f, 3.0f, 3.0f, 2.0f};
  EXPECT_EQ(KeptOf(a, TopKOne(a, 1, exact)), (std::vector<int>{1}));
  EXPECT_EQ(KeptOf(a, TopKOne(a, 1, ties)), (std::vector<int>{1, 2}));
  const std::vector<float> z = {-0.0f, 0.0f, -1.0f, -kInf, -0.0f};
  EXPECT_EQ(KeptOf(z, TopKOne(z, 2, exact)), (std::vector<int>{0, 1}));
  EXPECT_EQ(KeptOf(z, TopKOne(z, 2, ties)), (std::vector<int>{0, 1, 4}));
  // Disabled: k = 0 and k = V copy the row; ascend_v2 with ks_max 5 (-> 8) and V = 40: k = 9
  // keeps all 40.
  EXPECT_EQ(KeptOf(a, TopKOne(a, 0, exact)), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(KeptOf(a, TopKOne(a, 4, exact)), (std::vector<int>{0, 1, 2, 3}));
  std::vector<float> wide(40);
  for (int i = 0; i < 40; ++i) wide[static_cast<std::size_t>(i)] = static_cast<float>(i);
  EXPECT_EQ(KeptOf(wide, TopKOne(wide, 9, TopKRule{false, true, 5})).size(), 40u);
  EXPECT_EQ(KeptOf(wide, TopKOne(wide, 8, TopKRule{false, true, 5})),
            (std::vector<int>{32, 33, 34, 35, 36, 37, 38, 39}));
}

TEST(GpuTopP, Ln2RowPerRule) {
  // docs/spec/filters.md top_p "Worked examples": E = 0, 0.5, 0.75, 0.875 in canonical order.
  const std::vector<float> row = Ln2Row();
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.75f, TopPWalk::kExclusive)), (std::vector<int>{0, 1}));
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.75f, TopPWalk::kSglang)), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.75f, TopPWalk::kTieGroup)), (std::vector<int>{0, 1}));
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.75f, TopPWalk::kVllmAscending)), (std::vector<int>{0, 1}));
  // p = 0.8: the tie group {2, 3} (E = 0.75 < 0.8) stays whole; vLLM's ascending walk
  // (2, 3, 1, 0) drops 2 (c = 0.125 <= f32(1 - 0.8f) = 0.199999988) and keeps 3 (c = 0.25).
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.8f, TopPWalk::kExclusive)), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.8f, TopPWalk::kTieGroup)), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.8f, TopPWalk::kVllmAscending)), (std::vector<int>{0, 1, 3}));
  // p <= 0 keeps the first token; p >= 1 copies (every walk but sglang's).
  EXPECT_EQ(KeptOf(row, TopPOne(row, 0.0f, TopPWalk::kVllmAscending)), (std::vector<int>{0}));
  EXPECT_EQ(KeptOf(row, TopPOne(row, 1.0f, TopPWalk::kExclusive)), (std::vector<int>{0, 1, 2, 3}));
}

TEST(GpuMinP, ThresholdsAndTiedMaximum) {
  // docs/spec/filters.md min_p "Worked examples": max prob 0.5.
  const std::vector<float> row = Ln2Row();
  EXPECT_EQ(KeptOf(row, MinPOne(row, 0.5f, MinPRule{})), (std::vector<int>{0, 1}));
  EXPECT_EQ(KeptOf(row, MinPOne(row, 0.25f, MinPRule{})), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(KeptOf(row, MinPOne(row, 0.0f, MinPRule{})), (std::vector<int>{0, 1, 2, 3}));
  const std::vector<float> tied = {1.0f, 1.0f, 0.0f};
  EXPECT_EQ(KeptOf(tied, MinPOne(tied, 1.0f, MinPRule{false})), (std::vector<int>{0, 1}));
  EXPECT_EQ(KeptOf(tied, MinPOne(tied, 1.0f, MinPRule{true})), (std::vector<int>{0}));
}

TEST(GpuSamplingFilters, FilterOrderExampleOne) {
  // docs/spec/filters.md sampling_filters example 1: top_k 3, top_p 0.75. Canonical:
  // renormalised over {0, 1, 2} E = 0, 0.571, 0.857 -> {0, 1}, probs 2/3, 1/3 rounded
  // (0x3f2aaaab, 0x3eaaaaab); sglang: top-p on the original keeps 2 -> {0, 1, 2}, probs
  // 4/7, 2/7, 1/7 rounded (0x3f124925, 0x3e924925, 0x3e124925).
  const std::vector<float> row = Ln2Row();
  const std::int32_t k = 3;
  const float p = 0.75f;
  auto run = [&](FilterRules rules, std::vector<float>& probs) {
    std::vector<float> out(4);
    probs.assign(4, -1.0f);
    MakeEmulatedRunner()->SamplingFilters(row.data(), &k, &p, nullptr, 1, 4, 4, rules, out.data(), probs.data());
    return out;
  };
  std::vector<float> probs;
  const FilterRules canonical{};
  EXPECT_EQ(KeptOf(row, run(canonical, probs)), (std::vector<int>{0, 1}));
  EXPECT_EQ(Bits(probs[0]), 0x3f2aaaabu);
  EXPECT_EQ(Bits(probs[1]), 0x3eaaaaabu);
  EXPECT_EQ(Bits(probs[2]), 0u);
  const FilterRules sglang{TopKRule{}, TopPWalk::kSglang, MinPRule{}, FilterOrder::kJoint};
  EXPECT_EQ(KeptOf(row, run(sglang, probs)), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(Bits(probs[0]), 0x3f124925u);
  EXPECT_EQ(Bits(probs[1]), 0x3e924925u);
  EXPECT_EQ(Bits(probs[2]), 0x3e124925u);
}

TEST(GpuAscendSample, HeaderExample) {
  // reference/ascend_top_k_top_p_sample_v2.h's example: top_k 3 renormalises the ln 2 row to
  // (4/7, 2/7, 1/7); E = 0, 0.571 < 0.7, 0.857 >= 0.7: L = {0, 1}. Without q the largest prob
  // wins (token 0); with q = {1, 0.25} by position, r = {0.5714 / 1, 0.2857 / 0.25 = 1.143}:
  // token 1. is_need_sample_result: L's probs (0x3f124925, 0x3e924925) and ids, then 0 / -1.
  const std::vector<float> row = Ln2Row();
  const std::int32_t k = 3;
  const float p = 0.7f;
  const std::vector<float> q = {1.0f, 0.25f, 1.0f, 1.0f};
  std::int64_t token = -7;
  MakeEmulatedRunner()->AscendTopKTopPSampleV2(row.data(), &k, &p, nullptr, nullptr, 1, 4, 4, AscendSampleRule{},
                                               &token, nullptr, nullptr, nullptr);
  EXPECT_EQ(token, 0);
  MakeEmulatedRunner()->AscendTopKTopPSampleV2(row.data(), &k, &p, nullptr, q.data(), 1, 4, 4, AscendSampleRule{},
                                               &token, nullptr, nullptr, nullptr);
  EXPECT_EQ(token, 1);
  std::vector<float> values(4, -1.0f);
  std::vector<std::int64_t> ids(4, 99);
  AscendSampleRule result;
  result.need_sample_result = true;
  MakeEmulatedRunner()->AscendTopKTopPSampleV2(row.data(), &k, &p, nullptr, nullptr, 1, 4, 4, result, nullptr,
                                               nullptr, values.data(), ids.data());
  EXPECT_EQ(Bits(values[0]), 0x3f124925u);
  EXPECT_EQ(Bits(values[1]), 0x3e924925u);
  EXPECT_EQ(Bits(values[2]), 0u);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{0, 1, -1, -1}));
}

TEST(GpuLogprobs, HeaderExample) {
  // reference/logprobs.h's example: the ln 2 row, raw_logprobs (log softmax), token 3, n = 2:
  // top_ids {0, 1}; token 3's value ties with token 2's (both log 1/8), so canonical's rank is
  // 1 + #{greater} = 1 + 2 = 3 and vllm's #{greater or equal} = 4. token_ids {3, -1}: x[3],
  // then the quiet NaN 0x7fc00000.
  const std::vector<float> row = Ln2Row();
  const float divisor = 1.0f;
  const std::uint8_t zero = 0;
  const std::int32_t k = 0;
  const float p = 1.0f, m = 0.0f;
  const std::int64_t token = 3;
  const std::vector<std::int32_t> ids = {3, -1};
  for (const bool vllm : {false, true}) {
    LogprobsRule rule;
    rule.rank_counts_ties = vllm;
    std::vector<std::int64_t> top(2, -7);
    std::vector<float> values(2), asked(2);
    float value = 0.0f;
    std::int64_t rank = -7;
    MakeEmulatedRunner()->Logprobs(row.data(), &divisor, &zero, &zero, &k, &p, &m, &token, ids.data(), 2, 1, 4, 4, 2,
                                   rule, top.data(), values.data(), &value, &rank, asked.data());
    EXPECT_EQ(top, (std::vector<std::int64_t>{0, 1}));
    EXPECT_EQ(rank, vllm ? 4 : 3);
    EXPECT_EQ(Bits(asked[0]), Bits(value));
    EXPECT_EQ(Bits(asked[1]), 0x7fc00000u);
    EXPECT_LT(values[1], values[0]);
  }
}

// Planted fault: a top-k that takes its pivot one rank too deep keeps k + 1 tokens; the
// hand-derived answer above rejects it.
struct OffByOneTopKKernel {
  template <class B, class Arr>
  void operator()(B& block, Arr row, std::int64_t vocab, std::int64_t k) const {
    const std::uint64_t kth = SelectKth(block, row, 0, vocab, false, k + 1);  // the fault
    block.ForEachThread([&](Thread t) {
      for (std::int64_t i = t.x; i < vocab; i += kCanonicalLanes) {
        if (OrderKey(row.Load(i), i, false) > kth) row.Store(i, NegativeInfinity());
      }
    });
  }
};

TEST(GpuTopK, PlantedBadPivotIsRejected) {
  std::vector<float> row = {1.0f, 3.0f, 3.0f, 2.0f};
  const std::vector<float> in = row;
  const LaunchReport report = emu::Launch("bad_top_k", 1, kCanonicalLanes, [&](Block& block) {
    OffByOneTopKKernel{}(block, GlobalArray<float>(row.data(), 4, "row"), 4, 1);
  });
  EXPECT_TRUE(report.ok());
  EXPECT_NE(KeptOf(in, row), (std::vector<int>{1}));  // {1, 2}: the exact-k answer rejects it
}

// Planted fault: broadcasting a selected key through shared memory without the barrier
// between thread 0's write and everyone's read (the pattern every filter helper uses) is a
// race the emulator reports.
TEST(GpuRadixSelect, PlantedMissingBarrierIsARace) {
  const LaunchReport report = emu::Launch("no_barrier", 1, kCanonicalLanes, [&](Block& block) {
    SAMPCHECK_SHARED(block, std::uint64_t, verdict, 1);
    std::uint64_t cut = 0;
    block.ForEachThread([&](Thread t) {
      if (t.x == 0) verdict.Store(0, 7u);
      cut = verdict.Load(0);  // needs a block.Sync() before it
    });
    (void)cut;
  });
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.violations[0].kind, Violation::Kind::kRace);
}

}  // namespace
}  // namespace sampcheck::gpu
