// SPDX-License-Identifier: Apache-2.0
// The exact law of the token the draw harness counts on spec_random and spec_step
// (statistical/spec_first_token.h).
#include "statistical/spec_first_token.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/profile.h"
#include "core/stage_catalogue.h"
#include "reference/spec_step.h"
#include "reference/stage_io.h"

namespace sampcheck::statistical {
namespace {

// {P(rejected), P(accepted)} of draft 0 of row b, p0 the normalised target row 0. Token-wise
// verification accepts x with min(1, p0(x) / q0(x)): a = sum_j min(p0(j), q0(j)); SGLang's
// target-only verification (target_only) accepts x with p0(x): a = sum_j q0(j) p0(j).
std::vector<double> AcceptanceLaw(const Case& with_ids, std::int64_t b, const std::vector<double>& p0, bool target_only) {
  const Case c = SpecWithDraftIds(with_ids);
  const Tensor& ids = SpecRequiredInput(c, "draft_ids");
  const std::int32_t x = ids.data<std::int32_t>()[static_cast<std::size_t>(b * ids.dim(1))];
  long double a = 0.0L;
  if (ids.dim(1) == 0 || x < 0) {
    a = 0.0L;  // no drafts: nothing to accept
  } else if (c.inputs.count("draft_probs") == 0) {
    a = p0[static_cast<std::size_t>(x)];  // n-gram: accepted with probability p_0(x_0)
  } else {
    const Tensor q = reference::UpcastToF32(c.inputs.at("draft_probs"), "draft_probs");
    const auto v = static_cast<std::size_t>(q.dim(2));
    const auto row = q.data<float>().subspan(static_cast<std::size_t>(b * q.dim(1)) * v, v);
    long double sum = 0.0L;
    for (float e : row) sum += e;
    if (!(sum > 0.0L)) throw InputError("case '" + c.id + "': draft_probs[" + std::to_string(b) + ", 0] has no positive entry");
    for (std::size_t j = 0; j < v; ++j) {
      const long double q = row[j] / sum;
      a += target_only ? q * static_cast<long double>(p0[j]) : std::min(static_cast<long double>(p0[j]), q);
    }
  }
  return {static_cast<double>(1.0L - a), static_cast<double>(a)};
}

}  // namespace

const Tensor& SpecRequiredInput(const Case& c, const char* name) {
  auto it = c.inputs.find(name);
  if (it == c.inputs.end()) throw InputError("case '" + c.id + "': spec_random needs input '" + name + "'");
  return it->second;
}

Case SpecWithDraftIds(const Case& c) {
  if (c.inputs.count("draft_ids") || !c.inputs.count("draft_probs")) return c;
  const Tensor& q = c.inputs.at("draft_probs");
  if (q.rank() != 3) throw InputError("case '" + c.id + "': draft_probs must be [B, K, V], not " + ShapeString(q.shape()));
  Case out = c;
  out.inputs.emplace("draft_ids", Tensor(DType::kI32, {q.dim(0), q.dim(1)}));
  return out;
}

bool SpecFromLogits(const Case& c) {
  const TensorSpec* d = RequireStage(c.stage).DistributionInput();
  return d != nullptr && d->role == Role::kLogits;
}

Case SpecProbabilityView(const Case& c) {
  if (c.profile == Profile::kSglang) {
    for (const char* name : {"threshold_single", "threshold_acc"}) {
      if (c.params.contains(name) && !(c.params[name].is_number() && c.params[name].get<double>() == 1.0)) {
        throw InputError("case '" + c.id + "': parameter " + name + " = " + c.params[name].dump() +
                         "; the first emitted token follows the target row only at SGLang's default thresholds (1)");
      }
    }
  }
  if (SpecCountsAcceptance(c) && c.profile == Profile::kBlockVerification) {
    throw InputError("case '" + c.id + "': the acceptance of draft 0 has no closed law here under block verification (token-wise: 1 - TV; sglang: sum q p)");
  }
  const reference::SpecStepProbs probs = reference::SpecStepVerifierProbs(c);
  Case view;
  view.id = c.id;
  view.stage = c.stage;
  view.profile = Profile::kVllm;
  view.params = c.params;
  view.inputs.emplace("draft_ids", SpecRequiredInput(c, "draft_ids"));
  view.inputs.emplace("target_probs", probs.target);
  if (probs.draft.numel() > 0) view.inputs.emplace("draft_probs", probs.draft);
  return view;
}

bool SpecCountsAcceptance(const Case& c) {
  auto it = c.params.find(kSpecCountParam);
  if (it == c.params.end()) return false;
  if (*it != "accepted_0") {
    throw InputError("case '" + c.id + "': parameter " + kSpecCountParam + " = " + it->dump() + "; expected \"accepted_0\"");
  }
  return true;
}

namespace {

ExactTarget ProbsFirstTokenTarget(const Case& c, bool target_only = false) {
  const Tensor target = reference::UpcastToF32(SpecRequiredInput(c, "target_probs"), "target_probs");
  if (target.rank() != 3 || target.dim(1) < 1) {
    throw std::invalid_argument("exact target of case '" + c.id + "': target_probs must be [B, K + 1, V], not " +
                                ShapeString(target.shape()));
  }
  const std::int64_t rows = target.dim(0), positions = target.dim(1), vocab = target.dim(2);
  const bool acceptance = SpecCountsAcceptance(c);
  ExactTarget out;
  out.vocab = acceptance ? 2 : vocab;
  const auto all = target.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto row = all.subspan(static_cast<std::size_t>(b * positions * vocab), static_cast<std::size_t>(vocab));
    long double sum = 0.0L;
    for (float x : row) {
      if (!std::isfinite(x) || x < 0.0f) {
        throw std::invalid_argument("exact target of case '" + c.id + "': target_probs[" + std::to_string(b) + ", 0] holds " +
                                    reference::FormatFloat(x));
      }
      sum += x;
    }
    if (!(sum > 0.0L)) {
      throw std::invalid_argument("exact target of case '" + c.id + "': target_probs[" + std::to_string(b) + ", 0] has no drawable token");
    }
    RowTarget r;
    r.p.reserve(row.size());
    for (float x : row) r.p.push_back(static_cast<double>(static_cast<long double>(x) / sum));
    if (acceptance) r.p = AcceptanceLaw(c, b, r.p, target_only);
    out.rows.push_back(std::move(r));
  }
  return out;
}

}  // namespace

ExactTarget SpecFirstTokenTarget(const Case& c) {
  if (!SpecFromLogits(c)) return ProbsFirstTokenTarget(c);
  return ProbsFirstTokenTarget(SpecProbabilityView(c), c.profile == Profile::kSglang);
}

}  // namespace sampcheck::statistical
