// SPDX-License-Identifier: Apache-2.0
// pipeline and decode_steps on the gpu backends (gpu/backend/pipeline_glue.h, gpu/backend/decode_steps_glue.h,
// docs/gpu.md "The pipeline"): the new kernels' contract examples (gpu/kernels/sglang_rank_draw.cuh:
// docs/spec/draws.md's known answers for multinomial_with_seed, moved to ranks by a hand-made
// permutation; gpu/kernels/pipeline_select.cuh), the whole stages against the reference backend bit for
// bit on rows with every optional group, every profile and SGLang path, on one-warp and
// 1024-lane vocabularies, the reference's error messages, and planted faults (rank columns
// replaced by token-id columns; decode steps that reuse their noise) rejected by the
// checked-in goldens. The independent source is the reference (reference/pipeline.cc), which
// sorts the survivors with std::sort and draws on the host.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "golden/verifier.h"
#include "gpu/backend/gpu_backend.h"
#include "gpu/fast/fast_backend.h"
#include "harness/decode_steps_check.h"
#include "harness/tp_consensus_check.h"
#include "gpu/kernels/greedy.cuh"
#include "gpu/runners/kernel_runner.h"
#include "gpu/backend/pipeline_glue.h"
#include "reference/decode_steps.h"
#include "reference/reference_backend.h"
#include "harness/draw_harness.h"

namespace sampcheck::gpu {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// --- gpu/kernels/sglang_rank_draw.cuh ---------------------------------------------------------------

std::vector<std::int64_t> RankDraw(const std::vector<float>& full, const std::vector<float>& scaled,
                                   const std::vector<float>& masked, std::int64_t rows, std::int64_t vocab,
                                   const std::vector<std::int64_t>& seed, const std::vector<std::int64_t>& positions,
                                   std::vector<std::uint8_t> draw = {}) {
  if (draw.empty()) draw.assign(static_cast<std::size_t>(rows), 1);
  std::vector<std::int64_t> token(static_cast<std::size_t>(rows), -7);
  MakeEmulatedRunner()->Run(SglangRankDrawLaunch(full.data(), scaled.data(), masked.data(), draw.data(), seed.data(),
                                                 positions.data(), rows, vocab, vocab, token.data()));
  return token;
}

// full {1/8, 1/2, 1/8, 1/4}: sorted ids {1, 3, 0, 2} (the two 1/8 by lower id, their scaled
// logits being equal), sorted probabilities {1/2, 1/4, 1/8, 1/8}. docs/spec/draws.md: on those,
// seed -1 / position 2^32 - 1 draws column 1 and seed 42 / position 7 column 0; as ranks, ids
// 3 and 1.
TEST(GpuSglangRankDraw, KnownAnswersThroughThePermutation) {
  const std::vector<float> full = {0.125f, 0.5f, 0.125f, 0.25f};
  const std::vector<float> scaled = {-2.0f, 0.0f, -2.0f, -1.0f};
  EXPECT_EQ(RankDraw(full, scaled, scaled, 1, 4, {-1}, {0xffffffffLL}), std::vector<std::int64_t>{3});
  EXPECT_EQ(RankDraw(full, scaled, scaled, 1, 4, {42}, {7}), std::vector<std::int64_t>{1});
}

// A filtered-out entry (masked -inf) has no rank, even with the largest probability: with it
// ranked, every rank above would shift and the answers above would change.
TEST(GpuSglangRankDraw, FilteredEntriesHaveNoRank) {
  const std::vector<float> full = {0.125f, 0.5f, 0.9f, 0.125f, 0.25f};
  const std::vector<float> scaled = {-2.0f, 0.0f, 1.0f, -2.0f, -1.0f};
  const std::vector<float> masked = {-2.0f, 0.0f, -kInf, -2.0f, -1.0f};
  EXPECT_EQ(RankDraw(full, scaled, masked, 1, 5, {-1}, {0xffffffffLL}), std::vector<std::int64_t>{4});
  EXPECT_EQ(RankDraw(full, scaled, masked, 1, 5, {42}, {7}), std::vector<std::int64_t>{1});
}

// Equal probabilities are ordered by the higher scaled logit, then the lower id. Three rows
// with the same two probabilities and the same noise draw the same rank r: row 0 (id 0 first)
// gives r, row 1 (id 1 first, higher logit) 1 - r, row 2 (equal logits: lower id) r.
TEST(GpuSglangRankDraw, TiesByHigherLogitThenLowerId) {
  const std::vector<float> full = {0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f};
  const std::vector<float> scaled = {-1.0f, -2.0f, -2.0f, -1.0f, -1.0f, -1.0f};
  for (std::int64_t seed : {-1LL, 42LL, 7LL, 123456789LL}) {
    const auto t = RankDraw(full, scaled, scaled, 3, 2, {seed, seed, seed}, {5, 5, 5});
    ASSERT_TRUE(t[0] == 0 || t[0] == 1) << t[0];
    EXPECT_EQ(t[1], 1 - t[0]) << "seed " << seed;
    EXPECT_EQ(t[2], t[0]) << "seed " << seed;
  }
}

// A row marked not to draw, or with no survivor of positive probability, gets kNoIndex.
TEST(GpuSglangRankDraw, NothingToDrawIsNoIndex) {
  const std::vector<float> full = {0.5f, 0.5f, 0.0f, 0.0f};
  const std::vector<float> scaled = {0.0f, 0.0f, -kInf, -kInf};
  const std::vector<float> masked = {0.0f, 0.0f, -kInf, -kInf};
  const auto t = RankDraw(full, scaled, masked, 2, 2, {1, 1}, {0, 0}, {0, 1});
  EXPECT_EQ(t[0], kNoIndex);
  EXPECT_EQ(t[1], kNoIndex);
}

// --- gpu/kernels/pipeline_select.cuh ------------------------------------------------------------------

TEST(GpuPipelineSelect, ContractExample) {
  const std::vector<std::uint8_t> greedy_rows = {1, 0};
  const std::vector<std::int64_t> greedy = {3, 4}, drawn = {7, 8};
  std::vector<std::int64_t> token(2, -1);
  MakeEmulatedRunner()->Run(PipelineSelectLaunch(greedy_rows.data(), greedy.data(), drawn.data(), 2, token.data()));
  EXPECT_EQ(token, (std::vector<std::int64_t>{3, 8}));
  // 40 rows: two blocks of 32, the second partial.
  std::vector<std::uint8_t> flags(40);
  std::vector<std::int64_t> g(40), d(40), out(40, -1), expected(40);
  for (int b = 0; b < 40; ++b) {
    flags[b] = b % 3 == 0;
    g[b] = b;
    d[b] = 100 + b;
    expected[b] = b % 3 == 0 ? b : 100 + b;
  }
  MakeEmulatedRunner()->Run(PipelineSelectLaunch(flags.data(), g.data(), d.data(), 40, out.data()));
  EXPECT_EQ(out, expected);
}

// --- the stages against the reference -------------------------------------------------------

// Logits j / 16 in [-4, 4) (long tie runs in probability and logit), 1 in 16 entries -inf;
// row 0 greedy (temperature 0); every optional group. `filters`: top_k / top_p (and min_p
// when `min_p`); `steps`: N > 0 gives decode_steps' [B, N, V] logits and q.
struct Shape {
  std::int64_t rows = 4;
  std::int64_t vocab = 300;
  std::int64_t steps = 0;
};

Case MakeCase(const std::string& stage, const std::string& profile, Shape shape, std::uint64_t seed, bool greedy_row,
              bool filters, bool min_p) {
  SplitMix64 rng(seed);
  const std::int64_t rows = shape.rows, vocab = shape.vocab, n = std::max<std::int64_t>(shape.steps, 1);
  Case c;
  c.id = stage + "/gpu_pipeline_test/" + profile;
  c.stage = stage;
  c.profile = sampcheck::ParseProfile(profile);
  std::vector<float> logits(static_cast<std::size_t>(rows * n * vocab));
  for (float& x : logits) {
    const std::uint64_t r = rng.Next();
    x = (r & 15) == 0 ? -kInf : static_cast<float>(static_cast<std::int64_t>(r >> 57) - 64) / 16.0f;
  }
  const std::vector<std::int64_t> logit_shape =
      shape.steps > 0 ? std::vector<std::int64_t>{rows, n, vocab} : std::vector<std::int64_t>{rows, vocab};
  c.inputs.emplace("logits", Tensor::FromValues(DType::kF32, logit_shape, logits));
  std::vector<float> temperature(static_cast<std::size_t>(rows));
  for (std::int64_t b = 0; b < rows; ++b) temperature[b] = greedy_row && b == 0 ? 0.0f : 0.5f + 0.25f * (b % 4);
  c.inputs.emplace("temperature", Tensor::FromValues(DType::kF32, {rows}, temperature));
  // Penalties over a history of 3 ids (-1 padded) and a prompt of 2.
  std::vector<std::int32_t> out_ids(static_cast<std::size_t>(rows * 3)), prompt(static_cast<std::size_t>(rows * 2));
  for (auto& x : out_ids) x = static_cast<std::int32_t>(rng.Next() % static_cast<std::uint64_t>(vocab));
  out_ids.back() = -1;
  for (auto& x : prompt) x = static_cast<std::int32_t>(rng.Next() % static_cast<std::uint64_t>(vocab));
  c.inputs.emplace("output_ids", Tensor::FromValues(DType::kI32, {rows, 3}, out_ids));
  c.inputs.emplace("prompt_ids", Tensor::FromValues(DType::kI32, {rows, 2}, prompt));
  std::vector<float> rep(static_cast<std::size_t>(rows), 1.25f), freq(static_cast<std::size_t>(rows), 0.5f),
      pres(static_cast<std::size_t>(rows), 0.25f);
  c.inputs.emplace("repetition_penalty", Tensor::FromValues(DType::kF32, {rows}, rep));
  c.inputs.emplace("frequency_penalty", Tensor::FromValues(DType::kF32, {rows}, freq));
  c.inputs.emplace("presence_penalty", Tensor::FromValues(DType::kF32, {rows}, pres));
  // min_new_tokens: stop id 1, min 2 tokens (decode_steps derives output_len).
  std::vector<std::int32_t> stop(static_cast<std::size_t>(rows), 1), min_tokens(static_cast<std::size_t>(rows), 2);
  c.inputs.emplace("stop_ids", Tensor::FromValues(DType::kI32, {rows, 1}, stop));
  c.inputs.emplace("min_tokens", Tensor::FromValues(DType::kI32, {rows}, min_tokens));
  if (shape.steps == 0) {
    std::vector<std::int32_t> len(static_cast<std::size_t>(rows), 1);
    c.inputs.emplace("output_len", Tensor::FromValues(DType::kI32, {rows}, len));
    // token_bitmask: one word in 16 masks its tokens; a dense bias on every 7th token.
    const std::int64_t words = (vocab + 31) / 32;
    std::vector<std::int32_t> mask(static_cast<std::size_t>(rows * words), -1);
    for (auto& w : mask) w = rng.Next() % 16 == 0 ? 0x0f0f0f0f : -1;
    c.inputs.emplace("bitmask", Tensor::FromValues(DType::kI32, {rows, words}, mask));
    std::vector<float> bias(static_cast<std::size_t>(rows * vocab), 0.0f);
    for (std::size_t i = 0; i < bias.size(); i += 7) bias[i] = 0.5f;
    c.inputs.emplace("bias", Tensor::FromValues(DType::kF32, {rows, vocab}, bias));
  }
  if (filters) {
    std::vector<std::int32_t> k(static_cast<std::size_t>(rows));
    std::vector<float> p(static_cast<std::size_t>(rows)), m(static_cast<std::size_t>(rows));
    for (std::int64_t b = 0; b < rows; ++b) {
      k[b] = b % 3 == 0 ? 0 : static_cast<std::int32_t>(vocab / (b + 1));
      p[b] = b % 2 == 0 ? 1.0f : 0.75f;
      m[b] = b % 4 == 3 ? 0.05f : 0.0f;
    }
    c.inputs.emplace("top_k", Tensor::FromValues(DType::kI32, {rows}, k));
    c.inputs.emplace("top_p", Tensor::FromValues(DType::kF32, {rows}, p));
    if (min_p) c.inputs.emplace("min_p", Tensor::FromValues(DType::kF32, {rows}, m));
  }
  std::vector<std::int64_t> seeds(static_cast<std::size_t>(rows)), positions(static_cast<std::size_t>(rows));
  for (std::int64_t b = 0; b < rows; ++b) {
    seeds[b] = static_cast<std::int64_t>(rng.Next());
    positions[b] = static_cast<std::int64_t>(rng.Next() >> 33);
  }
  c.inputs.emplace("seed", Tensor::FromValues(DType::kI64, {rows}, seeds));
  c.inputs.emplace("positions", Tensor::FromValues(DType::kI64, {rows}, positions));
  std::vector<float> q(static_cast<std::size_t>(rows * n * vocab));
  for (float& x : q) x = static_cast<float>((rng.Next() >> 40) + 1) * 0x1p-20f;  // finite, > 0
  c.inputs.emplace("q", Tensor::FromValues(DType::kF32, logit_shape, q));
  return c;
}

void ExpectSameTokens(const Case& c) {
  reference::ReferenceBackend reference;
  auto gpu = MakeGpuEmulatedBackend();
  const std::string out = RequireStage(c.stage).outputs.front().name;  // the one output: token or tokens
  const Tensor expected = reference.Run(c.stage, c).at(out);
  const Tensor actual = gpu->Run(c.stage, c).at(out);
  ASSERT_EQ(expected.shape(), actual.shape()) << c.id;
  EXPECT_EQ(std::vector<std::int64_t>(expected.data<std::int64_t>().begin(), expected.data<std::int64_t>().end()),
            std::vector<std::int64_t>(actual.data<std::int64_t>().begin(), actual.data<std::int64_t>().end()))
      << c.id;
}

TEST(GpuPipeline, MatchesTheReferenceOnOneWarpRows) {
  for (const char* profile : {"canonical", "vllm"}) {
    ExpectSameTokens(MakeCase("pipeline", profile, {6, 300, 0}, 1, true, true, true));
    ExpectSameTokens(MakeCase("pipeline", profile, {6, 300, 0}, 2, false, false, false));
  }
  // sglang: the sorted path (a greedy row; filters), the unfiltered path (no greedy row, no
  // filter), and the sorted path stated by the batch (sampling_path = sorted) without them.
  ExpectSameTokens(MakeCase("pipeline", "sglang", {6, 300, 0}, 3, true, true, false));
  ExpectSameTokens(MakeCase("pipeline", "sglang", {6, 300, 0}, 4, false, false, false));
  Case sorted = MakeCase("pipeline", "sglang", {6, 300, 0}, 5, false, false, false);
  sorted.params["sampling_path"] = "sorted";
  ExpectSameTokens(sorted);
}

// V > kOneWarpVocab: the draws run 1024 lanes; few rows (the rank count is O(V^2) per row).
TEST(GpuPipeline, MatchesTheReferenceOn1024LaneRows) {
  ExpectSameTokens(MakeCase("pipeline", "canonical", {2, 5000, 0}, 6, true, true, true));
  ExpectSameTokens(MakeCase("pipeline", "vllm", {2, 5000, 0}, 7, true, true, true));
  Case sorted = MakeCase("pipeline", "sglang", {2, 5000, 0}, 8, false, false, false);
  sorted.params["sampling_path"] = "sorted";
  ExpectSameTokens(sorted);
}

TEST(GpuDecodeSteps, MatchesTheReference) {
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    ExpectSameTokens(MakeCase("decode_steps", profile, {3, 200, 3}, 9, true, true, false));
  }
}

// --- the gpu backends' own draws of the pipeline (GpuPipelineCountDraws) -------------------------

// Each row's distribution composed once, then only the draw kernel per replica on the kept
// tokens: the counts must be those of the replicated case through Run with the harness's noise,
// bit for bit. The independent source is the reference backend through Run (the harness's
// CountDrawsThroughRun: every replica a whole RunPipeline on the host). Covers a greedy row,
// the filters, vllm's race, SGLang's sorted path (keyed by rank) and its unfiltered path, and
// that disjoint draw ranges add up to the whole.
TEST(GpuPipelineCountDraws, EqualsTheReferenceThroughRunWithTheHarnessNoise) {
  reference::ReferenceBackend reference;
  auto gpu = MakeGpuEmulatedBackend();
  ASSERT_TRUE(gpu->Capabilities("pipeline").count_draws);
  ASSERT_TRUE(gpu->Capabilities("pipeline").count_draws_range);
  std::vector<Case> cases = {MakeCase("pipeline", "canonical", {4, 60, 0}, 21, true, true, true),
                             MakeCase("pipeline", "vllm", {4, 60, 0}, 22, true, true, true),
                             MakeCase("pipeline", "sglang", {4, 60, 0}, 23, true, true, false),
                             MakeCase("pipeline", "sglang", {4, 60, 0}, 24, false, false, false)};
  Case top_k_one = MakeCase("pipeline", "vllm", {4, 60, 0}, 25, false, true, false);
  top_k_one.params["top_k_one"] = "greedy";
  top_k_one.inputs.at("top_k").data<std::int32_t>()[1] = 1;
  cases.push_back(top_k_one);
  constexpr std::int64_t kDraws = 200;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.id);
    const std::uint64_t seed = 0x5eed0000u + static_cast<std::uint64_t>(c.inputs.at("logits").data<float>()[1] * 16);
    const Tensor expected = statistical::CountDrawsThroughRun(reference, c, kDraws, seed);
    const Tensor actual = gpu->CountDraws("pipeline", c, kDraws, seed);
    ASSERT_EQ(expected.shape(), actual.shape());
    const auto e = expected.data<std::int64_t>(), a = actual.data<std::int64_t>();
    EXPECT_EQ(std::vector<std::int64_t>(e.begin(), e.end()), std::vector<std::int64_t>(a.begin(), a.end()));
    const Tensor first = gpu->CountDrawsRange("pipeline", c, 0, 120, seed);
    const Tensor rest = gpu->CountDrawsRange("pipeline", c, 120, kDraws - 120, seed);
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(first.data<std::int64_t>()[i] + rest.data<std::int64_t>()[i], a[i]) << "entry " << i;
    }
  }
}

// Bad input gets the reference's message (the glue checks through reference/stage_io.h in the
// reference's order).
void ExpectSameError(const Case& c) {
  reference::ReferenceBackend reference;
  auto gpu = MakeGpuEmulatedBackend();
  std::string expected, actual;
  try {
    reference.Run(c.stage, c);
  } catch (const std::exception& e) {
    expected = e.what();
  }
  try {
    gpu->Run(c.stage, c);
  } catch (const std::exception& e) {
    actual = e.what();
  }
  EXPECT_FALSE(expected.empty()) << c.id;
  EXPECT_EQ(expected, actual) << c.id;
}

TEST(GpuPipeline, BadInputGetsTheReferenceMessage) {
  // SGLang refuses min_p > 0 in a seeded batch with random rows.
  ExpectSameError(MakeCase("pipeline", "sglang", {4, 40, 0}, 10, true, true, true));
  // vllm: q must be finite and > 0 on a random row.
  Case bad_q = MakeCase("pipeline", "vllm", {4, 40, 0}, 11, true, true, false);
  bad_q.inputs.at("q").data<float>()[2 * 40 + 5] = 0.0f;
  ExpectSameError(bad_q);
  // positions outside [0, 2^32) on a random row.
  Case bad_pos = MakeCase("pipeline", "canonical", {4, 40, 0}, 12, true, true, false);
  bad_pos.inputs.at("positions").data<std::int64_t>()[1] = -1;
  ExpectSameError(bad_pos);
  // An unknown sampling_path; sampling_path under another profile.
  Case bad_path = MakeCase("pipeline", "sglang", {4, 40, 0}, 13, true, true, false);
  bad_path.params["sampling_path"] = "sideways";
  ExpectSameError(bad_path);
  Case vllm_path = MakeCase("pipeline", "vllm", {4, 40, 0}, 14, true, true, false);
  vllm_path.params["sampling_path"] = "sorted";
  ExpectSameError(vllm_path);
  // decode_steps: output_len is derived.
  Case len = MakeCase("decode_steps", "canonical", {2, 40, 2}, 15, true, true, false);
  len.inputs.emplace("output_len", Tensor::FromValues(DType::kI32, {2}, std::vector<std::int32_t>{0, 0}));
  ExpectSameError(len);
}

// --- planted faults against the goldens -------------------------------------------------------

// SGLang's sorted path keyed by token id instead of rank: the dyadic case's row drawn with
// seed -1, position 2^32 - 1 takes rank 1 = id 3, while id columns give id 1
// (docs/spec/pipeline.md).
TEST(GpuPipeline, PlantedTokenIdColumnsAreRejectedByTheGolden) {
  const GoldenCase g = ReadCaseFile(SAMPCHECK_SOURCE_DIR "/golden/v1/pipeline/dyadic/sglang.safetensors");
  auto runner = MakeEmulatedRunner();
  EXPECT_EQ(golden::JudgeOutputs(g, GpuPipelineWith(g.input, Profile::kSglang, *runner, {})), "");
  EXPECT_NE(golden::JudgeOutputs(g, GpuPipelineWith(g.input, Profile::kSglang, *runner, {.sglang_rank_keys = false})),
            "");
}

// Decode steps that do not advance the position reuse step 0's noise at every step.
TEST(GpuDecodeSteps, PlantedReusedNoiseIsRejectedByTheGolden) {
  const GoldenCase g =
      ReadCaseFile(SAMPCHECK_SOURCE_DIR "/golden/v1/decode_steps/fresh_noise_v64/canonical.safetensors");
  auto runner = MakeEmulatedRunner();
  auto run = [&](std::int64_t stride) {
    return reference::RunDecodeStepsOn(g.input, Profile::kCanonical, {.offset_stride = stride}, [&](const Case& step) {
      return GpuPipeline(step, Profile::kCanonical, *runner);
    });
  };
  EXPECT_EQ(golden::JudgeOutputs(g, run(1)), "");
  EXPECT_NE(golden::JudgeOutputs(g, run(0)), "");
}

// The harness's seeded checks with the backend's own noise: the decode steps' (vLLM's
// per-request generators among them) and the per-rank draws of tensor parallelism
// (harness/decode_steps_check.h, harness/tp_consensus_check.h).
TEST(GpuPipeline, PassesTheDecodeStepsAndTensorParallelChecks) {
  auto gpu = MakeGpuEmulatedBackend();
  // vllm only: its case holds the seeded rows (the other profiles' cases carry nothing new, and
  // the emulated batches of 64 rows x 8 steps cost seconds per profile).
  const auto decode = harness::CheckDecodeSteps(*gpu, {}, {"vllm"});
  EXPECT_EQ(decode.size(), 3u);
  for (const auto& r : decode) EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
  const auto ranks = harness::CheckTpRanks(*gpu);
  EXPECT_EQ(ranks.size(), 3u);
  for (const auto& r : ranks) EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
  // gpu-fast claims the pipeline: its seeded draws agree across ranks too (canonical only here,
  // to keep this test's time; conform runs every profile).
  auto fast = MakeGpuFastEmulatedBackend();
  const auto fast_ranks = harness::CheckTpRanks(*fast, {}, {"canonical"});
  EXPECT_EQ(fast_ranks.size(), 1u);
  for (const auto& r : fast_ranks) EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
}

}  // namespace
}  // namespace sampcheck::gpu
