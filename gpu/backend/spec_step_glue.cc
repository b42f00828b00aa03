// SPDX-License-Identifier: Apache-2.0
// Stage glue of spec_step (gpu/backend/spec_step_glue.h): the reference's parse (ParseSpecStep:
// each check and message once), then every step a kernel. The host gathers position rows into batches and scatters the
// probabilities back (data movement only); a degenerate position's point mass under canonical
// and block verification is the temperature kernel's (gpu/kernels/temperature.cuh point_mass).
#include "gpu/backend/spec_step_glue.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpu/backend/gpu_backend.h"
#include "reference/draft_tokens.h"
#include "reference/profile_rules.h"
#include "reference/spec_step.h"
#include "reference/stage_io.h"

namespace sampcheck::gpu {
namespace {

using reference::StageInputs;

// A batch of position rows: row r is (request, position) of a [B, P, V] tensor.
struct PositionBatch {
  std::vector<std::int64_t> request, position;
  std::vector<float> temperature, top_p, min_p;
  std::vector<std::int32_t> top_k;
};

// Runs `stage` on logits [rows, V] with the named per-row f32/i32 inputs; returns its outputs.
TensorMap RunOn(const std::string& stage, const std::string& id, Profile profile, Tensor logits, TensorMap extra,
                KernelRunner& runner) {
  Case sub;
  sub.id = id + " > " + stage;
  sub.stage = stage;
  sub.profile = profile;
  sub.inputs.emplace("logits", std::move(logits));
  for (auto& [name, t] : extra) sub.inputs.emplace(name, std::move(t));
  return RunGpuStage(stage, sub, profile, runner);
}

template <class T>
Tensor Vector(DType dtype, const std::vector<T>& v) {
  Tensor t(dtype, {static_cast<std::int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data<T>().begin());
  return t;
}

// The probabilities of a batch's rows: temperature (canonical x / t) and the profile's filters
// (`filtered` false: none, SoftmaxRow of x / t). Rows of `logits` [B * P, V] at request * P + position.
// A degenerate row of the canonical and block profiles is its point mass, which the temperature
// kernel writes in logit space (0 at the token, -inf elsewhere) for the filters to keep.
Tensor BatchProbs(const std::string& id, const Tensor& logits, std::int64_t positions, const PositionBatch& batch,
                  bool filtered, bool has_k, bool has_p, bool has_m, Profile profile, Profile filter_profile,
                  KernelRunner& runner) {
  const auto n = static_cast<std::int64_t>(batch.request.size());
  const std::int64_t vocab = logits.dim(1);
  const auto v = static_cast<std::size_t>(vocab);
  Tensor rows(DType::kF32, {n, vocab});
  for (std::int64_t r = 0; r < n; ++r) {
    const auto src = logits.data<float>().subspan(
        static_cast<std::size_t>(batch.request[static_cast<std::size_t>(r)] * positions +
                                 batch.position[static_cast<std::size_t>(r)]) * v, v);
    std::copy(src.begin(), src.end(), rows.data<float>().begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r) * v));
  }
  Tensor scaled = Tensor::Uninitialized(DType::kF32, {n, vocab});
  Tensor greedy(DType::kBool, {n});
  runner.Run(TemperatureLaunch(rows.data<float>().data(), batch.temperature.data(), n, vocab, vocab,
                               reference::TemperatureRuleFor(Profile::kCanonical), scaled.data<float>().data(),
                               greedy.data<std::uint8_t>().data(), reference::SpecStepHasPointMass(profile)));
  TensorMap filters;
  if (filtered && has_k) filters.emplace("top_k", Vector(DType::kI32, batch.top_k));
  if (filtered && has_p) filters.emplace("top_p", Vector(DType::kF32, batch.top_p));
  if (filtered && has_m) filters.emplace("min_p", Vector(DType::kF32, batch.min_p));
  return RunOn("sampling_filters", id, filter_profile, std::move(scaled), std::move(filters), runner).at("probs");
}

}  // namespace

TensorMap GpuSpecStep(const Case& c, Profile profile, KernelRunner& runner) {
  return GpuSpecStepWith(c, profile, runner,
                         [&runner](const SpecRandomInputs& k, SpecShape shape, std::int64_t* emitted, std::int64_t* accepted) {
                           runner.Run(SpecRandomLaunch(k, shape, emitted, accepted));
                         });
}

TensorMap GpuSpecStepWith(const Case& c, Profile profile, KernelRunner& runner, const SpecStepVerifier& verifier) {
  StageInputs in(c, "spec_step");
  if (!kGpuSpecStepProfiles.Contains(profile)) {
    in.Fail("no gpu kernel for profile " + std::string(ProfileName(profile)) +
            " (canonical, vllm, block_verification, sglang)");
  }
  const bool vllm = profile == Profile::kVllm;
  // sglang never reads its draft logits (target-only verification).
  const bool sglang = profile == Profile::kSglang;
  const reference::SpecStepArgs args = reference::ParseSpecStep(c, profile);
  const std::int64_t rows = args.rows, width = args.width, vocab = args.vocab;
  const Tensor& drafts = *args.drafts;
  const std::vector<std::int64_t>& counts = args.counts;
  const Tensor& target = args.target;
  const Tensor& draft = args.draft;
  const bool use_draft = args.use_draft;
  const Tensor& temperature = *args.temperature;
  const Tensor *top_k = args.top_k, *top_p = args.top_p, *min_p = args.min_p;
  const Tensor *min_tokens = args.min_tokens, *output_len = args.output_len, *stop_ids = args.stop_ids;
  const Tensor *u = args.u, *q = args.q, *bonus_q = args.bonus_q;
  const bool any_random = args.any_random;
  // The canonical temperature rule (greedy iff double(t) < the sampling epsilon), a flag per row.
  std::vector<std::uint8_t> is_greedy(static_cast<std::size_t>(rows));
  for (std::int64_t b = 0; b < rows; ++b) {
    is_greedy[static_cast<std::size_t>(b)] =
        static_cast<double>(temperature.data<float>()[static_cast<std::size_t>(b)]) < reference::kCanonicalSamplingEps;
  }
  const auto before = [&](std::int64_t b) {
    return output_len ? static_cast<std::int64_t>(output_len->data<std::int32_t>()[static_cast<std::size_t>(b)]) : 0;
  };

  // The min_tokens mask of every position (the min_new_tokens stage): position i of row b has
  // output_len + i tokens before it, except vllm's bonus position (the ordinary sampler's count).
  auto mask = [&](const Tensor& logits, std::int64_t positions, bool is_target) {
    Tensor flat(DType::kF32, {rows * positions, vocab});
    std::copy(logits.data<float>().begin(), logits.data<float>().end(), flat.data<float>().begin());
    if (stop_ids == nullptr || min_tokens == nullptr) return flat;
    std::vector<std::int32_t> len, minimum;
    Tensor stops(DType::kI32, {rows * positions, stop_ids->dim(1)});
    const auto s = static_cast<std::size_t>(stop_ids->dim(1));
    for (std::int64_t b = 0; b < rows; ++b) {
      for (std::int64_t i = 0; i < positions; ++i) {
        const bool vllm_bonus = vllm && is_target && i == counts[static_cast<std::size_t>(b)];
        len.push_back(static_cast<std::int32_t>(vllm_bonus ? before(b) : before(b) + i));
        minimum.push_back(min_tokens->data<std::int32_t>()[static_cast<std::size_t>(b)]);
        const auto row = reference::Row(*stop_ids, b);
        std::copy(row.begin(), row.end(),
                  stops.data<std::int32_t>().begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(b * positions + i) * s));
      }
    }
    TensorMap extra;
    extra.emplace("output_len", Vector(DType::kI32, len));
    extra.emplace("min_tokens", Vector(DType::kI32, minimum));
    extra.emplace("stop_ids", std::move(stops));
    return RunOn("min_new_tokens", c.id, Profile::kCanonical, std::move(flat), std::move(extra), runner).at("logits");
  };
  const Tensor masked_target = mask(target, width + 1, true);
  const bool verify_draft = use_draft && !sglang;
  const Tensor masked_draft = verify_draft ? mask(draft, width, false) : Tensor();

  // Greedy rows: spec_greedy on the masked target logits (every row; random rows' results unused).
  Tensor greedy_emitted(DType::kI64, {rows, width + 1});
  Tensor greedy_accepted(DType::kI64, {rows});
  runner.Run(SpecGreedyLaunch(masked_target.data<float>().data(), drafts.data<std::int32_t>().data(), counts.data(),
                              {rows, width, vocab}, greedy_emitted.data<std::int64_t>().data(),
                              greedy_accepted.data<std::int64_t>().data()));

  const auto v = static_cast<std::size_t>(vocab);
  PositionBatch targets, draft_rows;
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto at = static_cast<std::size_t>(b);
    const std::int64_t n = counts[at];
    if (is_greedy[at] != 0) continue;
    const float t = temperature.data<float>()[at];
    const std::int32_t k = top_k ? top_k->data<std::int32_t>()[at] : 0;
    const float p = top_p ? top_p->data<float>()[at] : 1.0f;
    const float m = min_p ? min_p->data<float>()[at] : 0.0f;
    for (std::int64_t i = 0; i <= n; ++i) {
      targets.request.push_back(b);
      targets.position.push_back(i);
      targets.temperature.push_back(t);
      targets.top_k.push_back(k);
      targets.top_p.push_back(p);
      // vllm: the verified positions get no min-p (only the bonus position's sampler has it).
      targets.min_p.push_back(vllm && i < n ? 0.0f : m);
      if (i < n && verify_draft) {
        draft_rows.request.push_back(b);
        draft_rows.position.push_back(i);
        draft_rows.temperature.push_back(t);
        draft_rows.top_k.push_back(k);
        draft_rows.top_p.push_back(p);
        draft_rows.min_p.push_back(m);
      }
    }
  }

  Tensor random_emitted, random_accepted;
  if (any_random) {
    // Every position of the random rows through temperature and the filters, scattered into
    // [B, K + 1, V] and [B, K, V] (zeros where the verifier reads nothing).
    auto scatter = [&](const Tensor& probs, const PositionBatch& batch, std::int64_t positions) {
      Tensor out(DType::kF32, {rows, positions, vocab});
      for (std::size_t r = 0; r < batch.request.size(); ++r) {
        const auto src = probs.data<float>().subspan(r * v, v);
        std::copy(src.begin(), src.end(),
                  out.data<float>().begin() +
                      static_cast<std::ptrdiff_t>(static_cast<std::size_t>(batch.request[r] * positions + batch.position[r]) * v));
      }
      return out;
    };
    if (sglang) {
      // Every position's softmax of x / t (no filter: the renorms are the verifier's), then
      // SGLang's chain verifier.
      const Tensor probs = scatter(BatchProbs(c.id, masked_target, width + 1, targets, false, false, false, false,
                                              profile, Profile::kCanonical, runner),
                                   targets, width + 1);
      random_emitted = Tensor(DType::kI64, {rows, width + 1});
      random_accepted = Tensor(DType::kI64, {rows});
      SpecVerifySglangLaunch k;
      k.probs = probs.data<float>().data();
      k.drafts = drafts.data<std::int32_t>().data();
      k.counts = counts.data();
      k.top_k = top_k ? top_k->data<std::int32_t>().data() : nullptr;
      k.top_p = top_p ? top_p->data<float>().data() : nullptr;
      k.u = u->data<double>().data();
      k.final_u = args.final_u->data<float>().data();
      k.threshold_single = args.threshold_single;
      k.threshold_acc = args.threshold_acc;
      k.shape = {rows, width, vocab};
      k.emitted = random_emitted.data<std::int64_t>().data();
      k.accepted = random_accepted.data<std::int64_t>().data();
      runner.Run(k);
    } else {
      const Profile filters = vllm ? Profile::kVllm : Profile::kCanonical;
      const Tensor target_probs = scatter(
          BatchProbs(c.id, masked_target, width + 1, targets, true, top_k, top_p, min_p, profile, filters, runner), targets,
          width + 1);
      Tensor draft_probs;
      if (use_draft && !draft_rows.request.empty()) {
        // canonical: the verifier sees filtered draft probabilities; vllm: the drafter's, unfiltered.
        draft_probs = scatter(BatchProbs(c.id, masked_draft, width, draft_rows, !vllm, top_k, top_p, min_p, profile,
                                         filters, runner),
                              draft_rows, width);
      } else if (use_draft) {
        draft_probs = Tensor(DType::kF32, {rows, width, vocab});
      }
      random_emitted = Tensor(DType::kI64, {rows, width + 1});
      random_accepted = Tensor(DType::kI64, {rows});
      if (profile == Profile::kBlockVerification) {
        runner.Run(SpecVerifyBlockLaunch(target_probs.data<float>().data(), draft_probs.data<float>().data(),
                                         drafts.data<std::int32_t>().data(), counts.data(), u->data<double>().data(),
                                         q->data<float>().data(), bonus_q->data<float>().data(), {rows, width, vocab},
                                         random_emitted.data<std::int64_t>().data(),
                                         random_accepted.data<std::int64_t>().data()));
      } else {
        SpecRandomInputs k;
        k.rule = SpecRandomInputs::Rule::kVllm;
        k.target_probs = target_probs.data<float>().data();
        k.draft_probs = use_draft ? draft_probs.data<float>().data() : nullptr;
        k.drafts = drafts.data<std::int32_t>().data();
        k.counts = counts.data();
        k.u_f64 = u->data<double>().data();
        k.q = q->data<float>().data();
        k.bonus_q = bonus_q->data<float>().data();
        verifier(k, {rows, width, vocab}, random_emitted.data<std::int64_t>().data(),
                 random_accepted.data<std::int64_t>().data());
      }
    }
  }
  Tensor emitted(DType::kI64, {rows, width + 1});
  Tensor accepted(DType::kI64, {rows});
  Tensor kept(DType::kI64, {rows});
  Tensor finished(DType::kBool, {rows});
  runner.Run(SpecStepStopsLaunch(
      is_greedy.data(), greedy_emitted.data<std::int64_t>().data(), greedy_accepted.data<std::int64_t>().data(),
      any_random ? random_emitted.data<std::int64_t>().data() : nullptr,
      any_random ? random_accepted.data<std::int64_t>().data() : nullptr,
      stop_ids ? stop_ids->data<std::int32_t>().data() : nullptr, stop_ids ? stop_ids->dim(1) : 0,
      output_len ? output_len->data<std::int32_t>().data() : nullptr,
      min_tokens ? min_tokens->data<std::int32_t>().data() : nullptr, {rows, width, vocab},
      emitted.data<std::int64_t>().data(), accepted.data<std::int64_t>().data(), kept.data<std::int64_t>().data(),
      finished.data<std::uint8_t>().data()));
  TensorMap result = reference::Outputs("emitted", std::move(emitted));
  result.emplace("num_accepted", std::move(accepted));
  result.emplace("num_emitted", std::move(kept));
  result.emplace("finished", std::move(finished));
  return result;
}

}  // namespace sampcheck::gpu
