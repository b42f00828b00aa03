// SPDX-License-Identifier: Apache-2.0
// gpu-fast's flashinfer_sampling_from_probs (gpu/fast/fast_flashinfer_sampling_from_probs.cuh,
// docs/spec/flashinfer_sampling_from_probs.md): known answers worked by hand from the spec's
// algorithm on dyadic probabilities (every running sum and mass exact in any order, so the
// free-order kernel must give the spec's token, validity and round count), the edge rules,
// the reference's input checks, the distributional tier, and the planted fault's known answer.
// Its statistical rejection runs in tests/gpu_fast_sampling_suite_test.cc (label slow).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/tensor.h"
#include "gpu/emulator/emulator_counters.h"
#include "gpu/fast/fast_backend.h"
#include "gpu/fast/fast_sampling_launch.h"

namespace sampcheck {
namespace {

struct Draw {
  std::int64_t token;
  bool valid;
  std::int32_t rounds;
  bool operator==(const Draw&) const = default;
};

void PrintTo(const Draw& d, std::ostream* os) {
  *os << "{token " << d.token << ", valid " << d.valid << ", rounds " << d.rounds << "}";
}

Case FlashinferCase(const std::string& kernel, std::int64_t vocab, const std::vector<float>& probs,
                    const std::vector<std::int32_t>& top_k, const std::vector<float>& top_p,
                    const std::vector<float>& min_p, std::int64_t width, const std::vector<float>& u) {
  const auto rows = static_cast<std::int64_t>(top_k.size());
  Case c;
  c.id = "gpu_fast_flashinfer_sampling_from_probs_test";
  c.stage = "flashinfer_sampling_from_probs";
  c.profile = Profile::kFlashinfer;
  c.params["kernel"] = kernel;
  c.inputs.emplace("probs", Tensor::FromValues(DType::kF32, {rows, vocab}, probs));
  c.inputs.emplace("top_k", Tensor::FromValues(DType::kI32, {rows}, top_k));
  c.inputs.emplace("top_p", Tensor::FromValues(DType::kF32, {rows}, top_p));
  c.inputs.emplace("min_p", Tensor::FromValues(DType::kF32, {rows}, min_p));
  c.inputs.emplace("u", Tensor::FromValues(DType::kF32, {rows, width}, u));
  return c;
}

std::vector<Draw> Draws(const TensorMap& out) {
  std::vector<Draw> d;
  const auto t = out.at("token").data<std::int64_t>();
  for (std::size_t b = 0; b < t.size(); ++b) {
    d.push_back({t[b], out.at("valid").data<std::uint8_t>()[b] != 0, out.at("rounds").data<std::int32_t>()[b]});
  }
  return d;
}

// The contract's example: probs {0.5, 0.25, 0.25}, kernel top_p, top_p 0.6, u {0.6, 0.5}. Round
// 0: t = 0.6, running sums 0.5, 0.75: token 1; mass above 0.25 is 0.5 < 0.6: accepted (1 round).
// Row 1, the same row under top_k_top_p with k = 0: token 1 is rejected (count 1 >= 0), and so
// is pivot1 = (0.25 + 1) / 2 = 0.625, so low = 0.625 exceeds every entry: round 1 finds no valid
// token: invalid after 2 rounds (the spec's edge table). Row 2, all NaN: invalid after 1 round.
TEST(GpuFastFlashinferSamplingFromProbs, SpecRulesOnDyadicRows) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  const std::vector<float> row = {0.5f, 0.25f, 0.25f};
  EXPECT_EQ(Draws(backend->Run("flashinfer_sampling_from_probs",
                               FlashinferCase("top_p", 3, row, {0}, {0.6f}, {0.0f}, 2, {0.6f, 0.5f}))),
            (std::vector<Draw>{{1, true, 1}}));
  EXPECT_EQ(Draws(backend->Run("flashinfer_sampling_from_probs",
                               FlashinferCase("top_k_top_p", 3, {0.5f, 0.25f, 0.25f, NAN, NAN, NAN}, {0, 3},
                                              {1.0f, 1.0f}, {0.0f, 0.0f}, 2, {0.6f, 0.5f, 0.6f, 0.5f}))),
            (std::vector<Draw>{{0, false, 2}, {0, false, 1}}));
}

// Rows wider than the emulator's 128-thread block (V = 300: every thread's chunk is 3 entries),
// mass 0.5 at 150 and 0.25 at 0 and 299. top_k_first with k = 1 keeps 150 alone, renormalised
// to 1 (the k-th key by the radix select): token 150 whatever u. min_p 0.6: pivot 0.3 admits
// 150 alone: token 150, 1 round. top_k with k = 2 and u = 1: t = 1 reaches the total, so the
// scan falls back to the last valid token, 299 (count above 0.25 is 1 < 2): accepted.
TEST(GpuFastFlashinferSamplingFromProbs, WideRowsAcrossChunks) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  std::vector<float> wide(300, 0.0f);
  wide[0] = wide[299] = 0.25f;
  wide[150] = 0.5f;
  Case top_k_first = FlashinferCase("top_k_top_p", 300, wide, {1}, {0.9f}, {0.0f}, 2, {0.1f, 0.9f});
  top_k_first.params["filter_apply_order"] = "top_k_first";
  EXPECT_EQ(Draws(backend->Run("flashinfer_sampling_from_probs", top_k_first)), (std::vector<Draw>{{150, true, 1}}));
  EXPECT_EQ(Draws(backend->Run("flashinfer_sampling_from_probs",
                               FlashinferCase("min_p", 300, wide, {0}, {1.0f}, {0.6f}, 1, {0.9f}))),
            (std::vector<Draw>{{150, true, 1}}));
  EXPECT_EQ(Draws(backend->Run("flashinfer_sampling_from_probs",
                               FlashinferCase("top_k", 300, wide, {2}, {1.0f}, {0.0f}, 1, {1.0f}))),
            (std::vector<Draw>{{299, true, 1}}));
}

// A round reads the row twice, four entries a load: the inverse CDF's scan (V / 4 loads, and
// the owners' walk: at most 2 c a warp, c = 32-entry chunks at V = 4096 in 128-thread blocks,
// 4 warps) and one read for both pivots' counts and masses (V / 4), plus the token's own entry:
// at most 2 x 1024 + 256 + 1 loads, where one entry a load and a read a pivot made 3 V =
// 12288. Row: 2^-10 at every fourth entry (1024 entries of mass 1: dyadic, exact in any
// order), top_p 0.5, u = 0.25: x = 0.25, the first entry whose running sum exceeds it is i =
// 1024 (C = 257 / 1024); mass above it 0 < 0.5: accepted in 1 round. min_p 0.5 on the same row:
// the max's read, then the scan's: token 1024 too.
TEST(GpuFastFlashinferSamplingFromProbs, ReadsTheRowFourEntriesALoad) {
  constexpr std::int64_t kV = 4096, kChunk = 32, kWarps = gpu::kFastSamplingEmulatedThreads / 32;
  static_assert(kV / 4 / gpu::kFastSamplingEmulatedThreads * 4 == kChunk);
  std::vector<float> row(kV, 0.0f);
  for (std::int64_t i = 0; i < kV; i += 4) row[static_cast<std::size_t>(i)] = 0x1p-10f;
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  for (const char* kernel : {"top_p", "min_p"}) {
    SCOPED_TRACE(kernel);
    gpu::LaunchRecorder recorder;
    EXPECT_EQ(Draws(backend->Run("flashinfer_sampling_from_probs",
                                 FlashinferCase(kernel, kV, row, {0}, {0.5f}, {0.5f}, 1, {0.25f}))),
              (std::vector<Draw>{{1024, true, 1}}));
    ASSERT_EQ(recorder.launches().size(), 1u);
    const std::int64_t loads = recorder.launches()[0].Global("probs").loads;
    EXPECT_GE(loads, 2 * kV / 4);
    EXPECT_LE(loads, 2 * kV / 4 + 2 * kChunk * kWarps + 1);
  }
}

// top_k_first selects its k-th key by a sample, two reads four entries a load. Row: 2^-9 at
// indices 0 .. 511, 2^-20 after, k = 512, top_p 0.5, u 0.25: the descending keys are in index
// order, so the sample (S = V / 8 = 512 entries at indices 8 j, one load each) ranks as the row
// does: c = 511 x 512 / 4096 = 63, variance 64 x 3584 / 4096 = 56, d = (7 x 8 + 1) / 2 + 2 =
// 30, g = 4, splitter ranks 33 + 4 i (indices 264 + 32 i), and rank 512 (index 511) lies in
// bin 8, [488, 520): 32 keys, a hit. Kept: the 512 entries of 2^-9, mass 1, scale 1; round 0:
// t = 0.25, token 128 (running sum 129 / 512), nothing above it: accepted. Loads: the sample's
// 512, the count and gather reads, the non-NaN count's and the kept mass's, the round's two
// (as above), the pivot's entry and the token's: 6 x 1024 + 512 + 2 and the walk's at most 2 c
// x 4. The radix select made at least 8 value passes more (the 512 tied values share every
// value digit): 12 x 1024 and more by quads, 12 x 4096 one entry a load.
TEST(GpuFastFlashinferSamplingFromProbs, TopKFirstSelectsByASample) {
  constexpr std::int64_t kV = 4096, kChunk = 32, kWarps = gpu::kFastSamplingEmulatedThreads / 32;
  std::vector<float> row(kV, 0x1p-20f);
  for (std::int64_t i = 0; i < 512; ++i) row[static_cast<std::size_t>(i)] = 0x1p-9f;
  Case c = FlashinferCase("top_k_top_p", kV, row, {512}, {0.5f}, {0.0f}, 1, {0.25f});
  c.params["filter_apply_order"] = "top_k_first";
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  gpu::LaunchRecorder recorder;
  EXPECT_EQ(Draws(backend->Run("flashinfer_sampling_from_probs", c)), (std::vector<Draw>{{128, true, 1}}));
  ASSERT_EQ(recorder.launches().size(), 1u);
  const std::int64_t loads = recorder.launches()[0].Global("probs").loads;
  EXPECT_GE(loads, 6 * kV / 4 + kV / 8 + 2);
  EXPECT_LE(loads, 6 * kV / 4 + kV / 8 + 2 + 2 * kChunk * kWarps);
}

// The reference's checks and its out-of-uniforms error, one message each.
TEST(GpuFastFlashinferSamplingFromProbs, BadInputNamesTheTensor) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  try {
    backend->Run("flashinfer_sampling_from_probs",
                 FlashinferCase("top_p", 2, {0.5f, 0.5f}, {0}, {0.5f}, {0.0f}, 1, {0.0f}));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("u[0, 0] = 0"), std::string::npos) << e.what();
  }
  // k = 0 needs 2 rounds (above); one uniform runs out.
  try {
    backend->Run("flashinfer_sampling_from_probs",
                 FlashinferCase("top_k", 2, {0.5f, 0.5f}, {0}, {1.0f}, {0.0f}, 1, {0.5f}));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("row 0 needs more than 1 uniforms"), std::string::npos) << e.what();
  }
}

TEST(GpuFastFlashinferSamplingFromProbs, ClaimsTheDistributionalTierOnly) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  EXPECT_TRUE(backend->Capabilities("flashinfer_sampling_from_probs").profiles.Contains(Profile::kFlashinfer));
  EXPECT_FALSE(backend->Capabilities("flashinfer_sampling_from_probs").claims_bitwise);
}

// The planted fault on the example above: p >= pivot counts token 1 itself, mass 1.0 >= 0.6:
// rejected; pivot1 = 0.625 has mass 0 above: low = 0.25, high = 0.625, q = 1.0 (the faulty mass).
// Round 1: t = 0.5 over {0} (p > 0.25): the running sum 0.5 does not exceed 0.5, so the
// fallback takes token 0, whose mass counted from 0.5 is 0.5 < 0.6: token 0 after 2 rounds.
TEST(GpuFastFlashinferSamplingFromProbs, PlantedMassIncludesPivotRejectsTheBoundaryToken) {
  auto backend = gpu::MakeGpuFastPlantedBackend("gpu_fast_flashinfer_mass_includes_pivot",
                                                gpu::FastSamplingBug::kFlashinferMassIncludesPivot);
  EXPECT_EQ(Draws(backend->Run("flashinfer_sampling_from_probs",
                               FlashinferCase("top_p", 3, {0.5f, 0.25f, 0.25f}, {0}, {0.6f}, {0.0f}, 2, {0.6f, 0.5f}))),
            (std::vector<Draw>{{0, true, 2}}));
}

}  // namespace
}  // namespace sampcheck
