// SPDX-License-Identifier: Apache-2.0
// The spec_random case families (harness/stat_cases/spec_stat_cases.h, docs/spec/harness.md).
#include "harness/stat_cases/spec_stat_cases.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>

#include "core/profile.h"
#include "harness/stat_cases/portable_shapes.h"
#include "harness/spec_draws.h"

namespace sampcheck::statistical {
namespace {

using Weights = std::vector<double>;

// One request: K rows of draft weights (empty: n-gram), K + 1 rows of target weights, and the
// draft ids (n of them, then -1 up to K).
struct SpecRow {
  std::vector<Weights> draft;
  std::vector<Weights> target;
  std::vector<std::int32_t> draft_ids;
};

void AppendNormalised(std::vector<float>& out, const Weights& w) {
  const double sum = std::accumulate(w.begin(), w.end(), 0.0);
  for (double x : w) out.push_back(static_cast<float>(x / sum));
}

Case SpecCase(const std::string& id, const std::string& profile, const std::vector<SpecRow>& rows) {
  Case c{id, "spec_random", ParseProfile(profile), nlohmann::json::object(), {}};
  const auto b = static_cast<std::int64_t>(rows.size());
  const auto k = static_cast<std::int64_t>(rows.front().draft_ids.size());
  const auto v = static_cast<std::int64_t>(rows.front().target.front().size());
  std::vector<float> target, draft;
  std::vector<std::int32_t> ids;
  for (const auto& r : rows) {
    for (const auto& w : r.target) AppendNormalised(target, w);
    for (const auto& w : r.draft) AppendNormalised(draft, w);
    ids.insert(ids.end(), r.draft_ids.begin(), r.draft_ids.end());
  }
  c.inputs.emplace("draft_ids", Tensor::FromValues(DType::kI32, {b, k}, ids));
  c.inputs.emplace("target_probs", Tensor::FromValues(DType::kF32, {b, k + 1, v}, target));
  if (!draft.empty()) c.inputs.emplace("draft_probs", Tensor::FromValues(DType::kF32, {b, k, v}, draft));
  return c;
}

Weights Decaying(int v, double rate, double phase) {
  Weights w(static_cast<std::size_t>(v));
  for (int i = 0; i < v; ++i) w[static_cast<std::size_t>(i)] = PortableExp(-rate * i) * (1.2 + TriangleWave(phase * i));
  return w;
}

// spec_step: one request per row with its logits (target [K + 1, V], draft [K, V]) and
// request parameters.
struct StepRow {
  std::vector<std::vector<float>> target, draft;
  std::vector<std::int32_t> draft_ids;
  float temperature = 1.0f;
  std::int32_t top_k = 0;
  float top_p = 1.0f;
  float min_p = 0.0f;  // the input is present only when a row sets it
  std::int32_t stop_id = -1, min_tokens = 0;
};

Case StepCase(const std::string& id, Profile profile, const std::vector<StepRow>& rows) {
  Case c;
  c.id = id;
  c.stage = "spec_step";
  c.profile = profile;
  const auto b = static_cast<std::int64_t>(rows.size());
  const auto k = static_cast<std::int64_t>(rows.front().draft_ids.size());
  const auto v = static_cast<std::int64_t>(rows.front().target.front().size());
  std::vector<float> target, draft, temperature, top_p, min_p;
  std::vector<std::int32_t> ids, top_k, stops, min_tokens;
  for (const auto& r : rows) {
    for (const auto& x : r.target) target.insert(target.end(), x.begin(), x.end());
    for (const auto& x : r.draft) draft.insert(draft.end(), x.begin(), x.end());
    ids.insert(ids.end(), r.draft_ids.begin(), r.draft_ids.end());
    temperature.push_back(r.temperature);
    top_k.push_back(r.top_k);
    top_p.push_back(r.top_p);
    min_p.push_back(r.min_p);
    stops.push_back(r.stop_id);
    min_tokens.push_back(r.min_tokens);
  }
  c.inputs.emplace("draft_ids", Tensor::FromValues(DType::kI32, {b, k}, ids));
  c.inputs.emplace("target_logits", Tensor::FromValues(DType::kF32, {b, k + 1, v}, target));
  c.inputs.emplace("draft_logits", Tensor::FromValues(DType::kF32, {b, k, v}, draft));
  c.inputs.emplace("temperature", Tensor::FromValues(DType::kF32, {b}, temperature));
  c.inputs.emplace("top_k", Tensor::FromValues(DType::kI32, {b}, top_k));
  c.inputs.emplace("top_p", Tensor::FromValues(DType::kF32, {b}, top_p));
  if (std::any_of(min_p.begin(), min_p.end(), [](float x) { return x != 0.0f; })) {
    c.inputs.emplace("min_p", Tensor::FromValues(DType::kF32, {b}, min_p));
  }
  c.inputs.emplace("stop_ids", Tensor::FromValues(DType::kI32, {b, 1}, stops));
  c.inputs.emplace("min_tokens", Tensor::FromValues(DType::kI32, {b}, min_tokens));
  // vllm verifies against the draft rows only with probabilistic drafts (its default, greedy
  // drafts, passes none: docs/spec/spec_step.md); these families draw the drafts from the rows.
  if (profile == Profile::kVllm) c.params["draft_sample_method"] = "probabilistic";
  return c;
}

std::vector<StatCase> RecoveredTokenCases() {
  StatCaseList list;
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
  return list.cases;
}

}  // namespace

std::vector<StatCase> SpecStatCases() {
  std::vector<StatCase> cases;
  auto add = [&](const std::string& family, Case c, double ci, double thorough, double ratio) {
    cases.push_back(NewStatCase(family, std::move(c), ci, thorough, ratio));
  };
  for (const std::string profile : {"vllm", "flashinfer"}) {
    const std::string at = "/" + profile;
    {
      SpecRow r;
      r.target = {{0.4, 0.3, 0.2, 0.1}, {0.25, 0.25, 0.25, 0.25}, {0.1, 0.2, 0.3, 0.4}};
      r.draft = {{0.1, 0.2, 0.3, 0.4}, {0.7, 0.1, 0.1, 0.1}};
      r.draft_ids = {0, 0};
      add("speculative: V = 4, K = 2, TV(p_0, q_0) = 0.4 (recovered tokens carry 40% of the mass)",
          SpecCase("stats/spec_random/small_v4" + at, profile, {r}), 0.05, 0.01, 0.0);
    }
    {
      SpecRow r;
      r.target = {{0.3, 0.2, 0.15, 0.1, 0.1, 0.1, 0.05, 0.0}, {1, 2, 3, 4, 5, 6, 7, 8}};
      r.draft = {{0.0, 0.3, 0.0, 0.2, 0.0, 0.2, 0.1, 0.2}};
      r.draft_ids = {1};
      add("speculative: V = 8, draft probability 0 on four target tokens, draft mass on a token of target probability 0",
          SpecCase("stats/spec_random/draft_zero_v8" + at, profile, {r}), 0.05, 0.01, 0.0);
    }
    {
      SpecRow r0, r1;
      for (int i = 0; i < 4; ++i) r0.target.push_back(Decaying(100, 0.03 + 0.01 * i, 0.3 + 0.1 * i));
      for (int i = 0; i < 3; ++i) r0.draft.push_back(Decaying(100, 0.05, 0.9 - 0.2 * i));
      r0.draft_ids = {0, 0, 0};
      r1.target = r0.target;
      r1.target[0] = Decaying(100, 0.01, 1.7);
      r1.draft = r0.draft;
      r1.draft[0] = Decaying(100, 0.08, 0.2);
      r1.draft_ids = {0, -1, -1};
      add("speculative: V = 100, two rows with n = 3 and n = 1 of K = 3",
          SpecCase("stats/spec_random/v100" + at, profile, {r0, r1}), 0.05, 0.01, kNoTargetedTest);
    }
    {
      SpecRow r;
      r.target = {Decaying(1023, 0.004, 0.05), Decaying(1023, 0.002, 0.11), Decaying(1023, 0.001, 0.07)};
      r.draft = {Weights(1023, 1.0), Decaying(1023, 0.003, 0.2)};
      r.draft_ids = {0, 0};
      add("speculative: V = 1023 (not a multiple of any tile width), flat draft against a decaying target",
          SpecCase("stats/spec_random/v1023" + at, profile, {r}), 0.05, 0.01, kNoTargetedTest);
    }
  }
  {
    SpecRow r0, r1;
    r0.target = {{0.05, 0.1, 0.15, 0.2, 0.2, 0.15, 0.1, 0.05}, {1, 1, 1, 1, 1, 1, 1, 1}, {8, 7, 6, 5, 4, 3, 2, 1}};
    r0.draft_ids = {3, 5};
    r1.target = {{0.0, 0.5, 0.0, 0.125, 0.125, 0.125, 0.0625, 0.0625}, {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1}};
    r1.draft_ids = {0, -1};  // a draft of target probability 0: always rejected
    add("speculative n-gram drafts (no draft probabilities, vllm), V = 8, n = 2 and n = 1",
        SpecCase("stats/spec_random/ngram_v8/vllm", "vllm", {r0, r1}), 0.05, 0.01, 0.0);
  }
  // The acceptance of draft 0 against Binomial(n, 1 - TV(p_0, q_0)) (n-gram: p_0(x_0)), two
  // categories; the L2 alternative moves the rarer outcome's share by a factor 0.8.
  const std::vector<StatCase> first_token = cases;
  for (const auto& s : first_token) {
    if (s.id.find("/v100/") != std::string::npos) continue;  // its rows repeat small_v4's shapes
    StatCase a = s;
    const auto at = a.id.rfind('/');
    a.id = a.input.id = a.id.substr(0, at) + "_accept" + a.id.substr(at);
    a.family = "acceptance of draft 0: " + s.family;
    a.input.params[kSpecCountParam] = "accepted_0";
    a.targeted_ratio = 0.8;
    cases.push_back(std::move(a));
  }
  return cases;
}

std::vector<StatCase> SpecStepStatCases() {
  std::vector<StatCase> cases;
  auto add = [&](const std::string& family, Case c, double ci, double thorough, double ratio) {
    cases.push_back(NewStatCase(family, std::move(c), ci, thorough, ratio));
  };
  // spec_step (docs/spec/spec_step.md "Draw harness"): the request's filters on both rows.
  // Row 0: top-k 4 keeps target tokens 0..3 and draft tokens 2..5 (draft mass kept 0.638), so
  // a verifier comparing against the unfiltered draft accepts tokens 2 and 3 too often: the
  // first token then moves by TV 0.127 from p_0 (exact, by the token-wise law). Row 1: top-p
  // 0.9 (cumulative sums 0.839 / 0.928 on the target, 0.892 / 0.959 on the draft: far from
  // 0.9 at 2^-16) and min_tokens 1 on stop id 0, the largest logit, masked at position 0 on
  // both rows; one draft of K = 2.
  // Under vllm the drafts come from the tempered, unfiltered draft rows (its verifier's own),
  // under sglang from the draft rows under SGLang's softmax and renorms (its verifier reads no
  // draft row); the first token follows target row 0 as each profile filters it.
  for (Profile profile : {Profile::kCanonical, Profile::kBlockVerification, Profile::kVllm, Profile::kSglang}) {
    const std::string at = "/" + std::string(ProfileName(profile));
    StepRow r0, r1;
    const std::vector<float> t0 = {2.0f, 1.5f, 1.0f, 0.5f, 0.0f, -0.5f, -1.0f, -1.5f};
    const std::vector<float> d0 = {0.0f, 0.2f, 0.4f, 0.6f, 0.8f, 1.0f, 0.3f, 0.1f};
    r0.target = {t0, d0, t0};
    r0.draft = {d0, t0};
    r0.draft_ids = {0, 0};
    r0.top_k = 4;
    const std::vector<float> t1 = {3.0f, 1.0f, 0.8f, 0.6f, 0.4f, 0.2f, 0.0f, -0.2f};
    const std::vector<float> d1 = {2.0f, 0.0f, 0.5f, 1.0f, 0.5f, 0.0f, -0.5f, -1.0f};
    r1.target = {t1, t1, t1};
    r1.draft = {d1, d1};
    r1.draft_ids = {0, -1};
    r1.top_p = 0.9f;
    r1.stop_id = 0;
    r1.min_tokens = 1;
    add("speculative step: target and draft logits under the request's top-k / top-p and min_tokens, V = 8, K = 2",
        StepCase("stats/spec_step/filtered_v8" + at, profile, {r0, r1}), 0.05, 0.01, 0.0);
  }
  // The acceptance of draft 0, as for spec_random: Bernoulli(1 - TV) token-wise (canonical,
  // vllm), Bernoulli(sum_x q(x) p(x)) under sglang's target-only verification; block
  // verification accepts draft 0 with a probability that depends on the later positions.
  const std::vector<StatCase> first_token = cases;
  for (const auto& s : first_token) {
    const Profile profile = s.input.profile;
    if (profile == Profile::kBlockVerification) continue;
    StatCase a = s;
    a.id = a.input.id = "stats/spec_step/filtered_v8_accept/" + std::string(ProfileName(profile));
    a.family = "acceptance of draft 0: " + a.family;
    a.input.params[kSpecCountParam] = "accepted_0";
    a.targeted_ratio = 0.8;
    cases.push_back(std::move(a));
  }
  // vllm's min-p (docs/spec/spec_step.md "Profile vllm"): not applied at the verified
  // positions, applied to the bonus. Row 0 (one draft): target logits 2 - j / 2, min_p 0.3
  // would keep tokens 0..2 (logit >= 2 + ln 0.3 = 0.796) and drop mass 0.209, but the first
  // token follows the row without min-p. Row 1 (no draft): the bonus, drawn by the main
  // sampler with min-p 0.2: tokens 1 and 3 (logit >= 3 + ln 0.2 = 1.391).
  {
    StepRow r0, r1;
    const std::vector<float> t0 = {2.0f, 1.5f, 1.0f, 0.5f, 0.0f, -0.5f, -1.0f, -1.5f};
    const std::vector<float> d0 = {0.0f, 0.2f, 0.4f, 0.6f, 0.8f, 1.0f, 0.3f, 0.1f};
    r0.target = {t0, t0};
    r0.draft = {d0};
    r0.draft_ids = {0};
    r0.min_p = 0.3f;
    const std::vector<float> t1 = {1.0f, 3.0f, 0.5f, 2.0f, 0.0f, -0.5f, -1.0f, -1.5f};
    r1.target = {t1, t1};
    r1.draft = {d0};
    r1.draft_ids = {-1};
    r1.min_p = 0.2f;
    add("speculative step, vLLM: min-p only at the bonus position (one draft, and no draft), V = 8, K = 1",
        StepCase("stats/spec_step/min_p_v8/vllm", Profile::kVllm, {r0, r1}), 0.05, 0.01, 0.0);
  }
  // sglang's target-only verification (docs/spec/spec_step.md "Draw harness"): rows where its
  // two planted faults move the first token by TV >= 0.07. Row 0: top-k 3 keeps target tokens
  // {1, 0, 2} (renormalised about {0.547, 0.332, 0.122}), the draft proposes token 1 with
  // probability 0.832; a rejection of token 1 leaves the residual {0.332, 0, 0.122}, whose
  // inverse CDF a reused coin (in (0.547, 1)) reads only above 0.248 of its mass. Row 1: stop
  // id 0 (the largest logit) masked at position 0 by min_tokens 1, top-p 0.8 keeps {2, 1, 3}
  // (masses above 0, 0.530, 0.725; token 4 has 0.843: far from 0.8), the draft keeps only
  // token 2 (mass 0.83 above every other): a point mass on target probability 0.629. n = 2 and
  // n = 1 of K = 2.
  {
    StepRow r0, r1;
    const std::vector<float> t0 = {1.5f, 2.0f, 0.5f, 0.0f, -0.5f, -1.0f, -1.5f, -2.0f};
    const std::vector<float> d0 = {0.3f, 3.0f, 1.0f, 0.0f, -0.2f, -0.4f, -0.6f, -0.8f};
    r0.target = {t0, t0, t0};
    r0.draft = {d0, d0};
    r0.draft_ids = {0, 0};
    r0.top_k = 3;
    const std::vector<float> t1 = {3.0f, 1.0f, 2.0f, 0.5f, 0.0f, -0.5f, -1.0f, -1.5f};
    const std::vector<float> d1 = {2.5f, 0.5f, 3.0f, 0.0f, -1.0f, -1.0f, -1.0f, -1.0f};
    r1.target = {t1, t1, t1};
    r1.draft = {d1, d1};
    r1.draft_ids = {0, -1};
    r1.top_p = 0.8f;
    r1.stop_id = 0;
    r1.min_tokens = 1;
    add("speculative step, SGLang target-only verification: drafts concentrated on a token of target probability 0.55 / 0.63 after top-k / top-p renorm, V = 8, K = 2",
        StepCase("stats/spec_step/target_only_v8/sglang", Profile::kSglang, {r0, r1}), 0.05, 0.01, 0.0);
  }
  return cases;
}

SAMPCHECK_STAT_FAMILY(SpecRandomRecoveredToken, {.position = 500, .cases = RecoveredTokenCases});
SAMPCHECK_STAT_FAMILY(SpecRandom, {.position = 700, .cases = SpecStatCases});
SAMPCHECK_STAT_FAMILY(SpecStep, {.position = 800, .cases = SpecStepStatCases});

}  // namespace sampcheck::statistical
