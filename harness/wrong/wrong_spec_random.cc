// SPDX-License-Identifier: Apache-2.0
// Speculative decoding's recovered token drawn from the target instead of the residual
// (docs/spec/harness.md "Speculative decoding").
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - recovered_from_target   a speculative-decoding style draw (draft: uniform over the support;
//                           accept x with probability min(1, p_x / d_x)) that, on rejection,
//                           redraws from p instead of the residual (p - d)+ (planted in
//                           exponential_race's own draws, written before the spec_random stage
//                           reached main; tests/spec_random_statistical_test.cc rejects the same
//                           bug in spec_random itself); and in spec_random (vllm) through Run:
//                           a rejected draft's recovered token raced over p, not the residual
//                           -> stats/exponential_race/peaked_v100 L3 and
//                              stats/spec_random/recovered_v8/vllm L3
// - spec_residual_from_target  spec_random's recovered token (first rejection) is drawn from
//                           the target row p instead of the residual max(p - q, 0), with the
//                           stage's own noise -> stats/spec_random/small_v4/<profile> L3
// Each registers itself with SAMPCHECK_WRONG_SAMPLER (harness/wrong/wrong_samplers.h).
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "core/half.h"
#include "core/profile.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "harness/wrong/wrong_backend.h"
#include "harness/wrong/wrong_samplers.h"
#include "reference/count_draws.h"
#include "reference/exponential_race.h"
#include "reference/math/log.h"
#include "reference/reference_backend.h"
#include "reference/rng/murmur3.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/rng/philox_lanes.h"
#include "reference/rng/streams.h"
#include "reference/spec_random.h"
#include "reference/stage_io.h"
#include "statistical/detail/numeric.h"
#include "statistical/exact_target.h"

namespace sampcheck::statistical {
namespace {

class RecoveredFromTarget final : public OwnRaceBackend {
 public:
  RecoveredFromTarget() : OwnRaceBackend("recovered_from_target") {}

  // spec_random (vllm): a rejected first draft's recovered token raced over the target row
  // itself, with the case's q, instead of over the residual max(p - q, 0).
  TensorMap Run(const std::string& stage, const Case& c) override {
    TensorMap out = ref_.Run(stage, c);
    if (!IsSpecOnProbs(stage) || c.profile != Profile::kVllm || !c.inputs.count("q"))
      return out;
    const Tensor tp = reference::UpcastToF32(c.inputs.at("target_probs"), "target_probs");
    const Tensor& q = c.inputs.at("q");
    const Tensor& ids = c.inputs.at("draft_ids");
    const std::int64_t rows = tp.dim(0), positions = tp.dim(1), vocab = tp.dim(2), k = ids.dim(1);
    auto emitted = out.at("emitted").data<std::int64_t>();
    const auto accepted = out.at("num_accepted").data<std::int64_t>();
    for (std::int64_t b = 0; b < rows; ++b) {
      if (k == 0 || ids.data<std::int32_t>()[static_cast<std::size_t>(b * k)] < 0 || accepted[static_cast<std::size_t>(b)] != 0) continue;
      const auto p = tp.data<float>().subspan(static_cast<std::size_t>(b * positions * vocab), static_cast<std::size_t>(vocab));
      const auto e = q.data<float>().subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
      emitted[static_cast<std::size_t>(b * (k + 1))] = reference::ExponentialRaceRow(p, e, /*all_tokens=*/true);
    }
    return out;
  }

 protected:
  std::int64_t DrawOne(std::span<const float> probs, std::uint64_t seed, std::uint32_t row, std::uint32_t draw) override {
    std::vector<std::int64_t> support;
    double sum = 0.0;
    for (std::size_t i = 0; i < probs.size(); ++i) {
      if (probs[i] > 0.0f) support.push_back(static_cast<std::int64_t>(i)), sum += probs[i];
    }
    SplitMix64 g(seed ^ (std::uint64_t{row} << 32 | draw) * 0x9E3779B97F4A7C15ull);
    auto uniform = [&] { return static_cast<double>(g.Next() >> 11) * 0x1p-53; };
    const double d = 1.0 / static_cast<double>(support.size());  // draft: uniform on the support
    const std::int64_t x = support[static_cast<std::size_t>(uniform() * static_cast<double>(support.size()))];
    const double p_x = probs[static_cast<std::size_t>(x)] / sum;
    if (uniform() < std::min(1.0, p_x / d)) return x;
    // The bug: a rejected draft is replaced by a draw from p, not from (p - d)+ / ||(p - d)+||.
    double u = uniform() * sum, c = 0.0;
    for (std::int64_t i : support) {
      c += probs[static_cast<std::size_t>(i)];
      if (u < c) return i;
    }
    return support.back();
  }
};

// spec_random whose recovered token (at the first rejection L < n) is drawn from the target row
// p_L instead of the residual max(p_L - q_L, 0), with the same noise the stage would have used
// (vllm: the race over q; flashinfer: the inverse CDF with u_{min(L + 1, n)}). The first token
// then follows min(p, q) + TV(p, q) p instead of p: TV 0.14 from p on small_v4.
class SpecResidualFromTarget final : public WrappingBackend {
 public:
  SpecResidualFromTarget() : WrappingBackend("spec_residual_from_target") {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    TensorMap out = WrappingBackend::Run(stage, c);
    if (!IsSpecOnProbs(stage)) return out;
    if (const Profile p = c.profile; p != Profile::kVllm && p != Profile::kFlashinfer) return out;
    const Tensor& ids = c.inputs.at("draft_ids");
    const Tensor target = reference::UpcastToF32(c.inputs.at("target_probs"), "target_probs");
    const std::int64_t rows = ids.dim(0), width = ids.dim(1), vocab = target.dim(2);
    auto emitted = out.at("emitted").data<std::int64_t>();
    const auto accepted = out.at("num_accepted").data<std::int64_t>();
    for (std::int64_t b = 0; b < rows; ++b) {
      const auto drafts = reference::Row(ids, b);
      const auto n = static_cast<std::int64_t>(std::count_if(drafts.begin(), drafts.end(), [](std::int32_t x) { return x >= 0; }));
      const std::int64_t at = accepted[static_cast<std::size_t>(b)];
      if (at >= n) continue;  // no rejection: the bonus token is right
      const auto p = target.data<float>().subspan(static_cast<std::size_t>((b * (width + 1) + at) * vocab), static_cast<std::size_t>(vocab));
      std::int64_t token = 0;
      if (c.profile == Profile::kVllm) {
        const auto q = c.inputs.at("q").data<float>().subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
        token = reference::RaceArgmax(p, q);
      } else {
        const float u = c.inputs.at("u").data<float>()[static_cast<std::size_t>(b * (width + 1) + std::min(at + 1, n))];
        token = reference::FlashinferResidualDraw(p, {}, u);
      }
      emitted[static_cast<std::size_t>(b * (width + 1) + at)] = token;  // the bug: from p, not max(p - q, 0)
    }
    return out;
  }
};

}  // namespace

SAMPCHECK_WRONG_SAMPLER(RecoveredFromTarget, {{"recovered_from_target", "on rejection of a uniform draft, the recovered token is drawn from p, not the residual",
        "stats/exponential_race/peaked_v100/", "L3"},
       [] { return std::make_unique<RecoveredFromTarget>(); }});
SAMPCHECK_WRONG_SAMPLER(SpecResidualFromTarget, {{"spec_residual_from_target", "spec_random draws the recovered token from the target p, not the residual max(p - q, 0)",
        "stats/spec_random/small_v4/", "L3"},
       [] { return std::make_unique<SpecResidualFromTarget>(); }});

}  // namespace sampcheck::statistical
