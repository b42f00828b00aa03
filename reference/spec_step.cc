// SPDX-License-Identifier: Apache-2.0
// spec_step (reference/spec_step.h, docs/spec/spec_step.md).
#include "reference/spec_step.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "reference/draft_tokens.h"
#include "reference/flashinfer_sampling_from_probs.h"
#include "reference/pipeline.h"
#include "reference/reductions.h"
#include "reference/sampling_filters.h"
#include "reference/softmax.h"
#include "reference/profile_rules.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::vector<double> NormalisedRow(std::span<const float> row) {
  double s = 0.0;
  for (float x : row) s += x;
  std::vector<double> out(row.size(), 0.0);
  if (s > 0.0) {
    for (std::size_t j = 0; j < row.size(); ++j) out[j] = row[j] / s;
  }
  return out;
}

void NanAsZero(std::vector<float>& p) {
  for (float& x : p) {
    if (std::isnan(x)) x = 0.0f;
  }
}

std::span<const float> RowAt(std::span<const float> rows, std::int64_t i, std::int64_t vocab) {
  return rows.subspan(static_cast<std::size_t>(i * vocab), static_cast<std::size_t>(vocab));
}

}  // namespace

SpecOutcome SpecVerifyBlock(const SpecRequest& r, std::span<const double> u, std::span<const float> q,
                            std::span<const float> bonus_q) {
  const auto n = static_cast<std::int64_t>(r.drafts.size());
  std::vector<double> weight(static_cast<std::size_t>(n + 1), 1.0);  // P_0 .. P_n
  for (std::int64_t i = 0; i < n; ++i) {
    const auto x = static_cast<std::size_t>(r.drafts[static_cast<std::size_t>(i)]);
    const double t = NormalisedRow(RowAt(r.target_probs, i, r.vocab))[x];
    const double d = NormalisedRow(RowAt(r.draft_probs, i, r.vocab))[x];
    const double num = weight[static_cast<std::size_t>(i)] * t;
    weight[static_cast<std::size_t>(i + 1)] = d > 0.0 ? std::min(num / d, 1.0) : (num > 0.0 ? 1.0 : 0.0);
  }
  std::int64_t tau = 0;
  for (std::int64_t i = 1; i <= n; ++i) {
    const double p = weight[static_cast<std::size_t>(i)];
    double h = p;
    if (i < n) {
      const std::vector<double> t = NormalisedRow(RowAt(r.target_probs, i, r.vocab));
      const std::vector<double> d = NormalisedRow(RowAt(r.draft_probs, i, r.vocab));
      double mass = 0.0;
      for (std::size_t j = 0; j < t.size(); ++j) mass += std::max(p * t[j] - d[j], 0.0);
      const double denominator = mass + (1.0 - p);
      h = denominator > 0.0 ? mass / denominator : 1.0;
    }
    if (u[static_cast<std::size_t>(i - 1)] <= h) tau = i;
  }
  SpecOutcome out;
  for (std::int64_t i = 0; i < tau; ++i) out.tokens.push_back(r.drafts[static_cast<std::size_t>(i)]);
  out.num_accepted = tau;
  if (tau == n) {
    out.tokens.push_back(RaceArgmax(RowAt(r.target_probs, n, r.vocab), bonus_q));
    return out;
  }
  const double p = weight[static_cast<std::size_t>(tau)];
  const std::vector<double> t = NormalisedRow(RowAt(r.target_probs, tau, r.vocab));
  const std::vector<double> d = NormalisedRow(RowAt(r.draft_probs, tau, r.vocab));
  std::vector<float> residual(t.size());
  for (std::size_t j = 0; j < t.size(); ++j) residual[j] = static_cast<float>(std::max(p * t[j] - d[j], 0.0));
  out.tokens.push_back(RaceArgmax(residual, q));
  return out;
}

namespace {

const Tensor& ExpNoise(const StageInputs& in, const std::string& name, std::int64_t rows, std::int64_t vocab) {
  const Tensor& t = in.Required(name, DType::kF32, 2);
  in.ExpectDim(name, t, 0, rows);
  in.ExpectDim(name, t, 1, vocab);
  for (float v : t.data<float>()) {
    if (!std::isfinite(v) || !(v > 0.0f))
      in.Fail("'" + name + "' holds " + FormatFloat(v) + "; Exp(1) noise must be finite and > 0");
  }
  return t;
}

// sglang: FlashInfer's top_k_renorm_prob then top_p_renorm_prob on a probability row, each
// keeping flashinfer_sampling_from_probs' survivors (strictly greater count below k, strictly
// greater mass below top_p: ties kept together) and dividing by their f32 sum in index order.
void SglangRenorm(std::vector<float>& p, const FilterParams& f) {
  auto renorm = [&](const FlashinferRowParams& params) {
    const std::vector<bool> keep = FlashinferSurvivors(p, params);
    float sum = 0.0f;
    for (std::size_t j = 0; j < p.size(); ++j) {
      if (!keep[j]) p[j] = 0.0f;
      sum += p[j];
    }
    if (sum > 0.0f) {
      for (float& x : p) x = x / sum;
    }
  };
  if (f.top_k > 0 && f.top_k < static_cast<std::int64_t>(p.size())) {
    FlashinferRowParams k;
    k.kernel = FlashinferKernel::kTopK;
    k.top_k = static_cast<std::uint32_t>(f.top_k);
    renorm(k);
  }
  if (f.top_p < 1.0f) {
    FlashinferRowParams t;
    t.kernel = FlashinferKernel::kTopP;
    t.top_p = f.top_p;
    renorm(t);
  }
}

// sglang's final draw (DeviceSamplingFromProb on relu(target - draft)): f32 running sum C
// over the positive entries in index order, t = u * C_last (f32), the first positive i with
// C_i > t, else the last positive one; none positive: V - 1 (the kernel's fallback).
std::int64_t SglangScan(std::span<const float> w, float u) {
  float total = 0.0f;
  for (float x : w) {
    if (x > 0.0f) total += x;
  }
  const float t = u * total;
  float c = 0.0f;
  std::int64_t last = -1;
  for (std::size_t j = 0; j < w.size(); ++j) {
    if (!(w[j] > 0.0f)) continue;
    c += w[j];
    last = static_cast<std::int64_t>(j);
    if (c > t) return last;
  }
  return last >= 0 ? last : static_cast<std::int64_t>(w.size()) - 1;
}

float FloatParam(const StageInputs& in, const Case& c, const char* name) {
  if (!c.params.contains(name)) return 1.0f;
  const auto& v = c.params[name];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0.0) {
    in.Fail(std::string("parameter '") + name + "' must be a finite number >= 0");
  }
  return static_cast<float>(v.get<double>());
}

const Tensor* RowVector(const StageInputs& in, const std::string& name, DType dtype, std::int64_t rows) {
  const Tensor* t = in.Optional(name, dtype, 1);
  if (t != nullptr) in.ExpectDim(name, *t, 0, rows);
  return t;
}

}  // namespace

SpecStepArgs ParseSpecStep(const Case& c, Profile profile) {
  StageInputs in(c, "spec_step");
  if (profile != Profile::kCanonical && profile != Profile::kBlockVerification && profile != Profile::kVllm &&
      profile != Profile::kSglang) {
    in.Fail("no rule for profile " + std::string(ProfileName(profile)));
  }
  SpecStepArgs a;
  static_cast<DraftedTarget&>(a) = ReadDraftedTarget(c, in);
  a.has_draft = c.inputs.count("draft_logits") != 0;
  if (profile == Profile::kBlockVerification && !a.has_draft)
    in.Fail("missing input tensor 'draft_logits' (block verification needs draft probabilities)");
  if (a.has_draft) a.draft = PositionRows(c, in, "draft_logits", a.rows, a.width, a.vocab);
  // vllm, param draft_sample_method (vllm/config/speculative.py @9aaf83ef, default "greedy"):
  // greedy drafts reach the rejection sampler without probabilities (draft_probs None,
  // "treated as one-hot"), as n-gram drafts do; "probabilistic" passes the draft rows.
  a.use_draft = a.has_draft && !VllmDraftsOneHot(in, c, profile);
  // Logits of any value: a NaN, a +inf or a position with no finite logit is a degenerate row
  // with a result per profile (SpecStepPointMassToken), not an input error.
  a.temperature = &in.Required("temperature");
  in.ExpectDim("temperature", *a.temperature, 0, a.rows);
  for (float t : a.temperature->data<float>()) {
    if (!std::isfinite(t) || t < 0.0f) in.Fail("temperature " + FormatFloat(t) + " must be finite and >= 0");
  }
  a.top_k = RowVector(in, "top_k", DType::kI32, a.rows);
  a.top_p = RowVector(in, "top_p", DType::kF32, a.rows);
  a.min_p = RowVector(in, "min_p", DType::kF32, a.rows);
  for (const Tensor* t : {a.top_p, a.min_p}) {
    if (t == nullptr) continue;
    for (float x : t->data<float>()) {
      if (!std::isfinite(x)) in.Fail("top_p and min_p must be finite, got " + FormatFloat(x));
    }
  }
  a.min_tokens = RowVector(in, "min_tokens", DType::kI32, a.rows);
  a.output_len = RowVector(in, "output_len", DType::kI32, a.rows);
  a.stop_ids = in.Optional("stop_ids");
  if (a.stop_ids != nullptr) {
    in.ExpectDim("stop_ids", *a.stop_ids, 0, a.rows);
    in.ExpectIdsOrPadding("stop_ids", *a.stop_ids, a.vocab);
  }
  for (const Tensor* t : {a.min_tokens, a.output_len}) {
    if (t == nullptr) continue;
    for (std::int32_t v : t->data<std::int32_t>()) {
      if (v < 0) in.Fail("min_tokens and output_len must be >= 0, got " + std::to_string(v));
    }
  }
  for (float t : a.temperature->data<float>()) {
    a.any_random = a.any_random || !(static_cast<double>(t) < kCanonicalSamplingEps);
  }
  if (a.any_random) {
    a.u = &in.Required("u");
    in.ExpectDim("u", *a.u, 0, a.rows);
    in.ExpectDim("u", *a.u, 1, a.width);
    for (double v : a.u->data<double>()) {
      if (!(v >= 0.0 && v < 1.0)) in.Fail("'u' entries must be in [0, 1) (f64)");
    }
    if (profile != Profile::kSglang) {
      a.q = &ExpNoise(in, "q", a.rows, a.vocab);
      a.bonus_q = &ExpNoise(in, "bonus_q", a.rows, a.vocab);
    }
  }
  // sglang: one f32 coin per request for the final draw, and the two acceptance thresholds.
  if (profile == Profile::kSglang) {
    a.threshold_single = FloatParam(in, c, "threshold_single");
    a.threshold_acc = std::max(FloatParam(in, c, "threshold_acc"), 1e-9f);
    if (a.any_random) {
      a.final_u = &in.Required("final_u");
      in.ExpectDim("final_u", *a.final_u, 0, a.rows);
      for (float v : a.final_u->data<float>()) {
        if (!(v >= 0.0f && v < 1.0f)) in.Fail("'final_u' entries must be in [0, 1) (f32)");
      }
    }
  }
  return a;
}

bool SpecStepHasPointMass(Profile profile) {
  return profile == Profile::kCanonical || profile == Profile::kBlockVerification;
}

std::int64_t SpecStepPointMassToken(std::span<const float> scaled_row, Profile profile) {
  if (!SpecStepHasPointMass(profile)) return -1;
  return PipelineDegenerateToken(scaled_row, Profile::kCanonical);
}

void SpecStepPositionProbs(Profile profile, std::span<float> scaled_row, bool filter, const FilterParams& params,
                           bool point_mass, std::span<float> probs) {
  const std::int64_t pinned = point_mass ? SpecStepPointMassToken(scaled_row, profile) : -1;
  if (pinned >= 0) {
    std::fill(probs.begin(), probs.end(), 0.0f);
    probs[static_cast<std::size_t>(pinned)] = 1.0f;
    return;
  }
  const Profile filters = profile == Profile::kVllm ? Profile::kVllm : Profile::kCanonical;
  if (filter && !SamplingFiltersDegenerateRow(filters, scaled_row, params)) SamplingFiltersRow(filters, scaled_row, params);
  SoftmaxRow(scaled_row, probs);
}

TensorMap RunSpecStepWith(const Case& c, Profile profile, const SpecStepRules& rules) {
  const SpecStepArgs args = ParseSpecStep(c, profile);
  const std::int64_t rows = args.rows, width = args.width, vocab = args.vocab;
  const Tensor& drafts = *args.drafts;
  const std::vector<std::int64_t>& counts = args.counts;
  const Tensor& target = args.target;
  const bool has_draft = args.has_draft, use_draft = args.use_draft;
  const Tensor& draft = args.draft;
  const Tensor& temperature = *args.temperature;
  const Tensor *top_k = args.top_k, *top_p = args.top_p, *min_p = args.min_p;
  const Tensor *min_tokens = args.min_tokens, *output_len = args.output_len, *stop_ids = args.stop_ids;
  const Tensor *u = args.u, *q = args.q, *bonus_q = args.bonus_q, *final_u = args.final_u;
  const bool sglang = profile == Profile::kSglang;
  const float threshold_single = args.threshold_single, threshold_acc = args.threshold_acc;
  if (rules.capture != nullptr) {
    rules.capture->target = Tensor(DType::kF32, {rows, width + 1, vocab});
    rules.capture->draft = has_draft && (use_draft || sglang) ? Tensor(DType::kF32, {rows, width, vocab}) : Tensor();
  }
  Tensor emitted(DType::kI64, {rows, width + 1});
  Tensor accepted(DType::kI64, {rows});
  Tensor kept(DType::kI64, {rows});
  Tensor finished(DType::kBool, {rows});
  auto out = emitted.data<std::int64_t>();
  std::fill(out.begin(), out.end(), -1);
  const auto v = static_cast<std::size_t>(vocab);
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto at = static_cast<std::size_t>(b);
    const std::int64_t n = counts[at];
    const std::int64_t before = output_len ? output_len->data<std::int32_t>()[at] : 0;
    const std::int64_t minimum = min_tokens ? min_tokens->data<std::int32_t>()[at] : 0;
    const std::span<const std::int32_t> stops = stop_ids ? Row(*stop_ids, b) : std::span<const std::int32_t>{};
    // One position's logits after the min_tokens mask (stop ids -inf while output_len + i < min_tokens).
    // vllm: the bonus token (target position n) is drawn by the ordinary sampler
    // (rejection_sampler.py RejectionSampler.forward: self.sampler(bonus_logits, ...)), whose
    // MinTokensLogitsProcessor.apply masks while the output before the step is short
    // (len(output_token_ids) < min_tokens), not before + n; the verified positions use
    // apply_with_spec_decode's per-position count (before + i), as canonical.
    auto masked = [&](const Tensor& t, std::int64_t positions, std::int64_t i) {
      const auto row =
          t.data<float>().subspan((at * static_cast<std::size_t>(positions) + static_cast<std::size_t>(i)) * v, v);
      std::vector<float> x(row.begin(), row.end());
      const bool vllm_bonus = profile == Profile::kVllm && &t == &target && i == n;
      if ((vllm_bonus ? before : before + i) < minimum) {
        for (std::int32_t s : stops) {
          if (s >= 0) x[static_cast<std::size_t>(s)] = kNegInf;
        }
      }
      return x;
    };
    const float temp = temperature.data<float>()[at];
    const std::span<const std::int32_t> row_drafts = Row(drafts, b).first(static_cast<std::size_t>(n));
    SpecOutcome o;
    if (static_cast<double>(temp) < kCanonicalSamplingEps) {  // greedy row: spec_greedy on the masked logits
      for (std::int64_t i = 0; i <= n; ++i) {
        const std::int64_t a = CanonicalArgmax(masked(target, width + 1, i));
        o.tokens.push_back(a);
        if (i == n || row_drafts[static_cast<std::size_t>(i)] != a) break;
        ++o.num_accepted;
      }
    } else {
      FilterParams f;
      if (top_k) f.top_k = top_k->data<std::int32_t>()[at];
      if (top_p) f.top_p = top_p->data<float>()[at];
      if (min_p) f.min_p = min_p->data<float>()[at];
      // vllm (rejection_sampler.py compute_probs): the verified positions get temperature and
      // vLLM's top-k / top-p, not min-p; the bonus position is the main sampler's draw, every
      // filter included (min-p first: SamplingFiltersRow's vllm order); the draft rows are the
      // drafter's probabilities as given: tempered, unfiltered.
      const bool vllm = profile == Profile::kVllm;
      FilterParams verified = f;
      if (vllm && !rules.vllm_min_p_verified) verified.min_p = 0.0f;
      if (sglang) {
        // eagle_info.py verify: softmax(x / t), top_k_renorm_prob, top_p_renorm_prob (no
        // min-p); draft probabilities all zero (target-only); tree_speculative_sampling_target_only
        // on a chain: accept draft i iff coin <= p_i(x_i) / threshold_acc or p_i(x_i) >=
        // threshold_single (f32); at the first rejection the target row without the draft,
        // else target row n, drawn by SglangScan with final_u.
        // renorm false: the softmax row only (the sglang_unfiltered_acceptance fault).
        auto row_probs = [&](const Tensor& logits, std::int64_t positions, std::int64_t i, bool renorm = true) {
          std::vector<float> x = masked(logits, positions, i);
          for (float& e : x) e = e / temp;
          std::vector<float> p(x.size());
          SoftmaxRow(x, p);
          if (renorm) SglangRenorm(p, f);
          if (rules.nan_target_as_zero) NanAsZero(p);
          return p;
        };
        const auto coins = u->data<double>().subspan(at * static_cast<std::size_t>(width), static_cast<std::size_t>(width));
        float final_coin = final_u->data<float>()[at];
        std::vector<float> p;
        std::int64_t i = 0;
        for (; i < n; ++i) {
          p = row_probs(target, width + 1, i);
          const auto x = static_cast<std::size_t>(row_drafts[static_cast<std::size_t>(i)]);
          const float single = rules.sglang_unfiltered_acceptance ? row_probs(target, width + 1, i, false)[x] : p[x];
          const float coin = static_cast<float>(coins[static_cast<std::size_t>(i)]);
          if (coin <= single / threshold_acc || single >= threshold_single) {
            o.tokens.push_back(row_drafts[static_cast<std::size_t>(i)]);
            ++o.num_accepted;
            continue;
          }
          p[x] = 0.0f;  // relu(target - draft_probs) with draft_probs[x] = target[x]
          if (rules.sglang_reuse_coin) final_coin = coin;
          break;
        }
        if (i == n) p = row_probs(target, width + 1, n);
        if (rules.capture != nullptr) {
          for (std::int64_t j = 0; j <= n; ++j) {
            const auto r = row_probs(target, width + 1, j);
            std::copy(r.begin(), r.end(),
                      rules.capture->target.data<float>().begin() +
                          static_cast<std::ptrdiff_t>((at * static_cast<std::size_t>(width + 1) + static_cast<std::size_t>(j)) * v));
          }
          // Not read by the verifier (target-only): the draft logits under the same softmax
          // and renorms, the law the draw harness draws the drafts from.
          for (std::int64_t j = 0; j < n && has_draft; ++j) {
            const auto r = row_probs(draft, width, j);
            std::copy(r.begin(), r.end(),
                      rules.capture->draft.data<float>().begin() +
                          static_cast<std::ptrdiff_t>((at * static_cast<std::size_t>(width) + static_cast<std::size_t>(j)) * v));
          }
        }
        o.tokens.push_back(SglangScan(p, final_coin));
      } else {
        // Canonical and block verification: a degenerate position row is the point mass of
        // SpecStepPointMassToken; vllm: the filters' degenerate-row rules and a NaN softmax,
        // which spec_random's degenerate rules verify (docs/spec/spec_step.md "Degenerate rows").
        auto probs = [&](std::vector<float> x, bool filter, const FilterParams& params, bool is_target) {
          for (float& e : x) e = e / temp;
          std::vector<float> p(x.size());
          SpecStepPositionProbs(profile, x, filter, params, rules.canonical_point_mass, p);
          if (is_target && rules.nan_target_as_zero) NanAsZero(p);
          return p;
        };
        std::vector<float> target_probs, draft_probs;
        for (std::int64_t i = 0; i <= n; ++i) {
          const auto p = probs(masked(target, width + 1, i), true, i == n ? f : verified, true);
          target_probs.insert(target_probs.end(), p.begin(), p.end());
          if (i < n && use_draft) {
            const auto d = probs(masked(draft, width, i), vllm ? rules.vllm_filter_draft : rules.filter_draft, f, false);
            draft_probs.insert(draft_probs.end(), d.begin(), d.end());
          }
        }
        if (rules.capture != nullptr) {
          std::copy(target_probs.begin(), target_probs.end(),
                    rules.capture->target.data<float>().begin() + static_cast<std::ptrdiff_t>(at * static_cast<std::size_t>(width + 1) * v));
          if (use_draft) {
            std::copy(draft_probs.begin(), draft_probs.end(),
                      rules.capture->draft.data<float>().begin() + static_cast<std::ptrdiff_t>(at * static_cast<std::size_t>(width) * v));
          }
        }
        SpecRequest r;
        r.drafts = row_drafts;
        r.vocab = vocab;
        r.target_probs = target_probs;
        r.draft_probs = draft_probs;
        const auto us = u->data<double>().subspan(at * static_cast<std::size_t>(width), static_cast<std::size_t>(n));
        const auto qs = q->data<float>().subspan(at * v, v), bs = bonus_q->data<float>().subspan(at * v, v);
        o = profile == Profile::kBlockVerification ? SpecVerifyBlock(r, us, qs, bs) : SpecRandomVllm(r, us, qs, bs);
      }
    }
    std::size_t keep = o.tokens.size();
    for (std::size_t i = 0; rules.stop_inside_drafts && i < o.tokens.size(); ++i) {
      const bool stop = std::find(stops.begin(), stops.end(), static_cast<std::int32_t>(o.tokens[i])) != stops.end();
      if (stop && before + static_cast<std::int64_t>(i) >= minimum) {
        keep = i + 1;
        finished.data<std::uint8_t>()[at] = 1;
        break;
      }
    }
    for (std::size_t i = 0; i < keep; ++i) out[at * static_cast<std::size_t>(width + 1) + i] = o.tokens[i];
    accepted.data<std::int64_t>()[at] = o.num_accepted;
    kept.data<std::int64_t>()[at] = static_cast<std::int64_t>(keep);
  }
  TensorMap result = Outputs("emitted", std::move(emitted));
  result.emplace("num_accepted", std::move(accepted));
  result.emplace("num_emitted", std::move(kept));
  result.emplace("finished", std::move(finished));
  return result;
}

bool VllmDraftsOneHot(const StageInputs& in, const Case& c, Profile profile) {
  if (!c.params.contains("draft_sample_method")) return profile == Profile::kVllm;
  if (profile != Profile::kVllm) in.Fail("parameter draft_sample_method is read by the vllm profile only");
  const auto& m = c.params["draft_sample_method"];
  if (!m.is_string() || (m != "greedy" && m != "probabilistic")) {
    in.Fail("parameter draft_sample_method = " + m.dump() + "; valid: \"greedy\", \"probabilistic\"");
  }
  return m == "greedy";
}

TensorMap RunSpecStep(const Case& c, Profile profile) { return RunSpecStepWith(c, profile, SpecStepRules{}); }

SpecStepProbs SpecStepVerifierProbs(const Case& c) {
  // Placeholder noise (u 0, q 1) where the case has none: the probabilities do not read it.
  Case probe = c;
  auto ids = c.inputs.find("draft_ids");
  auto target = c.inputs.find("target_logits");
  if (ids != c.inputs.end() && target != c.inputs.end() && ids->second.rank() == 2 && target->second.rank() == 3) {
    const std::int64_t rows = ids->second.dim(0), width = ids->second.dim(1), vocab = target->second.dim(2);
    probe.inputs.insert({"u", Tensor(DType::kF64, {rows, width})});
    Tensor ones(DType::kF32, {rows, vocab});
    for (float& x : ones.data<float>()) x = 1.0f;
    probe.inputs.insert({"q", ones});
    probe.inputs.insert({"bonus_q", std::move(ones)});
    probe.inputs.insert({"final_u", Tensor(DType::kF32, {rows})});
  }
  SpecStepProbs out;
  SpecStepRules rules;
  rules.capture = &out;
  // Token-wise and block verification compare the same rows; vllm and sglang their own.
  const Profile profile =
      c.profile == Profile::kVllm || c.profile == Profile::kSglang ? c.profile : Profile::kCanonical;
  RunSpecStepWith(probe, profile, rules);
  return out;
}

SAMPCHECK_REFERENCE_STAGE(spec_step, RunSpecStep);

}  // namespace sampcheck::reference
