// SPDX-License-Identifier: Apache-2.0
// Stage glue of the draw, seeded-draw and speculative kernels (gpu/backend/draws_glue.h): the inputs
// of gumbel_max, exponential_race, inverse_cdf, qsample and the seeded draws come from the
// reference's parse functions (reference/<stem>.h); spec_greedy, spec_random, finish_rules and
// tp_consensus are checked here as their reference files check them; then one launch computes
// every output.
#include "gpu/backend/draws_glue.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "reference/ascend_top_k_top_p_sample_v2.h"
#include "reference/draft_tokens.h"
#include "reference/exponential_race.h"
#include "reference/gumbel_max.h"
#include "reference/inverse_cdf.h"
#include "reference/qsample.h"
#include "reference/seeded_gumbel.h"
#include "reference/spec_random.h"
#include "reference/stage_io.h"

namespace sampcheck::gpu {

namespace {

using reference::FormatFloat;
using reference::Outputs;
using reference::StageInputs;

// Inputs from reference/gumbel_max.h's ParseGumbelMax.
TensorMap RunGumbelMax(const Case& c, Profile profile, KernelRunner& runner) {
  const reference::GumbelMaxArgs a = reference::ParseGumbelMax(c, profile);
  const std::int64_t rows = a.scores.dim(0), vocab = a.scores.dim(1);
  Tensor token(DType::kI64, {rows});
  runner.Run(GumbelMaxLaunch(a.scores.data<float>().data(), a.gumbel.data<float>().data(), rows, vocab, vocab,
                             token.data<std::int64_t>().data()));
  return Outputs("token", std::move(token));
}

// Inputs and the profile's rule from reference/exponential_race.h's ParseExponentialRace.
TensorMap RunExponentialRace(const Case& c, Profile profile, KernelRunner& runner) {
  const reference::ExponentialRaceArgs a = reference::ParseExponentialRace(c, profile);
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  Tensor token(DType::kI64, {rows});
  runner.Run(ExponentialRaceLaunch(a.probs.data<float>().data(), a.q.data<float>().data(), rows, vocab, vocab,
                                   a.all_tokens, token.data<std::int64_t>().data()));
  return Outputs("token", std::move(token));
}

// Inputs from reference/inverse_cdf.h's ParseInverseCdf.
TensorMap RunInverseCdf(const Case& c, Profile profile, KernelRunner& runner) {
  const reference::InverseCdfArgs a = reference::ParseInverseCdf(c, profile);
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  Tensor token(DType::kI64, {rows});
  runner.Run(InverseCdfLaunch(a.probs.data<float>().data(), a.u->data<float>().data(), rows, vocab, vocab,
                              token.data<std::int64_t>().data()));
  return Outputs("token", std::move(token));
}

// Inputs from reference/qsample.h's ParseQSample.
TensorMap RunQSample(const Case& c, Profile profile, KernelRunner& runner) {
  const reference::QSampleArgs a = reference::ParseQSample(c, profile);
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  Tensor token(DType::kI64, {rows});
  runner.Run(QSampleLaunch(a.probs.data<float>().data(), a.q.data<float>().data(), a.eps, rows, vocab, vocab,
                           token.data<std::int64_t>().data()));
  return Outputs("token", std::move(token));
}

// Inputs from reference/seeded_gumbel.h's ParseSeededGumbel.
TensorMap RunSeededGumbel(const Case& c, bool token_id_columns, KernelRunner& runner) {
  const reference::SeededGumbelArgs a = reference::ParseSeededGumbel(c, token_id_columns);
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  Tensor token(DType::kI64, {rows});
  runner.Run(SeededGumbelLaunch(a.probs.data<float>().data(), a.seed->data<std::int64_t>().data(),
                                a.positions->data<std::int64_t>().data(),
                                a.token_ids != nullptr ? a.token_ids->data<std::int32_t>().data() : nullptr, rows,
                                vocab, vocab, token.data<std::int64_t>().data()));
  return Outputs("token", std::move(token));
}

TensorMap SpecOutputs(Tensor emitted, Tensor accepted) {
  TensorMap result = Outputs("emitted", std::move(emitted));
  result.emplace("num_accepted", std::move(accepted));
  return result;
}

// reference/spec_greedy.cc.
TensorMap RunSpecGreedy(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  StageInputs in(c, "spec_greedy");
  const Tensor& drafts = in.Required("draft_ids", DType::kI32, 2);
  const std::int64_t rows = drafts.dim(0), width = drafts.dim(1);
  const Tensor target = reference::PositionRows(c, in, "target_logits", rows, width + 1);
  const std::int64_t vocab = target.dim(2);
  const std::vector<std::int64_t> counts = reference::DraftCounts(in, drafts, vocab);
  Tensor emitted(DType::kI64, {rows, width + 1});
  Tensor accepted(DType::kI64, {rows});
  runner.Run(SpecGreedyLaunch(target.data<float>().data(), drafts.data<std::int32_t>().data(), counts.data(),
                              {rows, width, vocab}, emitted.data<std::int64_t>().data(),
                              accepted.data<std::int64_t>().data()));
  return SpecOutputs(std::move(emitted), std::move(accepted));
}

// reference/spec_random.cc's TypicalParam: a number rounded once to f32, finite and >= 0.
float TypicalParam(const StageInputs& in, const Case& c, const std::string& name, float fallback) {
  if (!c.params.contains(name)) return fallback;
  const auto& v = c.params[name];
  if (!v.is_number()) in.Fail("parameter " + name + " = " + v.dump() + " must be a number");
  const auto x = static_cast<float>(v.get<double>());
  if (!std::isfinite(x) || x < 0.0f) in.Fail("parameter " + name + " = " + FormatFloat(x) + " must be finite and >= 0");
  return x;
}

// reference/spec_random.cc's ExponentialNoise: f32 [rows, vocab], finite and > 0.
const Tensor& ExponentialNoise(const StageInputs& in, const std::string& name, std::int64_t rows, std::int64_t vocab) {
  const Tensor& t = in.Required(name, DType::kF32, 2);
  in.ExpectDim(name, t, 0, rows);
  in.ExpectDim(name, t, 1, vocab);
  for (float v : t.data<float>()) {
    if (!std::isfinite(v) || !(v > 0.0f)) {
      in.Fail("'" + name + "' holds " + FormatFloat(v) + "; Exp(1) noise must be finite and > 0");
    }
  }
  return t;
}

// reference/spec_random.cc, checks in its order.
TensorMap RunSpecRandom(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "spec_random");
  const Tensor& drafts = in.Required("draft_ids", DType::kI32, 2);
  const std::int64_t rows = drafts.dim(0), width = drafts.dim(1);
  const Tensor target = reference::PositionProbabilities(c, in, "target_probs", rows, width + 1);
  const std::int64_t vocab = target.dim(2);
  const std::vector<std::int64_t> counts = reference::DraftCounts(in, drafts, vocab);
  Tensor draft;
  const bool has_draft = c.inputs.count("draft_probs") != 0;
  if (profile == Profile::kFlashinfer && !has_draft)
    in.Fail("missing input tensor 'draft_probs' (flashinfer has no n-gram mode)");
  if (has_draft && profile != Profile::kTypicalAcceptance) {
    draft = reference::PositionProbabilities(c, in, "draft_probs", rows, width, vocab);
  }
  KernelRunner::SpecRandomInputs k;
  k.target_probs = target.data<float>().data();
  k.draft_probs = draft.numel() > 0 && draft.rank() == 3 ? draft.data<float>().data() : nullptr;
  k.drafts = drafts.data<std::int32_t>().data();
  k.counts = counts.data();
  switch (profile) {
    case Profile::kVllm: {
      const Tensor& u = in.Required("u", DType::kF64, 2);
      in.ExpectDim("u", u, 0, rows);
      in.ExpectDim("u", u, 1, width);
      const auto values = u.data<double>();
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (!(values[i] >= 0.0 && values[i] < 1.0))
          in.Fail("'u' entry " + std::to_string(i) + " must be in [0, 1) (f64)");
      }
      k.rule = KernelRunner::SpecRandomInputs::Rule::kVllm;
      k.u_f64 = values.data();
      k.q = ExponentialNoise(in, "q", rows, vocab).data<float>().data();
      k.bonus_q = ExponentialNoise(in, "bonus_q", rows, vocab).data<float>().data();
      break;
    }
    case Profile::kFlashinfer: {
      const Tensor& u = in.Required("u", DType::kF32, 2);
      in.ExpectDim("u", u, 0, rows);
      in.ExpectDim("u", u, 1, width + 1);
      for (float v : u.data<float>()) {
        if (!(v >= 0.0f && v <= 1.0f))
          in.Fail("'u' holds " + FormatFloat(v) + "; flashinfer uniforms must be in [0, 1]");
      }
      k.rule = KernelRunner::SpecRandomInputs::Rule::kFlashinfer;
      k.u_f32 = u.data<float>().data();
      break;
    }
    case Profile::kTypicalAcceptance:
      k.rule = KernelRunner::SpecRandomInputs::Rule::kTypicalAcceptance;
      k.bonus_q = ExponentialNoise(in, "bonus_q", rows, vocab).data<float>().data();
      k.posterior_threshold = TypicalParam(in, c, "posterior_threshold", reference::kTypicalPosteriorThreshold);
      k.posterior_alpha = TypicalParam(in, c, "posterior_alpha", reference::kTypicalPosteriorAlpha);
      break;
    default:
      in.Fail("no rule for profile " + std::string(ProfileName(profile)));
  }
  Tensor emitted(DType::kI64, {rows, width + 1});
  Tensor accepted(DType::kI64, {rows});
  runner.Run(SpecRandomLaunch(k, {rows, width, vocab}, emitted.data<std::int64_t>().data(),
                              accepted.data<std::int64_t>().data()));
  return SpecOutputs(std::move(emitted), std::move(accepted));
}

// reference/finish_rules.cc's local check: ids are >= 0, -1 is padding.
void ExpectIdsOrPadding(const StageInputs& in, const std::string& name, const Tensor& ids) {
  auto d = ids.data<std::int32_t>();
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] < -1) {
      in.Fail("'" + name + "' entry " + std::to_string(i) + " is " + std::to_string(d[i]) +
              "; ids are >= 0, -1 is padding");
    }
  }
}

// reference/finish_rules.cc, checks in its order (its per-row checks all precede any output, so
// checking every row first reports the same first failure).
TensorMap RunFinishRules(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "finish_rules");
  const Tensor& token = in.Required("token", DType::kI64, 1);
  const std::int64_t rows = token.dim(0);
  const Tensor& out_len = in.Required("output_len", DType::kI32, 1);
  const Tensor& max_tok = in.Required("max_tokens", DType::kI32, 1);
  const Tensor& min_tok = in.Required("min_tokens", DType::kI32, 1);
  const Tensor& ignore = in.Required("ignore_eos", DType::kBool, 1);
  const Tensor& eos = in.Required("eos_ids", DType::kI32, 2);
  const Tensor& stop = in.Required("stop_ids", DType::kI32, 2);
  const Tensor* keep = in.Optional("keep_stop", DType::kBool, 1);
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"output_len", &out_len},
                                {"max_tokens", &max_tok},
                                {"min_tokens", &min_tok},
                                {"ignore_eos", &ignore},
                                {"eos_ids", &eos},
                                {"stop_ids", &stop},
                                {"keep_stop", keep}}) {
    if (t) in.ExpectDim(name, *t, 0, rows);
  }
  ExpectIdsOrPadding(in, "eos_ids", eos);
  ExpectIdsOrPadding(in, "stop_ids", stop);
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const std::int64_t tok = token.data<std::int64_t>()[i];
    const std::int32_t len = out_len.data<std::int32_t>()[i], max = max_tok.data<std::int32_t>()[i],
                       min = min_tok.data<std::int32_t>()[i];
    const std::string row = "row " + std::to_string(b) + ": ";
    if (tok < 0) in.Fail(row + "token " + std::to_string(tok) + " must be >= 0");
    if (len < 1) in.Fail(row + "output_len " + std::to_string(len) + " must be >= 1 (it counts this step's token)");
    if (max < 1) in.Fail(row + "max_tokens " + std::to_string(max) + " must be >= 1");
    if (min < 0 || min > max) {
      in.Fail(row + "min_tokens " + std::to_string(min) + " must be in [0, max_tokens = " + std::to_string(max) + "]");
    }
  }
  const std::int64_t width = eos.dim(1) + stop.dim(1);
  KernelRunner::FinishRulesInputs k;
  k.token = token.data<std::int64_t>().data();
  k.output_len = out_len.data<std::int32_t>().data();
  k.max_tokens = max_tok.data<std::int32_t>().data();
  k.min_tokens = min_tok.data<std::int32_t>().data();
  k.ignore_eos = ignore.data<std::uint8_t>().data();
  k.keep_stop = keep != nullptr ? keep->data<std::uint8_t>().data() : nullptr;
  k.eos_ids = eos.data<std::int32_t>().data();
  k.n_eos = eos.dim(1);
  k.stop_ids = stop.data<std::int32_t>().data();
  k.n_stop = stop.dim(1);
  k.sglang = profile == Profile::kSglang;
  k.eos_stop_reason_none = profile == Profile::kVllm;  // vLLM leaves stop_reason None for EOS
  Tensor reason(DType::kI32, {rows});
  Tensor stop_reason(DType::kI64, {rows});
  Tensor text_keep(DType::kBool, {rows});
  Tensor banned(DType::kI32, {rows, width});
  runner.Run(FinishRulesLaunch(k, rows, reason.data<std::int32_t>().data(), stop_reason.data<std::int64_t>().data(),
                               text_keep.data<std::uint8_t>().data(), banned.data<std::int32_t>().data()));
  TensorMap out = Outputs("finish_reason", std::move(reason));
  out.emplace("stop_reason", std::move(stop_reason));
  out.emplace("text_keep", std::move(text_keep));
  out.emplace("next_banned", std::move(banned));
  return out;
}

// reference/tp_consensus.cc, checks in its order; i32 ids widened exactly to i64 as it reads them.
TensorMap RunTpConsensus(const Case& c, Profile profile, KernelRunner& runner) {
  StageInputs in(c, "tp_consensus");
  const auto found = c.inputs.find("rank_ids");
  if (found != c.inputs.end() && found->second.dtype() != DType::kI32 && found->second.dtype() != DType::kI64) {
    in.Fail("'rank_ids' must be i32 or i64, got " + std::string(DTypeName(found->second.dtype())));
  }
  const bool is_i32 = found != c.inputs.end() && found->second.dtype() == DType::kI32;
  const Tensor& t = in.Required("rank_ids", is_i32 ? DType::kI32 : DType::kI64, 2);
  const std::int64_t ranks = t.dim(0), batch = t.dim(1);
  if (ranks < 1) in.Fail("rank_ids must have R >= 1 ranks (dim 0), got " + std::to_string(ranks));
  std::vector<std::int64_t> ids;
  ids.reserve(static_cast<std::size_t>(t.numel()));
  if (is_i32) {
    for (std::int32_t x : t.data<std::int32_t>()) ids.push_back(x);
  } else {
    for (std::int64_t x : t.data<std::int64_t>()) ids.push_back(x);
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0) {
      const auto r = static_cast<std::int64_t>(i) / batch, b = static_cast<std::int64_t>(i) % batch;
      in.Fail("rank_ids[" + std::to_string(r) + ", " + std::to_string(b) + "] = " + std::to_string(ids[i]) +
              ": a sampled id must be >= 0");
    }
  }
  Tensor token(DType::kI64, {batch});
  Tensor unanimous(DType::kBool, {batch});
  runner.Run(TpConsensusLaunch(ids.data(), ranks, batch, profile == Profile::kVllm, token.data<std::int64_t>().data(),
                               unanimous.data<std::uint8_t>().data()));
  TensorMap result = Outputs("token", std::move(token));
  result.emplace("unanimous", std::move(unanimous));
  return result;
}

}  // namespace

TensorMap GpuGumbelMax(const Case& c, Profile profile, KernelRunner& runner) {
  return RunGumbelMax(c, profile, runner);
}
TensorMap GpuExponentialRace(const Case& c, Profile profile, KernelRunner& runner) {
  return RunExponentialRace(c, profile, runner);
}
TensorMap GpuInverseCdf(const Case& c, Profile profile, KernelRunner& runner) {
  return RunInverseCdf(c, profile, runner);
}
TensorMap GpuQSample(const Case& c, Profile profile, KernelRunner& runner) { return RunQSample(c, profile, runner); }
TensorMap GpuMultinomialWithSeed(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  return RunSeededGumbel(c, false, runner);
}
TensorMap GpuMultinomialWithSeedTokenIds(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  return RunSeededGumbel(c, true, runner);
}
TensorMap GpuSpecGreedy(const Case& c, Profile profile, KernelRunner& runner) {
  return RunSpecGreedy(c, profile, runner);
}
TensorMap GpuTpConsensus(const Case& c, Profile profile, KernelRunner& runner) {
  return RunTpConsensus(c, profile, runner);
}
TensorMap GpuFinishRules(const Case& c, Profile profile, KernelRunner& runner) {
  return RunFinishRules(c, profile, runner);
}
TensorMap GpuSpecRandom(const Case& c, Profile profile, KernelRunner& runner) {
  return RunSpecRandom(c, profile, runner);
}

}  // namespace sampcheck::gpu
