// SPDX-License-Identifier: Apache-2.0
// The draw harness's case families (harness/stat_cases/stat_cases.h, docs/spec/harness.md).
#include "harness/stat_cases/stat_cases.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/half.h"
#include "core/profile.h"
#include "harness/stat_cases/portable_shapes.h"
#include "harness/stat_cases/spec_stat_cases.h"
#include "harness/stat_cases/flashinfer_sampling_from_probs_stat_cases.h"

namespace sampcheck::statistical {
namespace {

constexpr float kLn2 = std::numbers::ln2_v<float>;

// The exponent test's declared effects (docs/spec/harness.md "Families"): every logit scaled
// by 1.005 (a temperature off by 0.5%) must be rejected with power 0.99 by a CI-sized run, by
// 1.002 under --thorough. Declared on the rows where it is affordable: n grows as
// 1 / ((t - 1)^2 v0), v0 the variance of ln p under p, so rows with v0 >= ~0.7 fit the 2e7
// draw limit at 1.002 (flat rows have v0 = 0 and no test).
constexpr double kExponentCi = 0.005;
constexpr double kExponentThorough = 0.002;
// The diffuse TV of the omnibus L3 on the same cases (docs/spec/harness.md "Diffuse TV"): a
// least-favourable fault spread as |p' - p| / p constant, TV 0.01 for CI and 0.002 for
// --thorough (0.0025 on zeros_v1023, whose support of 818 would need 2.1e7 draws at 0.002).
// The exponent tests already draw 4e5-3e6 (CI) and 2.5e6-1.9e7 (--thorough) there,
// so the smaller TV costs few or no extra draws (n = max over the layers).
constexpr double kDiffuseTvCi = 0.01;
constexpr double kDiffuseTvThorough = 0.002;
// The rank-cumulative test on the same cases (harness.md "Layers per row"): a monotone tilt of
// any form that moves the cumulative share of the head by 0.005 (CI) / 0.002 (--thorough).
// Distribution-free sizing: 6.3e5 / 3.9e6 draws, within what the other layers draw there
// except at peaked_v100's CI size (4.0e5 from its exponent test).
constexpr double kRankCi = 0.005;
constexpr double kRankThorough = 0.002;

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

Case ProbsCase(const std::string& id, const std::string& stage, const std::string& input, std::vector<float> row) {
  Case c{id, stage, Profile::kCanonical, nlohmann::json::object(), {}};
  const auto v = static_cast<std::int64_t>(row.size());
  c.inputs.emplace(input, Tensor::FromValues(DType::kF32, {1, v}, row));
  return c;
}

// The case's input `name` rounded to f16 or bf16 (its values must be exact there: the cases
// below use multiples of 2^-3 and -inf), for the half-precision input class
// (docs/spec/input_classes.md).
void ToHalf(Case& c, const std::string& name, DType dtype) {
  const Tensor& f = c.inputs.at(name);
  Tensor h(dtype, f.shape());
  const auto src = f.data<float>();
  auto dst = h.data<std::uint16_t>();
  for (std::size_t i = 0; i < src.size(); ++i) dst[i] = dtype == DType::kF16 ? F32ToF16Bits(src[i]) : F32ToBF16Bits(src[i]);
  c.inputs.insert_or_assign(name, std::move(h));
}

// V = 33 with four survivors, at 0, 7, 20 and V - 1, the rest -inf: the structural check
// (L1) sees any draw of a masked token, L2/L3 the law over the four.
std::vector<float> MaskedRow33() {
  std::vector<float> s(33, -std::numeric_limits<float>::infinity());
  s[0] = 0.0f;
  s[7] = -0.5f;
  s[20] = -1.0f;
  s[32] = -1.5f;
  return s;
}

std::vector<float> Linear(int v, float slope) {
  std::vector<float> l(static_cast<std::size_t>(v));
  for (int i = 0; i < v; ++i) l[static_cast<std::size_t>(i)] = -slope * static_cast<float>(i);
  return l;
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

// The list DrawStatCases builds, in order: each case with its declared effects.
struct StatCaseList {
  std::vector<StatCase> cases;
  void Add(std::string family, Case c, double ci, double thorough, double ratio) {
    cases.push_back(NewStatCase(std::move(family), std::move(c), ci, thorough, ratio));
  }
  // The last case also gets the exponent score test at the declared |t - 1|, the rank-cumulative
  // test at its declared distance, and the diffuse TV (its omnibus L3 and leak check sized at
  // 0.01 / 0.002 instead of the default 0.05 / 0.01).
  void WithExponent(double diffuse_tv_thorough = kDiffuseTvThorough) {
    cases.back().mde_exponent_ci = kExponentCi;
    cases.back().mde_exponent_thorough = kExponentThorough;
    cases.back().mde_rank_ci = kRankCi;
    cases.back().mde_rank_thorough = kRankThorough;
    cases.back().mde_tv_ci = kDiffuseTvCi;
    cases.back().mde_tv_thorough = diffuse_tv_thorough;
  }
  // The last case also gets the rank-cumulative test under --thorough only (docs/spec/harness.md
  // "Filter families"): a filtered row's least favourable diffuse fault is a two-group tilt
  // whose KS distance equals its TV, so KS 0.002 sees a true TV of 0.002. Its 3.9e6 draws per
  // row fit --thorough; at the CI size the 6.3e5 per row of KS 0.005 would add 1.6e7 draws to
  // a CI run (the four families hold 26 rows, each drawn n times) and 12 times the share of the
  // families it runs to the CI calibration test, so the CI size keeps the omnibus and targeted
  // tests only.
  void WithThoroughRank() { cases.back().mde_rank_thorough = kRankThorough; }
};

// Draw stages given probabilities: the exponential race, inverse CDF and Gumbel-max.
void AddGivenProbabilityCases(StatCaseList& list) {
  list.Add("dyadic probabilities 2^-1 ... 2^-7, 2^-7 (sum exactly 1 in f32)",
      ProbsCase("stats/exponential_race/dyadic_v8/canonical", "exponential_race", "probs",
                {0.5f, 0.25f, 0.125f, 0.0625f, 0.03125f, 0.015625f, 0.0078125f, 0.0078125f}),
      0.05, 0.01, 0.0);
  list.WithExponent();
  // The amplifier has no omnibus test (two tokens, the weak one expected about once: pooling
  // leaves one bin at any n it plans), so its n comes from L2 alone, and the L2 effect is
  // declared per size: a 2^-16 floor on the uniforms (16x) for CI, a 2^-18 floor (q = 0 with
  // probability 2^-18: 1 + 4 = 5x, declared as 4x) for --thorough. The TV MDEs only size the
  // leak check (L1).
  list.Add("amplifier: weight 2^-20 beside weight 1; a 2^-16 floor on the uniforms makes the weak token 16x likelier",
      ProbsCase("stats/exponential_race/amplifier_v2/canonical", "exponential_race", "probs", {1.0f, 0x1p-20f}),
      0.2, 0.1, 16.0);
  list.cases.back().targeted_ratio_thorough = 4.0;
  {
    std::vector<float> flat(1023, 1.0f);
    list.Add("flat row, V = 1023 (not a multiple of any tile width)",
        ProbsCase("stats/exponential_race/flat_v1023/canonical", "exponential_race", "probs", flat), 0.05, 0.01, 0.0);
  }
  {
    std::vector<float> peaked(100);
    for (int i = 0; i < 100; ++i) peaked[static_cast<std::size_t>(i)] = i == 37 ? 50.0f : 1.0f / static_cast<float>(1 + i % 7);
    list.Add("peaked row, V = 100: one token holds ~70% of the mass",
        ProbsCase("stats/exponential_race/peaked_v100/canonical", "exponential_race", "probs", peaked), 0.05, 0.01, 0.0);
    list.WithExponent();
  }
  {
    std::vector<float> p(1023);
    for (int i = 0; i < 1023; ++i) p[static_cast<std::size_t>(i)] = i % 5 == 0 ? 0.0f : PortableExp(-0.01f * static_cast<float>(i));
    list.Add("decaying row with every fifth token at probability 0, V = 1023",
        ProbsCase("stats/inverse_cdf/zeros_v1023/canonical", "inverse_cdf", "probs", p), 0.05, 0.01, kNoTargetedTest);
    // Support 818: TV 0.002 would need 2.1e7 draws (above the limit), 0.0025 needs 1.36e7,
    // within the 1.38e7 its exponent test draws.
    list.WithExponent(0.0025);
  }
  {
    std::vector<float> s(100);
    for (int i = 0; i < 100; ++i) s[static_cast<std::size_t>(i)] = i % 10 == 3 ? -std::numeric_limits<float>::infinity() : static_cast<float>(2.0 * TriangleWave(0.7 * i));
    list.Add("scores with -inf entries, V = 100",
        ProbsCase("stats/gumbel_max/scores_v100/canonical", "gumbel_max", "logprobs", s), 0.05, 0.01, 0.0);
    list.WithExponent();
  }
  // Input classes (docs/spec/input_classes.md): half-precision inputs with masked tokens and a
  // survivor at the last id V - 1, so that a kernel that reads a half row wrongly, draws a
  // masked token or drops the last column shows up in L1 or L2.
  {
    Case g = ProbsCase("stats/gumbel_max/masked_f16_v33/canonical", "gumbel_max", "logprobs", MaskedRow33());
    ToHalf(g, "logprobs", DType::kF16);
    list.Add("f16 scores, every token -inf but 0, 7, 20 and V - 1, V = 33", std::move(g), 0.05, 0.01, 0.0);
    std::vector<float> p(33, 0.0f);
    p[0] = 0.5f;
    p[16] = 0.25f;
    p[31] = 0.125f;
    p[32] = 0.125f;
    Case r = ProbsCase("stats/exponential_race/masked_bf16_v33/canonical", "exponential_race", "probs", p);
    ToHalf(r, "probs", DType::kBF16);
    list.Add("bf16 probabilities, zero but at 0, 16, 31 and V - 1, V = 33", std::move(r), 0.05, 0.01, 0.0);
  }
}

// Tail amplifiers (docs/spec/harness.md "Tail amplifiers"): a group of weak tokens whose share
// a coarse noise floor or a half-precision probability moves, with an exact binomial test (L2)
// on the group's draws.
void AddTailAmplifierCases(StatCaseList& list) {
  {
    // Half precision: the weak weights 3 2^-27 lie below half of f16's smallest subnormal
    // 2^-24, so a backend that rounds the probabilities to f16 never draws them; the strong
    // weight 2^-14 is f16's smallest normal (exact). Weak / strong = 3 2^-13 = 3.7e-4 per token
    // keeps every noise floor's effect below the test's resolution (harness.md), so the
    // target is p: the group holds 31 * 3 2^-13 / (1 + 31 * 3 2^-13) = 0.0112 of the draws.
    std::vector<float> p(32, 0x3p-27f);
    p[0] = 0x1p-14f;
    list.Add("tail: 31 weights 3 2^-27 beside 2^-14, unnormalised: rounded to f16 the 31 vanish (below half the smallest subnormal)",
        ProbsCase("stats/exponential_race/tail_f16_v32/canonical", "exponential_race", "probs", p), 0.05, 0.01, 0.0);
  }
  {
    // The floor: 1023 weights 2^-30 beside 1. Each weak token wins when its uniform is 0
    // (q = +0, probability 2^-24), and almost never otherwise, so the group's exact share is
    // (1 - 2^-24)(1 - (1 - 2^-24)^1023) = 6.09e-5 (race_floor_law.h), 64 times its share of p.
    // L2 against that share: CI declares the group's draws divided by 64 (an endpoint u = 1
    // let through instead of u = 0 leaves 1/1023 of them; f16 probabilities none), --thorough
    // twice them (a uniform one bit short: q = +0 with probability 2^-23).
    std::vector<float> p(1024, 0x1p-30f);
    p[0] = 1.0f;
    list.Add("tail: 1023 weights 2^-30 beside 1: the group wins through the uniform's floor (q = +0 with probability 2^-24 per token)",
        ProbsCase("stats/exponential_race/tail_floor_v1024/canonical", "exponential_race", "probs", p), 0.2, 0.1, 1.0 / 64.0);
    list.cases.back().targeted_ratio_thorough = 2.0;
    list.cases.back().floor_target = FloorTarget::kCanonicalRace;
  }
  {
    // SGLang's seeded Gumbel-max: 1023 columns 2^-29 beside 1 (log ratio 20.1). A weak column
    // needs g_w > 20.1 + g_s: among the top ~200 of the 2^32 hash cells (g = 32 ln2 - ln k),
    // so the group's exact share is 2.0e-6 (race_floor_law.h; 1.05 times p's). A hash turned
    // into f32 before the division gives u = 1, g = 32 ln2, with probability 2^-25 per column,
    // winning whenever g_s < 2.08 (88%): about 13.5 times the share. Drawn through Run with the
    // harness's seeds (the reference's own draws are the canonical race). --thorough declares
    // 8x; CI only a gross fault (64x), to keep its n small.
    std::vector<float> p(1024, 0x1p-29f);
    p[0] = 1.0f;
    Case c = ProbsCase("stats/multinomial_with_seed/tail_floor_v1024/sglang", "multinomial_with_seed", "probs", p);
    c.profile = Profile::kSglang;
    list.Add("tail: 1023 weights 2^-29 beside 1 under SGLang's seeded draw: the group wins through the top hash cells",
        std::move(c), 0.2, 0.1, 64.0);
    list.cases.back().targeted_ratio_thorough = 8.0;
    list.cases.back().floor_target = FloorTarget::kSglangSeeded;
  }
}

// The other draw stages and profiles, on one decaying row each.
void AddProfileDrawCases(StatCaseList& list) {
  {
    std::vector<float> p(100);
    for (int i = 0; i < 100; ++i) p[static_cast<std::size_t>(i)] = PortableExp(-0.03f * static_cast<float>(i));
    Case vllm = ProbsCase("stats/exponential_race/decay_v100/vllm", "exponential_race", "probs", p);
    vllm.profile = Profile::kVllm;
    list.Add("decaying row under vLLM's race over every token, V = 100", std::move(vllm), 0.05, 0.01, 0.0);
    Case q = ProbsCase("stats/qsample/decay_v100/ascend_v2", "qsample", "probs", p);
    q.profile = Profile::kAscendV2;
    list.Add("Ascend QSample on a decaying row, V = 100", std::move(q), 0.05, 0.01, 0.0);
    Case m = ProbsCase("stats/multinomial_with_seed/decay_v100/sglang", "multinomial_with_seed", "probs", p);
    m.profile = Profile::kSglang;
    list.Add("SGLang's seeded Gumbel-max on a decaying row, V = 100", std::move(m), 0.05, 0.01, 0.0);
    Case t = ProbsCase("stats/multinomial_with_seed_token_ids/decay_v100/sglang", "multinomial_with_seed_token_ids", "probs", p);
    t.profile = Profile::kSglang;
    std::vector<std::int32_t> ids(100);
    for (int i = 0; i < 100; ++i) ids[static_cast<std::size_t>(i)] = 1000 + 7 * i;  // hash columns: vocabulary ids
    t.inputs.emplace("token_ids", Tensor::FromValues(DType::kI32, {1, 100}, ids));
    list.Add("SGLang's seeded Gumbel-max keyed by token id, V = 100", std::move(t), 0.05, 0.01, 0.0);
    std::vector<float> s(100);
    for (int i = 0; i < 100; ++i) s[static_cast<std::size_t>(i)] = -0.03f * static_cast<float>(i);
    Case g = ProbsCase("stats/gumbel_max/decay_v100/sglang", "gumbel_max", "logprobs", s);
    g.profile = Profile::kSglang;
    list.Add("SGLang's Gumbel-max with given noise, V = 100", std::move(g), 0.05, 0.01, 0.0);
  }
}

void AddAscendV2Cases(StatCaseList& list) {
  // Ascend's TopKTopPSampleV2 as one op: top-k -> top-p -> min-p on the softmax of the top-k
  // survivors, then QSample with Exp(1) noise indexed by list position. Row 0 has all three
  // filters active (k = 60 of 100, p = 0.9, min-p 0.03 against the survivors' maximum); row 1
  // has top-k off (k = 0) so top-p runs over the whole sorted row.
  {
    const std::vector<float> l = Linear(100, 0.05f);
    Case c{"stats/ascend_top_k_top_p_sample_v2/decay_v100/ascend_v2",
           "ascend_top_k_top_p_sample_v2",
           Profile::kAscendV2,
           nlohmann::json::object(),
           {}};
    std::vector<float> logits(l);
    logits.insert(logits.end(), l.begin(), l.end());
    c.inputs.emplace("logits", Tensor::FromValues(DType::kF32, {2, 100}, logits));
    c.inputs.emplace("top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {2}, {60, 0}));
    c.inputs.emplace("top_p", Tensor::FromValues<float>(DType::kF32, {2}, {0.9f, 0.6f}));
    c.inputs.emplace("min_p", Tensor::FromValues<float>(DType::kF32, {2}, {0.03f, 0.0f}));
    list.Add("Ascend TopKTopPSampleV2: filters then QSample, V = 100", std::move(c), 0.05, 0.01, 0.0);
  }
}

void AddSpecRandomCases(StatCaseList& list) {
  // Speculative decoding (vllm): one draft per request, drafts drawn from the draft row by the
  // harness; the first emitted token (accepted draft or recovered token) follows the target row
  // of position 0 (Leviathan et al. 2023, Theorem 1). Acceptance 0.65.
  {
    Case c{"stats/spec_random/recovered_v8/vllm", "spec_random", Profile::kVllm, nlohmann::json::object(), {}};
    c.inputs.emplace("target_probs", Tensor::FromValues(DType::kF32, {1, 2, 8}, std::vector<float>{
        0.3f, 0.2f, 0.15f, 0.1f, 0.1f, 0.08f, 0.05f, 0.02f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f}));
    c.inputs.emplace("draft_probs", Tensor::FromValues(DType::kF32, {1, 1, 8}, std::vector<float>{
        0.05f, 0.1f, 0.3f, 0.2f, 0.1f, 0.1f, 0.1f, 0.05f}));
    list.Add("speculative decoding: the first emitted token (accepted draft or recovered token) against the target, V = 8",
        std::move(c), 0.05, 0.01, 0.0);
  }
}

// Pipeline families, under each profile.
void AddPipelineCases(StatCaseList& list) {
  for (const std::string profile : {"canonical", "vllm", "sglang"}) {
    list.Add("penalties and a grammar mask on one row, neutral penalties and no mask on the next (min-p, or top-k 29 on "
        "sglang), a greedy row whose argmax moves with its frequency penalty, V = 100",
        PenaltiesMaskCase("stats/pipeline/penalties_mask_v100/" + profile, profile), 0.05, 0.01, 0.0);
    list.WithThoroughRank();
    {
      PipelineRow r;
      r.logits = Linear(100, 0.08f);
      r.top_p = TopPInsideToken(r.logits, 12);
      list.Add("top-p boundary inside token 12's mass, V = 100: an off-by-one nucleus draws token 13",
          PipelineCase("stats/pipeline/top_p_inside_v100/" + profile, profile, {r}), 0.05, 0.01, 0.0);
      list.WithThoroughRank();
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
        list.WithThoroughRank();
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
      list.WithThoroughRank();
    }
  }
}

}  // namespace

StatCase NewStatCase(std::string family, Case input, double mde_tv_ci, double mde_tv_thorough, double targeted_ratio) {
  StatCase s;
  s.id = input.id;
  s.family = std::move(family);
  s.input = std::move(input);
  s.mde_tv_ci = mde_tv_ci;
  s.mde_tv_thorough = mde_tv_thorough;
  s.targeted_ratio = targeted_ratio;
  return s;
}

std::vector<StatCase> DrawStatCases() {
  StatCaseList list;
  AddGivenProbabilityCases(list);
  AddTailAmplifierCases(list);
  AddProfileDrawCases(list);
  AddAscendV2Cases(list);
  AddSpecRandomCases(list);
  AddPipelineCases(list);
  for (auto& s : SpecStatCases()) list.cases.push_back(std::move(s));  // spec_stat_cases.h
  for (auto& s : SpecStepStatCases()) list.cases.push_back(std::move(s));
  for (auto& s : FlashinferSamplingFromProbsStatCases()) list.cases.push_back(std::move(s));
  return list.cases;
}

}  // namespace sampcheck::statistical
