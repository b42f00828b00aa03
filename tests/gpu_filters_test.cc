// SPDX-License-Identifier: Apache-2.0
// The filter kernels (gpu/kernels/top_k.cuh, top_p.cuh, min_p.cuh, sampling_filters.cuh) through the
// gpu-emulated backend against the reference backend, bit for bit, for every profile and
// order, on rows large and flat enough that the top-p walk takes several 1024-entry chunks
// (each chunk's bound found by radix select) and top-k's pivot sits deep in a run of ties:
// golden/v1's filter cases have V <= 1000 or few survivors, so they never reach those paths.
// The independent source is the reference (reference/top_p.cc etc.), which selects with
// std::nth_element and a radix sort, not with the kernels' radix select.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/split_mix64.h"
#include "golden/verifier.h"
#include "gpu/backend/gpu_backend.h"
#include "gpu/block/row_slices.cuh"
#include "gpu/emulator/emulator_counters.h"
#include "gpu/runners/kernel_runner.h"
#include "reference/reference_backend.h"

namespace sampcheck::gpu {
namespace {

constexpr std::int64_t kRows = 5;
constexpr std::int64_t kVocab = 2500;

// Values j / 64 in [-2, 2): a flat distribution with ~256 distinct values (long tie runs),
// 1 in 16 entries -inf; row 4 all -inf (identity / NaN probs).
Tensor FlatRows(std::uint64_t seed, bool neg_inf_row = true) {
  SplitMix64 rng(seed);
  std::vector<float> x(static_cast<std::size_t>(kRows * kVocab));
  for (std::int64_t b = 0; b < kRows; ++b) {
    for (std::int64_t i = 0; i < kVocab; ++i) {
      const std::uint64_t r = rng.Next();
      float v = static_cast<float>(static_cast<std::int64_t>(r >> 56) - 128) / 64.0f;
      if ((neg_inf_row && b == kRows - 1) || (r & 15) == 0) v = -std::numeric_limits<float>::infinity();
      x[static_cast<std::size_t>(b * kVocab + i)] = v;
    }
  }
  return Tensor::FromValues(DType::kF32, {kRows, kVocab}, x);
}

void ExpectSameBits(const TensorMap& expected, const TensorMap& actual, const std::string& what,
                    std::int64_t vocab = kVocab) {
  for (const auto& [name, e] : expected) {
    ASSERT_TRUE(actual.count(name) != 0) << what << ": no output " << name;
    const Tensor& a = actual.at(name);
    ASSERT_EQ(e.dtype(), a.dtype()) << what << " " << name;
    ASSERT_EQ(e.shape(), a.shape()) << what << " " << name;
    if (e.dtype() == DType::kI64) {
      EXPECT_EQ(std::vector<std::int64_t>(e.data<std::int64_t>().begin(), e.data<std::int64_t>().end()),
                std::vector<std::int64_t>(a.data<std::int64_t>().begin(), a.data<std::int64_t>().end()))
          << what << " " << name;
      continue;
    }
    const auto x = e.data<float>();
    const auto y = a.data<float>();
    int shown = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (std::memcmp(&x[i], &y[i], sizeof(float)) != 0 && shown++ < 5) {
        ADD_FAILURE() << what << " " << name << "[" << i / vocab << ", " << i % vocab << "]: reference " << x[i]
                      << ", gpu-emulated " << y[i];
      }
    }
  }
}

void Compare(const std::string& stage, const std::string& profile, TensorMap inputs, nlohmann::json params = {}) {
  Case c;
  c.id = stage + "/flat/" + profile;
  c.stage = stage;
  c.profile = sampcheck::ParseProfile(profile);
  if (!params.is_null()) c.params = params;
  c.inputs = std::move(inputs);
  reference::ReferenceBackend reference;
  auto gpu = MakeGpuEmulatedBackend();
  ExpectSameBits(reference.Run(stage, c), gpu->Run(stage, c), c.id);
}

const char* const kProfiles[] = {"canonical", "vllm", "sglang", "flashinfer", "ascend_v2"};

TEST(GpuFilters, TopKMatchesReferenceDeepInTies) {
  // k = 1100 sits in a run of ties (exactly-k splits it by index); 1100 > ks_max disables
  // ascend_v2; k = 2499 = V - 1.
  for (const char* profile : kProfiles) {
    TensorMap in{{"logits", FlatRows(1)},
                 {"top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {kRows}, {5, 1100, 2499, 0, 7})}};
    Compare("top_k", profile, std::move(in));
  }
}

TEST(GpuFilters, TopPMatchesReferenceAcrossChunks) {
  // p = 0.9 and 0.999 need nuclei of more than 1024 entries: two or three chunks; p = 1 runs
  // sglang's walk over every finite entry.
  for (const char* profile : kProfiles) {
    TensorMap in{{"logits", FlatRows(2)},
                 {"top_p", Tensor::FromValues<float>(DType::kF32, {kRows}, {0.9f, 0.999f, 0.3f, 1.0f, 0.5f})}};
    Compare("top_p", profile, std::move(in));
  }
}

TEST(GpuFilters, MinPMatchesReference) {
  for (const char* profile : kProfiles) {
    TensorMap in{{"logits", FlatRows(3)},
                 {"min_p", Tensor::FromValues<float>(DType::kF32, {kRows}, {0.01f, 0.5f, 1.0f, 0.9f, 0.1f})}};
    Compare("min_p", profile, std::move(in));
  }
}

// sampling_filters' inputs: the logits and each row's top-k, top-p and min-p.
TensorMap FilterInputs(const Tensor& logits, std::span<const std::int32_t> ks, std::span<const float> ps,
                       std::span<const float> ms) {
  return TensorMap{
      {"logits", logits},
      {"top_k",
       Tensor::FromValues<std::int32_t>(DType::kI32, {kRows}, std::vector<std::int32_t>(ks.begin(), ks.end()))},
      {"top_p", Tensor::FromValues<float>(DType::kF32, {kRows}, std::vector<float>(ps.begin(), ps.end()))},
      {"min_p", Tensor::FromValues<float>(DType::kF32, {kRows}, std::vector<float>(ms.begin(), ms.end()))}};
}

TEST(GpuFilters, SamplingFiltersMatchReferenceInEveryOrder) {
  auto inputs = [] {
    return TensorMap{{"logits", FlatRows(4)},
                     {"top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {kRows}, {0, 1500, 50, 0, 3})},
                     {"top_p", Tensor::FromValues<float>(DType::kF32, {kRows}, {0.95f, 0.9f, 0.8f, 1.0f, 0.5f})},
                     {"min_p", Tensor::FromValues<float>(DType::kF32, {kRows}, {0.0f, 0.05f, 0.1f, 1.0f, 0.2f})}};
  };
  for (const char* profile : kProfiles) Compare("sampling_filters", profile, inputs());
  Compare("sampling_filters", "flashinfer", inputs(), {{"order", "joint"}});
}

// r's top 24 bits as a float in [0, 1) (a multiple of 2^-24).
float Unit(std::uint64_t r) { return static_cast<float>(r >> 40) * 0x1.0p-24f; }

// [rows, vocab] values, row-major: entry (b, i) is value(b, i, r) for r the next draw of
// SplitMix64(seed), one draw an entry.
template <class F>
std::vector<float> GeneratedRows(std::int64_t rows, std::int64_t vocab, std::uint64_t seed, F&& value) {
  SplitMix64 rng(seed);
  std::vector<float> x;
  x.reserve(static_cast<std::size_t>(rows * vocab));
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t i = 0; i < vocab; ++i) x.push_back(value(b, i, rng.Next()));
  }
  return x;
}

// The top_k_first order's survivor path (gpu/kernels/sampling_filters_on_survivors.cuh): rows of
// continuous values (few candidates: the path runs), values on a grid of 1/8 (tie groups at K,
// at the walk's cut and across min_p's threshold), +0.0 / -0.0 maxima (their sign must survive in
// `out`), and k from 1 to 1024 (at 1024 the candidates may not fit: the full-row path).
Tensor SurvivorRows(std::uint64_t seed) {
  return Tensor::FromValues(DType::kF32, {kRows, kVocab},
                            GeneratedRows(kRows, kVocab, seed, [](std::int64_t b, std::int64_t, std::uint64_t r) {
                              const float v = -8.0f + 16.0f * Unit(r);
                              if (b == 1) return std::floor(v * 8.0f) / 8.0f;
                              if (b == 2) return v > 0.0f ? ((r & 1) != 0 ? 0.0f : -0.0f) : v;
                              return v;
                            }));
}

TEST(GpuFilters, SurvivorPathMatchesReference) {
  const std::int32_t ks[][kRows] = {{1, 2, 50, 1024, 300}, {50, 50, 7, 3, 1000}};
  const float ps[][kRows] = {{0.9f, 0.5f, 0.99f, 0.0f, 1.0f}, {0.3f, 0.95f, 1.0f, 0.9f, 0.999f}};
  const float ms[][kRows] = {{0.0f, 0.05f, 0.0f, 1.0f, 0.2f}, {0.05f, 0.0f, 0.5f, 0.0f, 1.0f}};
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE(testing::Message() << "parameter set " << set);
    auto inputs = [&] { return FilterInputs(SurvivorRows(11 + set), ks[set], ps[set], ms[set]); };
    Compare("sampling_filters", "canonical", inputs());
    Compare("sampling_filters", "flashinfer", inputs());  // top_k_first: ties kept, tie-group walk
  }
}

// The top_k_first order on the radix partition (gpu/kernels/sampling_filters_on_partition.cuh):
// top-k off or k > 1024. Rows: continuous values, a grid of 1/8 (ties at K, at the walk's cut
// and across min_p's threshold), +0.0 / -0.0 maxima, a flat row (every value 0.5: the
// partition goes straight to the index bits) and a row with 1500 finite entries (k >= n:
// top-k keeps every finite entry). k from 1025 to V - 1, and 3000 >= V (off); p from 0 to 0.999
// and 1 (off); min_p 0, 0.05 to 0.5 and 1.
Tensor PartitionRows(std::uint64_t seed) {
  Tensor x = SurvivorRows(seed);
  auto v = x.data<float>();
  for (std::int64_t i = 0; i < kVocab; ++i) {
    v[static_cast<std::size_t>(3 * kVocab + i)] = 0.5f;
    if (i % 5 == 0 || i % 5 == 3) v[static_cast<std::size_t>(4 * kVocab + i)] = -std::numeric_limits<float>::infinity();
  }
  return x;
}

TEST(GpuFilters, PartitionPathMatchesReference) {
  const std::int32_t ks[][kRows] = {{0, 1025, 2000, 2499, 2000}, {2499, 0, 0, 1500, 0}, {1100, 1100, 1100, 1100, 3000}};
  const float ps[][kRows] = {{0.999f, 0.9f, 0.5f, 0.95f, 0.9f}, {0.9f, 1.0f, 0.0f, 1.0f, 0.999f},
                             {1.0f, 0.999f, 0.3f, 0.999f, 1.0f}};
  const float ms[][kRows] = {{0.0f, 0.05f, 0.0f, 0.0f, 0.1f}, {1.0f, 0.2f, 0.0f, 0.5f, 0.0f},
                             {0.0f, 0.0f, 1.0f, 0.05f, 0.05f}};
  for (int set = 0; set < 3; ++set) {
    SCOPED_TRACE(testing::Message() << "parameter set " << set);
    auto inputs = [&] { return FilterInputs(PartitionRows(21 + set), ks[set], ps[set], ms[set]); };
    Compare("sampling_filters", "canonical", inputs());
    Compare("sampling_filters", "flashinfer", inputs());  // top_k_first: ties kept, tie-group walk
  }
}

// The partition path at V = 40000: level 0's buckets (about V / 16 = 2500 keys) are refined,
// both on the k-th key's path and by the walk after the buckets before rank k were set aside
// (top-k V - 1: every bucket but the last). Rows: continuous values, a flat row (every value
// 0.5), a grid of 1/8.
TEST(GpuFilters, PartitionPathRefinesLargeBuckets) {
  constexpr std::int64_t kRowsLarge = 3, kVocabLarge = 40000;
  const std::vector<float> x =
      GeneratedRows(kRowsLarge, kVocabLarge, 31, [](std::int64_t b, std::int64_t, std::uint64_t r) {
        const float v = -8.0f + 16.0f * Unit(r);
        if (b == 1) return 0.5f;
        if (b == 2) return std::floor(v * 8.0f) / 8.0f;
        return v;
      });
  const TensorMap inputs{{"logits", Tensor::FromValues(DType::kF32, {kRowsLarge, kVocabLarge}, x)},
                         {"top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {kRowsLarge}, {39999, 39999, 5000})},
                         {"top_p", Tensor::FromValues<float>(DType::kF32, {kRowsLarge}, {0.999f, 0.9f, 0.99f})},
                         {"min_p", Tensor::FromValues<float>(DType::kF32, {kRowsLarge}, {0.0f, 0.0f, 0.05f})}};
  Compare("sampling_filters", "canonical", inputs);
  Compare("sampling_filters", "flashinfer", inputs);  // ties kept, tie-group walk
  TensorMap alone = inputs;
  alone["top_k"] = Tensor::FromValues<std::int32_t>(DType::kI32, {kRowsLarge}, {0, 0, 0});
  Compare("sampling_filters", "canonical", alone);
}

// Held keys out of index order (gpu/kernels/sampling_filters_on_partition.cuh SmallestKeys):
// V = 30 x 1024, so each thread's lane holds 30 entries, and top-k 24 x 1024. In row 0 the
// values rise with the index (1/4096 a step, noise below a lane's step of 1/4), so each lane's
// last 6 entries replace its first 6 at the held keys' heap root (its slots then out of index
// order until Order) and its 24 held keys are exactly its top-k survivors: every thread folds the
// survivors' sum from them, in index order (the emulator checks it in ForEachUpTo; without
// SmallestKeys::Order the run aborts). An ulp of that sum moves only top-p's cut and min-p's
// threshold, so outputs alone would seldom show the order. Row 1 falls with the index (no
// replacement: the held keys are the first 24, in order).
TEST(GpuFilters, PartitionPathFoldsHeldKeysInIndexOrder) {
  constexpr std::int64_t kRowsHere = 2, kVocabHere = 30 * 1024;
  const std::vector<float> x =
      GeneratedRows(kRowsHere, kVocabHere, 61, [](std::int64_t b, std::int64_t i, std::uint64_t r) {
        const float step = static_cast<float>(b == 0 ? i : kVocabHere - 1 - i) * 0x1.0p-12f;
        return step + 0x1.0p-10f * Unit(r);
      });
  const std::int32_t k = 24 * 1024;
  const TensorMap inputs{{"logits", Tensor::FromValues(DType::kF32, {kRowsHere, kVocabHere}, x)},
                         {"top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {kRowsHere}, {k, k})},
                         {"top_p", Tensor::FromValues<float>(DType::kF32, {kRowsHere}, {0.9f, 0.999f})},
                         {"min_p", Tensor::FromValues<float>(DType::kF32, {kRowsHere}, {0.05f, 0.0f})}};
  Compare("sampling_filters", "canonical", inputs);
  Compare("sampling_filters", "flashinfer", inputs);  // ties kept, tie-group walk
}

// The partition path's walk of chunks handed in any order (gpu/kernels/top_p.cuh
// TopPWalkChunkAnyOrder): every chunk after the first is summed unsorted where every order
// gives the same E and is sorted where it does not (a rounding tie, a binade left, the chunk
// holding the cut). Rows of V = 40000: (0, 1) 100 logits of 0 and a tail near -20, whose
// probabilities (about 2e-11) are below half a unit of E near 1, so E stalls below p = 0.9999995
// and the walk keeps every survivor: it ends at the last one, with top-k 20000 in a chunk that
// reaches past it (sorted: which of its keys survive depends on the order), with top-k off at
// the row's last entry, whose key the loop finds in an unsorted chunk; (2) continuous values
// with top-k off and p = 0.999 (about 17 chunks); (3) values on a grid of 1/8 (runs of equal
// probabilities, tie groups for flashinfer) with p = 0.99.
TEST(GpuFilters, PartitionPathWalksChunksInAnyOrder) {
  constexpr std::int64_t kRowsHere = 4, kVocabHere = 40000;
  const std::vector<float> x =
      GeneratedRows(kRowsHere, kVocabHere, 53, [](std::int64_t b, std::int64_t i, std::uint64_t r) {
        const float v = -8.0f + 16.0f * Unit(r);
        if (b < 2) return i % 400 == 0 ? 0.0f : -20.0f - Unit(r);
        if (b == 3) return std::floor(v * 8.0f) / 8.0f;
        return v;
      });
  const TensorMap inputs{
      {"logits", Tensor::FromValues(DType::kF32, {kRowsHere, kVocabHere}, x)},
      {"top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {kRowsHere}, {20000, 0, 0, 0})},
      {"top_p", Tensor::FromValues<float>(DType::kF32, {kRowsHere}, {0.9999995f, 0.9999995f, 0.999f, 0.99f})},
      {"min_p", Tensor::FromValues<float>(DType::kF32, {kRowsHere}, {0.0f, 0.0f, 0.0f, 0.0f})}};
  for (const char* profile : {"canonical", "flashinfer"}) {
    SCOPED_TRACE(profile);
    Case c;
    c.id = std::string("sampling_filters/any_order/") + profile;
    c.stage = "sampling_filters";
    c.profile = sampcheck::ParseProfile(profile);
    c.inputs = inputs;
    reference::ReferenceBackend reference;
    const TensorMap expected = reference.Run("sampling_filters", c);
    ExpectSameBits(expected, MakeGpuEmulatedBackend()->Run("sampling_filters", c), c.id, kVocabHere);
    // The rows are what they are meant to be (the reference's kept counts).
    const auto out = expected.at("logits").data<float>();
    std::int64_t kept[kRowsHere] = {};
    for (std::int64_t b = 0; b < kRowsHere; ++b) {
      for (std::int64_t i = 0; i < kVocabHere; ++i) {
        kept[b] += std::isinf(out[static_cast<std::size_t>(b * kVocabHere + i)]) ? 0 : 1;
      }
    }
    EXPECT_EQ(kept[0], 20000);
    EXPECT_EQ(kept[1], kVocabHere);
    EXPECT_GT(kept[2], 10 * 1024);
    EXPECT_LT(kept[2], kVocabHere);
  }
}

// A k-th key within 3 of the number n of finite entries (r = n - k + 1 <= 4, the held largest
// keys of gpu/kernels/sampling_filters_on_partition.cuh: K known at level 0, no bucket refined
// for it) and just past it (r = 5: the refinement), against the reference (std::nth_element).
// Rows: continuous values (k = n - 1), the 1/8 grid (ties at K: flashinfer keeps K's value's
// ties), the 4 smallest values planted in two lanes (3 in lane 7, one in lane 9: one thread
// holds 3 of the 4 largest keys; k = n - 3 picks the fourth), 1 in 16 entries -inf (n < V,
// k = n - 2), and continuous values with k = n - 4 (r = 5: not among the held keys). Each row
// with top-p off (top-k alone: K from the held keys needs no partition) and on (0.9 or 0.999),
// min-p 0 or 0.05.
TEST(GpuFilters, PartitionPathTakesANearNKthKeyFromTheLargestKeys) {
  Tensor logits = SurvivorRows(41);
  auto v = logits.data<float>();
  const auto at = [](std::int64_t row, std::int64_t i) { return static_cast<std::size_t>(row * kVocab + i); };
  const float planted[] = {-9.0f, -10.0f, -11.0f, -12.0f};
  const std::int64_t planted_at[] = {7, 7 + 1024, 7 + 2048, 9};
  for (int j = 0; j < 4; ++j) v[at(2, planted_at[j])] = planted[j];
  SplitMix64 rng(42);
  for (std::int64_t i = 0; i < kVocab; ++i) {
    v[at(3, i)] = v[at(0, i)] + 0.25f;
    if ((rng.Next() & 15) == 0) v[at(3, i)] = -std::numeric_limits<float>::infinity();
  }
  std::int64_t finite3 = 0;
  for (std::int64_t i = 0; i < kVocab; ++i) finite3 += std::isinf(v[at(3, i)]) ? 0 : 1;
  ASSERT_LT(finite3, kVocab - 16);
  const std::vector<std::int32_t> ks = {static_cast<std::int32_t>(kVocab - 1), static_cast<std::int32_t>(kVocab - 1),
                                        static_cast<std::int32_t>(kVocab - 3), static_cast<std::int32_t>(finite3 - 2),
                                        static_cast<std::int32_t>(kVocab - 4)};
  const float ps[][kRows] = {{1.0f, 0.999f, 0.9f, 1.0f, 0.9f}, {0.9f, 1.0f, 0.999f, 0.9f, 1.0f}};
  const float ms[][kRows] = {{0.05f, 0.0f, 0.0f, 0.0f, 0.05f}, {0.0f, 0.0f, 0.05f, 0.05f, 0.0f}};
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE(testing::Message() << "parameter set " << set);
    auto inputs = [&] { return FilterInputs(logits, ks, ps[set], ms[set]); };
    Compare("sampling_filters", "canonical", inputs());
    Compare("sampling_filters", "flashinfer", inputs());  // top_k_first: ties kept, tie-group walk
  }
}

TEST(GpuFilters, AscendSampleMatchesReference) {
  // Rows: top-k 5; top-k off with p = 0.9 (L is the order's first ~1300 entries: two
  // chunks); ks_max-disabled k = 1100 with p = 1 (L in vocab order); p = 0 (k = 1); top-k 50
  // with min_p 1 (L's first maximum). q by position, every output.
  SplitMix64 rng(9);
  std::vector<float> q(static_cast<std::size_t>(kRows * kVocab));
  for (float& v : q) v = Unit(rng.Next());
  auto inputs = [&](bool with_q) {
    TensorMap in{{"logits", FlatRows(5, false)},
                 {"top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {kRows}, {5, 0, 1100, 7, 50})},
                 {"top_p", Tensor::FromValues<float>(DType::kF32, {kRows}, {0.9f, 0.9f, 1.0f, 0.0f, 0.95f})},
                 {"min_p", Tensor::FromValues<float>(DType::kF32, {kRows}, {0.0f, 0.2f, 0.5f, 0.1f, 1.0f})}};
    if (with_q) in.emplace("q", Tensor::FromValues<float>(DType::kF32, {kRows, kVocab}, q));
    return in;
  };
  Compare("ascend_top_k_top_p_sample_v2", "ascend_v2", inputs(true), {{"is_need_logits", true}});
  Compare("ascend_top_k_top_p_sample_v2", "ascend_v2", inputs(false),
          {{"is_need_logits", true}, {"is_need_sample_result", true}});
}

TEST(GpuLogprobsKernel, MatchesReferenceInEveryMode) {
  // n = 1500: the top-n list takes two radix-select chunks; temperatures 0.7 and 0 (greedy:
  // no filters); processed modes run the profile's filters on the flat rows; raw modes see
  // raw_logits with a NaN and +inf planted (NaN first in the top-n order).
  auto inputs = [] {
    Tensor raw = FlatRows(7, false);
    raw.data<float>()[3] = std::numeric_limits<float>::quiet_NaN();
    raw.data<float>()[kVocab + 5] = std::numeric_limits<float>::infinity();
    return TensorMap{
        {"logits", FlatRows(8, false)},
        {"raw_logits", std::move(raw)},
        {"temperature", Tensor::FromValues<float>(DType::kF32, {kRows}, {0.7f, 1.0f, 0.0f, 2.0f, 0.005f})},
        {"top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {kRows}, {50, 0, 5, 1500, 0})},
        {"top_p", Tensor::FromValues<float>(DType::kF32, {kRows}, {0.9f, 0.95f, 1.0f, 0.8f, 1.0f})},
        {"min_p", Tensor::FromValues<float>(DType::kF32, {kRows}, {0.0f, 0.05f, 0.0f, 0.1f, 0.0f})},
        {"token", Tensor::FromValues<std::int64_t>(DType::kI64, {kRows}, {3, 10, 2499, 0, 77})},
        {"token_ids", Tensor::FromValues<std::int32_t>(DType::kI32, {kRows, 2}, {3, -1, 0, 1, 5, 6, -1, -1, 9, 2499})}};
  };
  for (const char* profile : {"canonical", "vllm"}) {
    for (const char* mode : {"raw_logprobs", "raw_logits", "processed_logits", "processed_logprobs"}) {
      Compare("logprobs", profile, inputs(), {{"mode", mode}, {"num_logprobs", 1500}});
    }
  }
  for (const char* mode : {"temperature", "original"}) {
    Compare("logprobs", "sglang", inputs(), {{"mode", mode}, {"num_logprobs", 1500}});
  }
}

TEST(GpuFilters, PaddedRowsReadOnlyTheirEntries) {
  // pitch = V + 13 with +inf and NaN in the padding (values every filter rejects, and that
  // would win any selection if read): each kernel must give the unpadded run's bits.
  const Tensor flat = FlatRows(6);
  const auto x = flat.data<float>();
  const std::int64_t pitch = kVocab + 13;
  for (const float pad : {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    std::vector<float> padded(static_cast<std::size_t>(kRows * pitch), pad);
    for (std::int64_t b = 0; b < kRows; ++b) {
      std::memcpy(&padded[static_cast<std::size_t>(b * pitch)], &x[static_cast<std::size_t>(b * kVocab)],
                  sizeof(float) * kVocab);
    }
    const std::vector<std::int32_t> k = {5, 1100, 2499, 0, 7};
    const std::vector<float> p = {0.9f, 0.999f, 0.3f, 1.0f, 0.5f};
    const std::vector<float> m = {0.01f, 0.5f, 1.0f, 0.9f, 0.1f};
    auto runner = MakeEmulatedRunner();
    const std::size_t n = static_cast<std::size_t>(kRows * kVocab);
    std::vector<float> a(n), b(n), pa(n), pb(n);
    runner->Run(TopKLaunch(x.data(), k.data(), kRows, kVocab, kVocab, TopKRule{}, a.data()));
    runner->Run(TopKLaunch(padded.data(), k.data(), kRows, kVocab, pitch, TopKRule{}, b.data()));
    EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(float)), 0) << "top_k, pad " << pad;
    runner->Run(TopPLaunch(x.data(), p.data(), kRows, kVocab, kVocab, TopPWalk::kSglang, a.data()));
    runner->Run(TopPLaunch(padded.data(), p.data(), kRows, kVocab, pitch, TopPWalk::kSglang, b.data()));
    EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(float)), 0) << "top_p, pad " << pad;
    runner->Run(MinPLaunch(x.data(), m.data(), kRows, kVocab, kVocab, MinPRule{}, a.data()));
    runner->Run(MinPLaunch(padded.data(), m.data(), kRows, kVocab, pitch, MinPRule{}, b.data()));
    EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(float)), 0) << "min_p, pad " << pad;
    const FilterRules joint{TopKRule{}, TopPWalk::kSglang, MinPRule{}, FilterOrder::kJoint, DegenerateRowRule{}};
    runner->Run(SamplingFiltersLaunch(x.data(), k.data(), p.data(), m.data(), kRows, kVocab, kVocab, joint, a.data(),
                                      pa.data()));
    runner->Run(SamplingFiltersLaunch(padded.data(), k.data(), p.data(), m.data(), kRows, kVocab, pitch, joint,
                                      b.data(), pb.data()));
    EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(float)), 0) << "sampling_filters, pad " << pad;
    EXPECT_EQ(std::memcmp(pa.data(), pb.data(), n * sizeof(float)), 0) << "sampling_filters probs, pad " << pad;
  }
}

// Several blocks per row (gpu/kernels/sampling_filters_slices.cuh): batches of B = 1, 2 and 3
// rows of V = 13289 take 3 slices per row (RowSliceBudget: min(floor(132 / B), 13289 / 4096) =
// 3, slices of 4429 or 4430 entries, not a multiple of 1024; k <= 300 keeps 3: 1024 / 300 = 3).
// The split launch must give the bits of the one-block launch (plan_rows = 132: no row split)
// and of the reference (reference/sampling_filters.h through the reference backend). Row kinds:
// 0 continuous values; 1 a grid of 1/8 (value ties at K, across slices, split by index);
// 2 flat (every value 0.5: the top k are the first k indices, all in slice 0); 3 a -inf tail
// (the last 6000 entries: slice 2 all -inf); 4 only 21 finite entries, k = 50 (K = -inf: the
// per-row kernel writes the row itself); 5 +0.0 / -0.0 maxima (the sign survives in `out`);
// 6 the largest values crowded into lanes 0..299 of slice 0 with k = 300 (1500 of them: that
// slice's candidates do not fit, so the row is read whole). Both top-k rules: canonical
// (exactly k) and flashinfer's top_k_first (ties at the k-th value kept, the tie-group walk):
// its slices list k + 1 keys, and a row whose (k + 1)-th key ties with the k-th (the grid and
// flat rows) is read whole.
constexpr std::int64_t kSlicedVocab = 13289;

std::vector<float> SlicedRow(int kind, std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<float> x(static_cast<std::size_t>(kSlicedVocab));
  const float inf = std::numeric_limits<float>::infinity();
  for (std::int64_t i = 0; i < kSlicedVocab; ++i) {
    const std::uint64_t r = rng.Next();
    float v = -8.0f + 16.0f * static_cast<float>(r >> 40) * 0x1.0p-24f;
    if (kind == 1) v = std::floor(v * 8.0f) / 8.0f;
    if (kind == 2) v = 0.5f;
    if (kind == 3 && i >= kSlicedVocab - 6000) v = -inf;
    if (kind == 4 && i % 661 != 5) v = -inf;
    if (kind == 5) v = v > 0.0f ? ((r & 1) != 0 ? 0.0f : -0.0f) : v;
    if (kind == 6) v = i < 4429 && i % 1024 < 300 ? 10.0f + v : v;
    x[static_cast<std::size_t>(i)] = v;
  }
  return x;
}

TEST(GpuFilters, SlicedRowsGiveTheOneBlockBits) {
  struct Batch {
    std::vector<int> kinds;
    std::vector<std::int32_t> k;
    std::vector<float> p, m;
  };
  const Batch batches[] = {
      {{0}, {50}, {0.9f}, {0.0f}},
      {{1, 6}, {50, 300}, {0.95f, 0.9f}, {0.05f, 0.0f}},
      {{2, 3, 5}, {7, 300, 1}, {0.5f, 0.999f, 0.9f}, {0.0f, 0.1f, 1.0f}},
      {{4, 0, 1}, {50, 256, 3}, {0.9f, 1.0f, 0.3f}, {0.0f, 0.5f, 0.0f}},
  };
  auto runner = MakeEmulatedRunner();
  const TopKRule flashinfer_top_k{.ties_kept = true, .drops_nan = true};
  const std::pair<const char*, FilterRules> profiles[] = {
      {"canonical", FilterRules{}},
      {"flashinfer", FilterRules{flashinfer_top_k, TopPWalk::kTieGroup, MinPRule{}, FilterOrder::kTopKFirst,
                                 DegenerateRowRule{.nan_softmax_empties_row = true}}}};
  for (const auto& [profile, rules] : profiles) {
    for (const Batch& batch : batches) {
      SCOPED_TRACE(profile);
      const auto rows = static_cast<std::int64_t>(batch.kinds.size());
      std::vector<float> x;
      for (std::size_t b = 0; b < batch.kinds.size(); ++b) {
        const std::vector<float> row = SlicedRow(batch.kinds[b], 100 + b);
        x.insert(x.end(), row.begin(), row.end());
      }
      const auto n = static_cast<std::size_t>(rows * kSlicedVocab);
      std::vector<float> split_out(n), split_probs(n), one_out(n), one_probs(n);
      SamplingFiltersLaunch l(x.data(), batch.k.data(), batch.p.data(), batch.m.data(), rows, kSlicedVocab,
                              kSlicedVocab, rules, split_out.data(), split_probs.data());
      ASSERT_EQ(l.Slices(), 3);
      LaunchRecorder recorder;
      runner->Run(l);
      // The slices with each row's last block merging (gpu/block/last_block.cuh), then the rows.
      ASSERT_EQ(recorder.launches().size(), 2u);
      EXPECT_EQ(recorder.launches()[0].kernel, "sampling_filters_slices");
      EXPECT_EQ(recorder.launches()[0].blocks, rows * 3);
      EXPECT_EQ(recorder.launches()[1].kernel, "sampling_filters_rows");
      l.out = one_out.data();
      l.probs = one_probs.data();
      l.plan_rows = kRowSliceSms;
      ASSERT_EQ(l.Slices(), 1);
      runner->Run(l);
      // The reference's outputs for the same rows.
      Case c;
      c.id = "sampling_filters/sliced";
      c.stage = "sampling_filters";
      c.profile = sampcheck::ParseProfile(profile);
      c.inputs = {{"logits", Tensor::FromValues(DType::kF32, {rows, kSlicedVocab}, x)},
                  {"top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {rows}, batch.k)},
                  {"top_p", Tensor::FromValues<float>(DType::kF32, {rows}, batch.p)},
                  {"min_p", Tensor::FromValues<float>(DType::kF32, {rows}, batch.m)}};
      reference::ReferenceBackend reference;
      const TensorMap expected = reference.Run("sampling_filters", c);
      const auto ref_out = expected.at("logits").data<float>();
      const auto ref_probs = expected.at("probs").data<float>();
      int shown = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t b = static_cast<std::int64_t>(i) / kSlicedVocab;
        const bool same = std::memcmp(&split_out[i], &one_out[i], sizeof(float)) == 0 &&
                          std::memcmp(&split_probs[i], &one_probs[i], sizeof(float)) == 0 &&
                          std::memcmp(&split_out[i], &ref_out[i], sizeof(float)) == 0 &&
                          std::memcmp(&split_probs[i], &ref_probs[i], sizeof(float)) == 0;
        if (!same && shown++ < 5) {
          ADD_FAILURE() << "kind " << batch.kinds[static_cast<std::size_t>(b)] << " row " << b << " index "
                        << static_cast<std::int64_t>(i) % kSlicedVocab << ": split (" << split_out[i] << ", "
                        << split_probs[i] << "), one block (" << one_out[i] << ", " << one_probs[i]
                        << "), reference (" << ref_out[i] << ", " << ref_probs[i] << ")";
        }
      }
    }
  }
}

// Planted fault against a golden: sglang's top-p case run with the canonical walk (E < p
// instead of f32(C - prob) <= p) must be rejected by the checked-in expected outputs (the
// p = 0.75 row keeps token 2 under sglang only, docs/spec/filters.md top_p "Worked examples").
TEST(GpuFilters, PlantedWrongWalkIsRejectedByTheGolden) {
  const GoldenCase g = ReadCaseFile(SAMPCHECK_SOURCE_DIR "/golden/v1/top_p/peers_boundary/sglang.safetensors");
  const Tensor& logits = g.input.inputs.at("logits");
  const Tensor& top_p = g.input.inputs.at("top_p");
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  auto run = [&](TopPWalk walk) {
    Tensor out = Tensor::Uninitialized(DType::kF32, logits.shape());
    MakeEmulatedRunner()->Run(TopPLaunch(logits.data<float>().data(), top_p.data<float>().data(), rows, vocab, vocab,
                                         walk, out.data<float>().data()));
    TensorMap result;
    result.emplace("logits", std::move(out));
    return result;
  };
  EXPECT_EQ(golden::JudgeOutputs(g, run(TopPWalk::kSglang)), "");
  EXPECT_NE(golden::JudgeOutputs(g, run(TopPWalk::kExclusive)), "");
}

// top_p's full-row walks on the radix partition's chunk loop (gpu/kernels/top_p.cuh
// TopPWalkRow, gpu/block/radix_partition.cuh "Chunk loop"): vllm's ascending walk (min_p first,
// then top_k and top_p on the row) and sglang's joint walk (each position dropped on its own,
// written by the thread holding its key; with top_k on, only top_k's prefix of the original
// order walked) over rows of V = 5000 (several chunks), through the gpu-emulated backend,
// bit for bit with the reference backend. Rows: continuous; a grid of 1/8 (ties broken by
// index); a -inf tail (the last 2000 entries).
// A sampling_filters case of rows x.size() / vocab with per-row top_k, top_p and min_p.
Case SamplingFiltersCase(const char* id, const char* profile, const std::vector<float>& x, std::int64_t vocab,
                         const std::vector<std::int32_t>& k, const std::vector<float>& p, const std::vector<float>& m) {
  const auto rows = static_cast<std::int64_t>(k.size());
  Case c;
  c.id = id;
  c.stage = "sampling_filters";
  c.profile = sampcheck::ParseProfile(profile);
  c.inputs = {{"logits", Tensor::FromValues(DType::kF32, {rows, vocab}, x)},
              {"top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {rows}, k)},
              {"top_p", Tensor::FromValues<float>(DType::kF32, {rows}, p)},
              {"min_p", Tensor::FromValues<float>(DType::kF32, {rows}, m)}};
  return c;
}

TEST(GpuFilters, FullRowTopPWalksMatchTheReference) {
  constexpr std::int64_t kRowsHere = 4, kVocabHere = 5000;
  const std::vector<float> x =
      GeneratedRows(kRowsHere, kVocabHere, 77, [](std::int64_t b, std::int64_t i, std::uint64_t r) {
        const float v = -8.0f + 16.0f * Unit(r);
        if (b == 1) return std::floor(v * 8.0f) / 8.0f;
        if (b == 2 && i >= kVocabHere - 2000) return -std::numeric_limits<float>::infinity();
        return v;
      });
  const std::vector<std::int32_t> k = {0, 0, 0, 3000};
  const std::vector<float> p = {0.9f, 0.5f, 0.99f, 0.95f};
  const std::vector<float> m = {0.0f, 0.0f, 0.001f, 0.0f};
  const auto backend = MakeGpuEmulatedBackend();
  reference::ReferenceBackend reference;
  for (const char* profile : {"vllm", "sglang"}) {
    SCOPED_TRACE(profile);
    const Case c = SamplingFiltersCase("sampling_filters/full_row_walks", profile, x, kVocabHere, k, p, m);
    const TensorMap got = backend->Run("sampling_filters", c);
    const TensorMap expected = reference.Run("sampling_filters", c);
    for (const char* name : {"logits", "probs"}) {
      const auto a = got.at(name).data<float>();
      const auto e = expected.at(name).data<float>();
      ASSERT_EQ(a.size(), e.size());
      int differ = 0;
      for (std::size_t i = 0; i < a.size(); ++i) differ += std::memcmp(&a[i], &e[i], sizeof(float)) != 0 ? 1 : 0;
      EXPECT_EQ(differ, 0) << name;
    }
    // The walks drop something in every row (so the masks are exercised): a -inf in each row.
    const auto out = got.at("logits").data<float>();
    for (std::int64_t b = 0; b < kRowsHere; ++b) {
      int dropped = 0;
      for (std::int64_t i = 0; i < kVocabHere; ++i) {
        dropped += std::isinf(out[static_cast<std::size_t>(b * kVocabHere + i)]) ? 1 : 0;
      }
      EXPECT_GT(dropped, b == 2 ? 2000 : 0) << "row " << b;
    }
  }
}

// The chunk loop's walk (TopPWalkWords in gpu/kernels/top_p.cuh) adds the positions that
// TopPWalkSafe says cannot end the walk without the step's tests: the cut must still fall where
// the reference puts it. p is set to the canonical running sum E_t itself and to its two f32
// neighbours, for cuts before, at and after chunk boundaries (chunks of at most 1024 keys) and
// where the sum has stalled (a row whose tail adds less than half an ulp). On a plateau of equal
// probabilities TopPWalkSafe's bound lies within a position or two of the cut, so a walk that
// added past it would cut too late (a word of two positions past the bound fails here). The
// running sums
// are computed here, in f32 over the reference's softmax in the canonical order (stable sort
// by value, descending), so that canonical's kept count is known by hand: E_{j-1} < p keeps
// position j, and p >= 1 (a sum that rounded above 1) keeps every entry.
TEST(GpuFilters, ChunkLoopWalkCutsWhereTheRunningSumSays) {
  constexpr std::int64_t kRowsHere = 4, kVocabHere = 3000;
  const float spans[kRowsHere] = {1.0f, 1.0f, 8.0f, 3.0f};
  const std::vector<float> x =
      GeneratedRows(kRowsHere, kVocabHere, 91, [&](std::int64_t b, std::int64_t i, std::uint64_t r) {
        const float v = spans[b] * (2.0f * Unit(r) - 1.0f);
        if (b == 1) return std::floor(v * 64.0f) / 64.0f;  // ties: tie groups for flashinfer's walk
        if (b == 3) return i % 3 != 0 ? 0.0f : v - 4.0f;   // a plateau of 2000 equal maxima
        return v;
      });
  const Tensor logits = Tensor::FromValues(DType::kF32, {kRowsHere, kVocabHere}, x);
  reference::ReferenceBackend reference;
  const auto backend = MakeGpuEmulatedBackend();
  Case soft;
  soft.id = "softmax/walk_sums";
  soft.stage = "softmax";
  soft.profile = sampcheck::ParseProfile("canonical");
  soft.inputs = {{"logits", logits}};
  const TensorMap softmax = reference.Run("softmax", soft);
  const auto probs = softmax.at("probs").data<float>();
  // sums[b][j] = E_j of row b (E_0 = 0).
  std::vector<std::vector<float>> sums(kRowsHere);
  for (std::int64_t b = 0; b < kRowsHere; ++b) {
    std::vector<std::int64_t> order(static_cast<std::size_t>(kVocabHere));
    for (std::int64_t i = 0; i < kVocabHere; ++i) order[static_cast<std::size_t>(i)] = i;
    const float* row = x.data() + b * kVocabHere;
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t c) { return row[a] > row[c]; });
    float e = 0.0f;
    sums[static_cast<std::size_t>(b)].push_back(e);
    for (const std::int64_t i : order) {
      e = e + probs[static_cast<std::size_t>(b * kVocabHere + i)];
      sums[static_cast<std::size_t>(b)].push_back(e);
    }
  }
  // The probes, one row each: (row kind, t), p = E_t and its two f32 neighbours; each kind
  // where it matters (cuts at the chunk boundaries on the continuous row, inside tie groups,
  // where the wide row's sum has stalled, inside the plateau).
  const std::pair<std::int64_t, std::int64_t> probes[] = {{0, 1},    {0, 1023}, {0, 1025}, {0, 2047}, {0, 2049},
                                                          {1, 700},  {1, 1500}, {2, 2990}, {3, 1500}, {3, 1901}};
  std::vector<float> rows, p;
  std::vector<std::int64_t> kept;  // canonical's, by the rule above
  for (const auto& [kind, t] : probes) {
    const std::vector<float>& e = sums[static_cast<std::size_t>(kind)];
    for (const int side : {-1, 0, 1}) {
      float q = e[static_cast<std::size_t>(t)];
      if (side != 0) q = std::nextafter(q, side < 0 ? 0.0f : 2.0f);
      std::int64_t j = 1;
      while (j < kVocabHere && e[static_cast<std::size_t>(j)] < q) ++j;
      kept.push_back(q >= 1.0f ? kVocabHere : j);  // p >= 1: top_p off
      p.push_back(q);
      rows.insert(rows.end(), x.begin() + kind * kVocabHere, x.begin() + (kind + 1) * kVocabHere);
    }
  }
  const auto n_rows = static_cast<std::int64_t>(p.size());
  for (const char* profile : {"canonical", "flashinfer", "vllm", "sglang"}) {
    SCOPED_TRACE(profile);
    const Case c = SamplingFiltersCase("sampling_filters/walk_sums", profile, rows, kVocabHere,
                                       std::vector<std::int32_t>(p.size(), 0), p, std::vector<float>(p.size(), 0.0f));
    const TensorMap expected = reference.Run("sampling_filters", c);
    ExpectSameBits(expected, backend->Run("sampling_filters", c), c.id, kVocabHere);
    if (c.profile != sampcheck::ParseProfile("canonical")) continue;
    const auto out = expected.at("logits").data<float>();
    for (std::int64_t r = 0; r < n_rows; ++r) {
      std::int64_t n = 0;
      for (std::int64_t i = 0; i < kVocabHere; ++i) n += std::isinf(out[static_cast<std::size_t>(r * kVocabHere + i)]) ? 0 : 1;
      const auto& [kind, t] = probes[r / 3];
      EXPECT_EQ(n, kept[static_cast<std::size_t>(r)]) << "row kind " << kind << ", p at E_" << t << " side " << r % 3 - 1;
    }
  }
}

}  // namespace
}  // namespace sampcheck::gpu
