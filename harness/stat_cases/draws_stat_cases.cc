// SPDX-License-Identifier: Apache-2.0
// The draw stages' statistical case families (docs/spec/harness.md "Families", "Tail
// amplifiers"): given probabilities or scores, the tail amplifiers, and the other draw
// stages and profiles on one decaying row each.
// Registered with SAMPCHECK_STAT_FAMILY (harness/stat_cases/stat_cases.h).
#include <cstdint>
#include <limits>
#include <vector>

#include "core/profile.h"
#include "harness/stat_cases/portable_shapes.h"
#include "harness/stat_cases/stat_case_inputs.h"
#include "harness/stat_cases/stat_cases.h"

namespace sampcheck::statistical {
namespace {

// Draw stages given probabilities: the exponential race, inverse CDF and Gumbel-max.
std::vector<StatCase> GivenProbabilityCases() {
  StatCaseList list;
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
  return list.cases;
}

// Tail amplifiers (docs/spec/harness.md "Tail amplifiers"): a group of weak tokens whose share
// a coarse noise floor or a half-precision probability moves, with an exact binomial test (L2)
// on the group's draws.
std::vector<StatCase> TailAmplifierCases() {
  StatCaseList list;
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
  return list.cases;
}

// The other draw stages and profiles, on one decaying row each.
std::vector<StatCase> ProfileDrawCases() {
  StatCaseList list;
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
  return list.cases;
}

}  // namespace

SAMPCHECK_STAT_FAMILY(GivenProbabilities, {.position = 100, .cases = GivenProbabilityCases});
SAMPCHECK_STAT_FAMILY(TailAmplifiers, {.position = 200, .cases = TailAmplifierCases});
SAMPCHECK_STAT_FAMILY(ProfileDraws, {.position = 300, .cases = ProfileDrawCases});

}  // namespace sampcheck::statistical
