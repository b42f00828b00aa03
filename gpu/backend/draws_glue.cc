// SPDX-License-Identifier: Apache-2.0
// Stage glue of the draw, seeded-draw and speculative kernels (gpu/backend/draws_glue.h): the inputs
// of gumbel_max, exponential_race, inverse_cdf, qsample, the seeded draws, spec_greedy,
// spec_random, finish_rules and tp_consensus come from the reference's parse functions
// (reference/<stem>.h); then one launch computes every output.
#include "gpu/backend/draws_glue.h"

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

using reference::Outputs;

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

}  // namespace

// Inputs from reference/spec_random.h's ParseSpecRandom; the kernels' view of them.
SpecRandomKernelArgs PrepareSpecRandom(const Case& c, Profile profile) {
  SpecRandomKernelArgs a;
  a.parsed = reference::ParseSpecRandom(c, profile);
  const reference::SpecRandomArgs& p = a.parsed;
  a.shape = {p.rows, p.width, p.vocab};
  KernelRunner::SpecRandomInputs& k = a.in;
  k.target_probs = p.target.data<float>().data();
  const auto draft = p.DraftProbs();
  k.draft_probs = draft.empty() ? nullptr : draft.data();
  k.drafts = p.drafts->data<std::int32_t>().data();
  k.counts = p.counts.data();
  switch (profile) {
    case Profile::kVllm:
      k.rule = KernelRunner::SpecRandomInputs::Rule::kVllm;
      k.u_f64 = p.u_f64->data<double>().data();
      k.q = p.q->data<float>().data();
      k.bonus_q = p.bonus_q->data<float>().data();
      break;
    case Profile::kFlashinfer:
      k.rule = KernelRunner::SpecRandomInputs::Rule::kFlashinfer;
      k.u_f32 = p.u_f32->data<float>().data();
      break;
    default:  // kTypicalAcceptance: ParseSpecRandom rejects every other profile
      k.rule = KernelRunner::SpecRandomInputs::Rule::kTypicalAcceptance;
      k.bonus_q = p.bonus_q->data<float>().data();
      k.posterior_threshold = p.posterior_threshold;
      k.posterior_alpha = p.posterior_alpha;
  }
  return a;
}

namespace {

TensorMap RunSpecRandom(const Case& c, Profile profile, KernelRunner& runner) {
  const SpecRandomKernelArgs a = PrepareSpecRandom(c, profile);
  Tensor emitted(DType::kI64, {a.shape.rows, a.shape.width + 1});
  Tensor accepted(DType::kI64, {a.shape.rows});
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
