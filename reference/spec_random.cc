// SPDX-License-Identifier: Apache-2.0
// spec_random (reference/spec_random.h, docs/spec/speculative.md#spec_random).
#include "reference/spec_random.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "reference/draft_tokens.h"
#include "reference/draw_rows.h"
#include "reference/math/exp.h"
#include "reference/math/log.h"
#include "reference/reductions.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

std::span<const float> At(std::span<const float> rows, std::int64_t i, std::int64_t vocab) {
  return rows.subspan(static_cast<std::size_t>(i * vocab), static_cast<std::size_t>(vocab));
}

// max(t - d, +0): one f32 subtraction; a negative or zero difference becomes +0.0.
float Residual(float t, float d) {
  const float r = t - d;
  return r > 0.0f ? r : 0.0f;
}

}  // namespace

std::int64_t RaceArgmax(std::span<const float> weights, std::span<const float> q) {
  // torch.argmax's order (DrawArgmaxAbove): the first NaN, else the first maximum.
  std::int64_t best = 0;
  float best_value = weights[0] / q[0];
  for (std::size_t j = 1; j < weights.size(); ++j) {
    const float v = weights[j] / q[j];
    if (DrawArgmaxAbove(v, best_value)) best = static_cast<std::int64_t>(j), best_value = v;
  }
  return best;
}

std::int64_t RaceArgmaxReciprocal(std::span<const float> weights, std::span<const float> q) {
  // vLLM's sample_recovered_tokens_kernel: max_val = -inf, recovered_id = 0, a tile replaces
  // the winner only when its maximum is strictly greater, so a NaN score never wins and a row
  // of NaN scores leaves 0.
  std::int64_t best = 0;
  float best_value = -std::numeric_limits<float>::infinity();
  for (std::size_t j = 0; j < weights.size(); ++j) {
    const float v = weights[j] * (1.0f / q[j]);
    if (v > best_value) best = static_cast<std::int64_t>(j), best_value = v;
  }
  return best;
}

std::int64_t FlashinferResidualDraw(std::span<const float> target, std::span<const float> draft, float u) {
  const std::size_t vocab = target.size();
  std::vector<float> r(vocab), cdf(vocab);
  float running = 0.0f;
  for (std::size_t j = 0; j < vocab; ++j) {
    r[j] = draft.empty() ? Residual(target[j], 0.0f) : Residual(target[j], draft[j]);
    running = running + r[j];
    cdf[j] = running;
  }
  const float x = u * running;
  for (std::size_t j = 0; j < vocab; ++j) {
    if (r[j] > 0.0f && x < cdf[j]) return static_cast<std::int64_t>(j);
  }
  return static_cast<std::int64_t>(vocab) - 1;  // the kernel's initial sampled_id = d - 1
}

SpecOutcome SpecRandomVllm(const SpecRequest& r, std::span<const double> u, std::span<const float> q,
                           std::span<const float> bonus_q) {
  SpecOutcome out;
  const auto n = static_cast<std::int64_t>(r.drafts.size());
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t x = r.drafts[static_cast<std::size_t>(i)];
    const auto target = At(r.target_probs, i, r.vocab);
    const float tp = target[static_cast<std::size_t>(x)];
    const float dp = r.draft_probs.empty() ? 1.0f : At(r.draft_probs, i, r.vocab)[static_cast<std::size_t>(x)];
    if (dp > 0.0f && static_cast<double>(tp / dp) >= u[static_cast<std::size_t>(i)]) {
      out.tokens.push_back(x);
      ++out.num_accepted;
      continue;
    }
    std::vector<float> residual(target.begin(), target.end());
    if (r.draft_probs.empty()) {
      residual[static_cast<std::size_t>(x)] = 0.0f;
    } else {
      const auto draft = At(r.draft_probs, i, r.vocab);
      for (std::size_t j = 0; j < residual.size(); ++j) residual[j] = Residual(target[j], draft[j]);
    }
    // vLLM's sample_recovered_tokens passes inv_q = q.reciprocal() and the kernel scores
    // prob * inv_q: two roundings, not prob / q.
    out.tokens.push_back(RaceArgmaxReciprocal(residual, q));
    return out;
  }
  out.tokens.push_back(RaceArgmax(At(r.target_probs, n, r.vocab), bonus_q));
  return out;
}

SpecOutcome SpecRandomFlashinfer(const SpecRequest& r, std::span<const float> u) {
  SpecOutcome out;
  const auto n = static_cast<std::int64_t>(r.drafts.size());
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t x = r.drafts[static_cast<std::size_t>(i)];
    const auto target = At(r.target_probs, i, r.vocab);
    const auto draft = At(r.draft_probs, i, r.vocab);
    const float tp = target[static_cast<std::size_t>(x)], dp = draft[static_cast<std::size_t>(x)];
    if (u[static_cast<std::size_t>(i)] * dp < tp) {
      out.tokens.push_back(x);
      ++out.num_accepted;
      continue;
    }
    // The kernel reads uniform_samples[row][min(pos + 1, k)]: the next position's uniform,
    // never the one the acceptance test used.
    out.tokens.push_back(FlashinferResidualDraw(target, draft, u[static_cast<std::size_t>(std::min(i + 1, n))]));
    return out;
  }
  out.tokens.push_back(FlashinferResidualDraw(At(r.target_probs, n, r.vocab), {}, u[static_cast<std::size_t>(n)]));
  return out;
}

SpecOutcome SpecRandomTypical(const SpecRequest& r, std::span<const float> bonus_q, float posterior_threshold,
                              float posterior_alpha) {
  SpecOutcome out;
  const auto n = static_cast<std::int64_t>(r.drafts.size());
  std::vector<float> terms(static_cast<std::size_t>(r.vocab));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t x = r.drafts[static_cast<std::size_t>(i)];
    const auto target = At(r.target_probs, i, r.vocab);
    // torch: -sum(p * log(p + 1e-5)); exp(-entropy) = exp(sum(p * log(p + 1e-5))).
    for (std::size_t j = 0; j < terms.size(); ++j) terms[j] = target[j] * math::LogF32Cr(target[j] + 1e-5f);
    // torch.minimum propagates NaN (a NaN in the row makes S NaN; so does posterior_alpha 0
    // times exp(+inf)): the threshold is then NaN and no draft passes `>`.
    const float scaled = math::ExpF32Cr(CanonicalSum(terms)) * posterior_alpha;
    const float threshold = std::isnan(scaled) || scaled < posterior_threshold ? scaled : posterior_threshold;
    if (target[static_cast<std::size_t>(x)] > threshold) {
      out.tokens.push_back(x);
      ++out.num_accepted;
      continue;
    }
    out.tokens.push_back(CanonicalArgmax(target));
    return out;
  }
  out.tokens.push_back(RaceArgmax(At(r.target_probs, n, r.vocab), bonus_q));
  return out;
}

namespace {

float TypicalParam(const StageInputs& in, const Case& c, const std::string& name, float fallback) {
  if (!c.params.contains(name)) return fallback;
  const auto& v = c.params[name];
  if (!v.is_number()) in.Fail("parameter " + name + " = " + v.dump() + " must be a number");
  const auto x = static_cast<float>(v.get<double>());  // one round-to-nearest narrowing
  if (!std::isfinite(x) || x < 0.0f) in.Fail("parameter " + name + " = " + FormatFloat(x) + " must be finite and >= 0");
  return x;
}

const Tensor& ExponentialNoise(const StageInputs& in, const std::string& name, std::int64_t rows, std::int64_t vocab) {
  const Tensor& t = in.Required(name, DType::kF32, 2);
  in.ExpectDim(name, t, 0, rows);
  in.ExpectDim(name, t, 1, vocab);
  for (float v : t.data<float>()) {
    if (!std::isfinite(v) || !(v > 0.0f)) in.Fail("'" + name + "' holds " + FormatFloat(v) + "; Exp(1) noise must be finite and > 0");
  }
  return t;
}

std::span<const float> NoiseRow(const Tensor& t, std::int64_t b) {
  const auto v = static_cast<std::size_t>(t.dim(1));
  return t.data<float>().subspan(static_cast<std::size_t>(b) * v, v);
}

}  // namespace

SpecRandomArgs ParseSpecRandom(const Case& c, Profile profile) {
  StageInputs in(c, "spec_random");
  SpecRandomArgs a;
  a.drafts = &in.Required("draft_ids");
  a.rows = a.drafts->dim(0);
  a.width = a.drafts->dim(1);
  const std::int64_t rows = a.rows, width = a.width;
  a.target = PositionProbabilities(c, in, "target_probs", rows, width + 1);
  a.vocab = a.target.dim(2);
  const std::int64_t vocab = a.vocab;
  a.counts = DraftCounts(in, *a.drafts, vocab);
  const bool has_draft = c.inputs.count("draft_probs") != 0;
  if (profile == Profile::kFlashinfer && !has_draft) in.Fail("missing input tensor 'draft_probs' (flashinfer has no n-gram mode)");
  if (has_draft && profile != Profile::kTypicalAcceptance) {
    a.draft = PositionProbabilities(c, in, "draft_probs", rows, width, vocab);
  }
  switch (profile) {
    case Profile::kVllm: {
      a.u_f64 = &in.Required("u", DType::kF64, 2);
      in.ExpectDim("u", *a.u_f64, 0, rows);
      in.ExpectDim("u", *a.u_f64, 1, width);
      const auto values = a.u_f64->data<double>();
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (!(values[i] >= 0.0 && values[i] < 1.0)) in.Fail("'u' entry " + std::to_string(i) + " must be in [0, 1) (f64)");
      }
      a.q = &ExponentialNoise(in, "q", rows, vocab);
      a.bonus_q = &ExponentialNoise(in, "bonus_q", rows, vocab);
      break;
    }
    case Profile::kFlashinfer: {
      a.u_f32 = &in.Required("u", DType::kF32, 2);
      in.ExpectDim("u", *a.u_f32, 0, rows);
      in.ExpectDim("u", *a.u_f32, 1, width + 1);
      for (float v : a.u_f32->data<float>()) {
        if (!(v >= 0.0f && v <= 1.0f)) in.Fail("'u' holds " + FormatFloat(v) + "; flashinfer uniforms must be in [0, 1]");
      }
      break;
    }
    case Profile::kTypicalAcceptance:
      a.bonus_q = &ExponentialNoise(in, "bonus_q", rows, vocab);
      a.posterior_threshold = TypicalParam(in, c, "posterior_threshold", kTypicalPosteriorThreshold);
      a.posterior_alpha = TypicalParam(in, c, "posterior_alpha", kTypicalPosteriorAlpha);
      break;
    default:
      in.Fail("no rule for profile " + std::string(ProfileName(profile)));
  }
  return a;
}

TensorMap RunSpecRandom(const Case& c, Profile profile) {
  const SpecRandomArgs a = ParseSpecRandom(c, profile);
  const std::int64_t rows = a.rows, width = a.width, vocab = a.vocab;
  const Tensor& drafts = *a.drafts;
  const Tensor& target = a.target;
  Tensor emitted(DType::kI64, {rows, width + 1});
  Tensor accepted(DType::kI64, {rows});
  auto out = emitted.data<std::int64_t>();
  std::fill(out.begin(), out.end(), -1);
  const auto plane = static_cast<std::size_t>(vocab);
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto n = static_cast<std::size_t>(a.counts[static_cast<std::size_t>(b)]);
    SpecRequest r;
    r.vocab = vocab;
    r.drafts = Row(drafts, b).first(n);
    r.target_probs = target.data<float>().subspan(static_cast<std::size_t>(b) * (static_cast<std::size_t>(width) + 1) * plane,
                                                  (n + 1) * plane);
    if (const auto draft = a.DraftProbs(); !draft.empty()) {
      r.draft_probs = draft.subspan(static_cast<std::size_t>(b) * static_cast<std::size_t>(width) * plane, n * plane);
    }
    SpecOutcome o;
    switch (profile) {
      case Profile::kVllm:
        o = SpecRandomVllm(r, a.u_f64->data<double>().subspan(static_cast<std::size_t>(b * width), n), NoiseRow(*a.q, b),
                           NoiseRow(*a.bonus_q, b));
        break;
      case Profile::kFlashinfer:
        o = SpecRandomFlashinfer(r, a.u_f32->data<float>().subspan(static_cast<std::size_t>(b * (width + 1)), n + 1));
        break;
      default:
        o = SpecRandomTypical(r, NoiseRow(*a.bonus_q, b), a.posterior_threshold, a.posterior_alpha);
    }
    for (std::size_t i = 0; i < o.tokens.size(); ++i) out[static_cast<std::size_t>(b * (width + 1)) + i] = o.tokens[i];
    accepted.data<std::int64_t>()[static_cast<std::size_t>(b)] = o.num_accepted;
  }
  TensorMap result = Outputs("emitted", std::move(emitted));
  result.emplace("num_accepted", std::move(accepted));
  return result;
}

SAMPCHECK_REFERENCE_STAGE(spec_random, RunSpecRandom);

}  // namespace sampcheck::reference
