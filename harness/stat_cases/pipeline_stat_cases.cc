// SPDX-License-Identifier: Apache-2.0
// The pipeline's statistical case families under canonical, vllm and sglang
// (docs/spec/harness.md "Families", "Filter families").
// Registered with SAMPCHECK_STAT_FAMILY (harness/stat_cases/stat_cases.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "core/profile.h"
#include "harness/stat_cases/portable_shapes.h"
#include "harness/stat_cases/stat_case_inputs.h"
#include "harness/stat_cases/stat_cases.h"

namespace sampcheck::statistical {
namespace {

constexpr float kLn2 = std::numbers::ln2_v<float>;

struct PipelineRow {
  std::vector<float> logits;
  float temperature = 1.0f;
  std::int32_t top_k = 0;   // 0: disabled
  float top_p = 1.0f;       // 1: disabled
  float min_p = 0.0f;       // 0: disabled
};

// Every pipeline case carries all three filter tensors (disabled values where unused), so
// that cases of one profile and vocabulary can be each other's batch neighbours.
Case PipelineCase(const std::string& id, const std::string& profile, const std::vector<PipelineRow>& rows) {
  Case c{id, "pipeline", ParseProfile(profile), nlohmann::json::object(), {}};
  const auto b = static_cast<std::int64_t>(rows.size());
  const auto v = static_cast<std::int64_t>(rows.front().logits.size());
  std::vector<float> logits, temperature, top_p, min_p;
  std::vector<std::int32_t> top_k;
  for (const auto& r : rows) {
    logits.insert(logits.end(), r.logits.begin(), r.logits.end());
    temperature.push_back(r.temperature);
    top_k.push_back(r.top_k);
    top_p.push_back(r.top_p);
    min_p.push_back(r.min_p);
  }
  c.inputs.emplace("logits", Tensor::FromValues(DType::kF32, {b, v}, logits));
  c.inputs.emplace("temperature", Tensor::FromValues(DType::kF32, {b}, temperature));
  c.inputs.emplace("top_k", Tensor::FromValues(DType::kI32, {b}, top_k));
  c.inputs.emplace("top_p", Tensor::FromValues(DType::kF32, {b}, top_p));
  // SGLang refuses min-p in a seeded batch, and picks its seeded draw per batch
  // (reference/pipeline.h): its cases carry no min-p and pin the sorted path, so that a row
  // draws alike alone and among any neighbours.
  if (ParseProfile(profile) == Profile::kSglang) {
    std::fill(min_p.begin(), min_p.end(), 0.0f);
    c.params["sampling_path"] = "sorted";
  }
  c.inputs.emplace("min_p", Tensor::FromValues(DType::kF32, {b}, min_p));
  return c;
}

// top_p at the middle of token t's share of the cumulative softmax of `logits` (descending
// logits, so token order = index order): far from both ends of its interval, hence not
// ambiguous; a nucleus off by one token includes t + 1.
float TopPInsideToken(const std::vector<float>& logits, int t) {
  long double sum = 0.0L, before = 0.0L;
  for (float l : logits) sum += std::exp(static_cast<long double>(l));
  for (int i = 0; i < t; ++i) before += std::exp(static_cast<long double>(logits[static_cast<std::size_t>(i)]));
  const long double own = std::exp(static_cast<long double>(logits[static_cast<std::size_t>(t)]));
  return static_cast<float>((before + own / 2.0L) / sum);
}

// Three rows over V = 100 with every per-row group of the pipeline before temperature:
//   row 0: penalties (repetition 1.3, frequency 0.2, presence 0.1 on outputs {0, 0, 3, 5} and
//          prompt {1, 2}), tokens 10..19 masked by the bitmask, top-p 0.8;
//   row 1: neutral penalties (1, 0, 0, no ids), no mask, temperature 0.7, min-p 0.2;
//   row 2: greedy; frequency penalty 1 on token 0 (logit 0 -> -1), so the argmax is token 1.
Case PenaltiesMaskCase(const std::string& id, const std::string& profile) {
  std::vector<PipelineRow> rows(3);
  for (auto& r : rows) r.logits = Linear(100, 0.04f);
  // Each boundary sits mid-gap, so that a small diffuse fault does not flip it (docs/spec/harness.md
  // "Boundary margins"). Row 0: after penalties and mask the nucleus keeps 36 tokens, the mass
  // before the last one 0.79708 and through it 0.80602 (long double, from the processed
  // logits); top-p 0.8015 sits 0.0044 from both ends (0.8 was 0.0029 from one).
  rows[0].top_p = 0.8015f;
  rows[1].temperature = 0.7f;
  // Row 1: min-p keeps i <= 28 (ratio exp(-0.04 i / 0.7)); exp(-0.04 * 28.5 / 0.7) = 0.1962
  // puts the threshold 0.0286 in log-ratio from tokens 28 and 29 (0.2 was 0.0094 from 28).
  rows[1].min_p = 0.1962f;
  // SGLang has no seeded min-p (PipelineCase drops it): the same 29 tokens by top-k, so that
  // its law and its cost match the other profiles' (without, the row keeps all 100).
  if (ParseProfile(profile) == Profile::kSglang) rows[1].top_k = 29;
  rows[2].temperature = 0.0f;
  Case c = PipelineCase(id, profile, rows);
  c.inputs.emplace("output_ids", Tensor::FromValues(DType::kI32, {3, 4}, std::vector<std::int32_t>{0, 0, 3, 5, -1, -1, -1, -1, 0, -1, -1, -1}));
  c.inputs.emplace("prompt_ids", Tensor::FromValues(DType::kI32, {3, 2}, std::vector<std::int32_t>{1, 2, -1, -1, -1, -1}));
  c.inputs.emplace("repetition_penalty", Tensor::FromValues(DType::kF32, {3}, std::vector<float>{1.3f, 1.0f, 1.0f}));
  c.inputs.emplace("frequency_penalty", Tensor::FromValues(DType::kF32, {3}, std::vector<float>{0.2f, 0.0f, 1.0f}));
  c.inputs.emplace("presence_penalty", Tensor::FromValues(DType::kF32, {3}, std::vector<float>{0.1f, 0.0f, 0.0f}));
  // W = 4 words of 32 bits; -1 allows all 32. Row 0 clears bits 10..19 of word 0.
  const auto row0_word0 = static_cast<std::int32_t>(~(((1u << 10) - 1u) << 10));
  c.inputs.emplace("bitmask", Tensor::FromValues(DType::kI32, {3, 4}, std::vector<std::int32_t>{row0_word0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}));
  return c;
}

// Pipeline families, under each profile.
std::vector<StatCase> PipelineCases() {
  StatCaseList list;
  for (const std::string profile : {"canonical", "vllm", "sglang"}) {
    list.Add("penalties and a grammar mask on one row, neutral penalties and no mask on the next (min-p, or top-k 29 on "
        "sglang), a greedy row whose argmax moves with its frequency penalty, V = 100",
        PenaltiesMaskCase("stats/pipeline/penalties_mask_v100/" + profile, profile), 0.05, 0.01, 0.0);
    list.WithFilterRank();
    {
      PipelineRow r;
      r.logits = Linear(100, 0.08f);
      r.top_p = TopPInsideToken(r.logits, 12);
      list.Add("top-p boundary inside token 12's mass, V = 100: an off-by-one nucleus draws token 13",
          PipelineCase("stats/pipeline/top_p_inside_v100/" + profile, profile, {r}), 0.05, 0.01, 0.0);
      list.WithFilterRank();
    }
    {
      PipelineRow r;
      r.logits = {0.0f, -kLn2, -2 * kLn2, -3 * kLn2, -4 * kLn2, -5 * kLn2, -6 * kLn2, -6 * kLn2};
      // 15/16 = 1/2 + 1/4 + 1/8 + 1/16: tokens 3 and 4 are ambiguous (their cumulative sums
      // meet top_p only up to the rounding of ln 2), tokens 0..2 are kept for certain and
      // 5..7 excluded, so the law over {0, 1, 2} (1/2, 1/4, 1/8 renormalised) has L2 and L3
      // tests besides the leak check. (top_p = 3/4 left only token 0 unambiguous: a leak check
      // alone.)
      r.top_p = 0.9375f;
      list.Add("top-p exactly on a dyadic cumulative sum (15/16), V = 8: the two tokens at the boundary are ambiguous",
          PipelineCase("stats/pipeline/top_p_dyadic_v8/" + profile, profile, {r}), 0.05, 0.01, 0.0);
    }
    {
      PipelineRow r;
      r.logits.assign(1023, 0.0f);
      for (int i = 0; i < 1023; ++i) r.logits[static_cast<std::size_t>(i)] = -3.0f - 0.01f * static_cast<float>(i % 97);
      r.logits[0] = 2.0f;
      r.logits[1] = 1.5f;
      r.logits[2] = 1.2f;
      for (int i : {3, 511, 700, 1022}) r.logits[static_cast<std::size_t>(i)] = 1.0f;
      r.top_k = 5;
      list.Add("top-k = 5 with four tokens tied at the 5th value, V = 1023 (canonical, sglang keep the two lowest ids; vllm all four)",
          PipelineCase("stats/pipeline/top_k_ties_v1023/" + profile, profile, {r}), 0.05, 0.01, 0.0);
    }
    {
      PipelineRow r;
      r.logits = Linear(100, 0.05f);
      // Keeps i <= 24 (ratio exp(-0.05 i)); exp(-0.05 * 24.5) = 0.2938 puts the threshold 0.025
      // in log-ratio from tokens 24 and 25, so only a fault that size or larger moves it (0.3
      // was 0.004 from token 24). min_p_wrong_max (threshold against the second largest
      // probability, exp(-0.05) lower) still lets token 25 in.
      r.min_p = 0.2938f;
      if (ParseProfile(profile) != Profile::kSglang) {  // SGLang has no seeded min-p
        list.Add("min-p = 0.2938 (mid-gap) on a decaying row, V = 100",
            PipelineCase("stats/pipeline/min_p_v100/" + profile, profile, {r}), 0.05, 0.01, 0.0);
        list.WithFilterRank();
      }
    }
    {
      PipelineRow r;
      r.logits = MaskedRow33();
      r.temperature = 0.8f;
      Case c = PipelineCase("stats/pipeline/masked_f16_v33/" + profile, profile, {r});
      ToHalf(c, "logits", DType::kF16);
      list.Add("f16 logits, every token -inf but 0, 7, 20 and V - 1, temperature 0.8, V = 33 (docs/spec/input_classes.md)",
          std::move(c), 0.05, 0.01, 0.0);
    }
    {
      PipelineRow r;
      r.logits.resize(50);
      for (int i = 0; i < 50; ++i) r.logits[static_cast<std::size_t>(i)] = static_cast<float>(2.0 * TriangleWave(0.7 * i));
      r.temperature = 0.5f;
      list.Add("temperature 0.5, V = 50 (smaller than one tile)",
          PipelineCase("stats/pipeline/temperature_v50/" + profile, profile, {r}), 0.05, 0.01, kNoTargetedTest);
      list.WithExponent();
      // Under --thorough the pipeline's unfiltered row too sees any tilt of true TV 0.0005 (the
      // filter families' KS, docs/spec/harness.md "Filter families"): its exponent test at
      // 1.002 and rank test at KS 0.002 missed diffuse_tv0.0005 (true TV 7.4e-4) on 2026-11-29.
      list.cases.back().mde_rank_thorough = kRankFilterThorough;
    }
    {
      std::vector<PipelineRow> rows(4);
      for (int b = 0; b < 4; ++b) {
        rows[static_cast<std::size_t>(b)].logits.resize(8193);
        for (int i = 0; i < 8193; ++i) {
          rows[static_cast<std::size_t>(b)].logits[static_cast<std::size_t>(i)] =
              -0.0005f * static_cast<float>((i * (b + 3)) % 8193);
        }
      }
      rows[0].temperature = 0.0f;  // greedy, with the maximum tied at ids 100 and 8000
      rows[0].logits[100] = 5.0f;
      rows[0].logits[8000] = 5.0f;
      rows[1].top_k = 50;
      rows[2].temperature = 0.8f;
      // Every token of this dense row holds ~5e-4 of the mass, so the top-p boundary cannot
      // be far from one: 0.3 is 1.8e-4 and 2.6e-4 from the two ends of the last kept token's
      // interval. What this row tests is the boundary itself.
      rows[2].top_p = 0.3f;
      // Row 3 takes the values -0.0015 m (m = 0 .. 2730, each thrice); values below -0.65 are
      // lowered by 0.1 more, leaving a gap (-0.7505, -0.6495) around ln(min_p) = -0.7, so the
      // min-p boundary is 0.05 in log-ratio from any token (min-p 0.5 left three tokens 1.5e-4
      // above it, which any temperature fault above 1.0002 crossed). It keeps 1302 tokens.
      for (float& l : rows[3].logits) {
        if (l < -0.65f) l -= 0.1f;
      }
      rows[3].min_p = 0.4965853f;  // exp(-0.7)
      // SGLang has no seeded min-p (PipelineCase drops it): the same 1302 tokens by top-k (whole
      // tie groups of three), so that its law and cost match the other profiles'.
      if (ParseProfile(profile) == Profile::kSglang) rows[3].top_k = 1302;
      list.Add("mixed greedy (max tied) and random rows (top-k 50, top-p 0.3, min-p exp(-0.7) or top-k 1302 on sglang), V = 8193",
          PipelineCase("stats/pipeline/mixed_v8193/" + profile, profile, rows), 0.05, 0.01, 0.0);
      list.WithFilterRank(/*at_ci=*/false);
    }
  }
  return list.cases;
}

}  // namespace

SAMPCHECK_STAT_FAMILY(Pipeline, {.position = 600, .cases = PipelineCases});

}  // namespace sampcheck::statistical
