// SPDX-License-Identifier: Apache-2.0
// Stage glue of the draw, seeded-draw and speculative kernels (gpu/backend/draws_glue.h): the inputs
// of gumbel_max, exponential_race, inverse_cdf, qsample, the seeded draws, spec_greedy,
// finish_rules and tp_consensus come from the reference's parse functions (reference/<stem>.h);
// spec_random is checked here as its reference file checks it; then one launch computes every
// output.
#include "gpu/backend/draws_glue.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "reference/ascend_top_k_top_p_sample_v2.h"
#include "reference/draft_tokens.h"
#include "reference/exponential_race.h"
#include "reference/finish_rules.h"
#include "reference/gumbel_max.h"
#include "reference/inverse_cdf.h"
#include "reference/qsample.h"
#include "reference/seeded_gumbel.h"
#include "reference/spec_greedy.h"
#include "reference/spec_random.h"
#include "reference/stage_io.h"
#include "reference/tp_consensus.h"

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

}  // namespace

TensorMap SpecOutputs(Tensor emitted, Tensor accepted) {
  TensorMap result = Outputs("emitted", std::move(emitted));
  result.emplace("num_accepted", std::move(accepted));
  return result;
}

namespace {

// Inputs from reference/spec_greedy.h's ParseSpecGreedy.
TensorMap RunSpecGreedy(const Case& c, Profile /*profile*/, KernelRunner& runner) {
  const reference::SpecGreedyArgs a = reference::ParseSpecGreedy(c);
  const std::int64_t rows = a.rows, width = a.width;
  Tensor emitted(DType::kI64, {rows, width + 1});
  Tensor accepted(DType::kI64, {rows});
  runner.Run(SpecGreedyLaunch(a.target.data<float>().data(), a.drafts->data<std::int32_t>().data(), a.counts.data(),
                              {rows, width, a.vocab}, emitted.data<std::int64_t>().data(),
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

}  // namespace

// reference/spec_random.cc, checks in its order.
SpecRandomKernelArgs PrepareSpecRandom(const Case& c, Profile profile) {
  StageInputs in(c, "spec_random");
  const Tensor& drafts = in.Required("draft_ids", DType::kI32, 2);
  const std::int64_t rows = drafts.dim(0), width = drafts.dim(1);
  SpecRandomKernelArgs a;
  a.target = reference::PositionProbabilities(c, in, "target_probs", rows, width + 1);
  const std::int64_t vocab = a.target.dim(2);
  a.counts = reference::DraftCounts(in, drafts, vocab);
  a.shape = {rows, width, vocab};
  Tensor& draft = a.draft;
  const Tensor& target = a.target;
  const std::vector<std::int64_t>& counts = a.counts;
  const bool has_draft = c.inputs.count("draft_probs") != 0;
  if (profile == Profile::kFlashinfer && !has_draft)
    in.Fail("missing input tensor 'draft_probs' (flashinfer has no n-gram mode)");
  if (has_draft && profile != Profile::kTypicalAcceptance) {
    draft = reference::PositionProbabilities(c, in, "draft_probs", rows, width, vocab);
  }
  KernelRunner::SpecRandomInputs& k = a.in;
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
  return a;
}

namespace {

TensorMap RunSpecRandom(const Case& c, Profile profile, KernelRunner& runner) {
  const SpecRandomKernelArgs a = PrepareSpecRandom(c, profile);
  const auto [rows, width, vocab] = a.shape;
  Tensor emitted(DType::kI64, {rows, width + 1});
  Tensor accepted(DType::kI64, {rows});
  runner.Run(SpecRandomLaunch(a.in, a.shape, emitted.data<std::int64_t>().data(), accepted.data<std::int64_t>().data()));
  return SpecOutputs(std::move(emitted), std::move(accepted));
}

// Inputs from reference/finish_rules.h's ParseFinishRules.
TensorMap RunFinishRules(const Case& c, Profile profile, KernelRunner& runner) {
  const reference::FinishRulesArgs a = reference::ParseFinishRules(c);
  const std::int64_t rows = a.rows, width = a.eos_ids->dim(1) + a.stop_ids->dim(1);
  KernelRunner::FinishRulesInputs k;
  k.token = a.token->data<std::int64_t>().data();
  k.output_len = a.output_len->data<std::int32_t>().data();
  k.max_tokens = a.max_tokens->data<std::int32_t>().data();
  k.min_tokens = a.min_tokens->data<std::int32_t>().data();
  k.ignore_eos = a.ignore_eos->data<std::uint8_t>().data();
  k.keep_stop = a.keep_stop != nullptr ? a.keep_stop->data<std::uint8_t>().data() : nullptr;
  k.eos_ids = a.eos_ids->data<std::int32_t>().data();
  k.n_eos = a.eos_ids->dim(1);
  k.stop_ids = a.stop_ids->data<std::int32_t>().data();
  k.n_stop = a.stop_ids->dim(1);
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

// Inputs from reference/tp_consensus.h's ParseTpConsensus.
TensorMap RunTpConsensus(const Case& c, Profile profile, KernelRunner& runner) {
  const reference::TpConsensusArgs a = reference::ParseTpConsensus(c);
  const std::vector<std::int64_t>& ids = a.ids;
  const std::int64_t ranks = a.ranks, batch = a.batch;
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
