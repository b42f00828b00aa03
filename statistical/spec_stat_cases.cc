// SPDX-License-Identifier: Apache-2.0
// The spec_random case families (statistical/spec_stat_cases.h, docs/spec/harness.md).
#include "statistical/spec_stat_cases.h"

#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>

#include "statistical/portable_shapes.h"
#include "statistical/spec_draws.h"

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

}  // namespace

std::vector<StatCase> SpecStatCases() {
  std::vector<StatCase> cases;
  auto add = [&](const std::string& family, Case c, double ci, double thorough, double ratio) {
    StatCase s;
    s.id = c.id;
    s.family = family;
    s.input = std::move(c);
    s.mde_tv_ci = ci;
    s.mde_tv_thorough = thorough;
    s.targeted_ratio = ratio;
    cases.push_back(std::move(s));
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

}  // namespace sampcheck::statistical
