// SPDX-License-Identifier: Apache-2.0
// The pipeline's filters and temperature planted wrong (docs/spec/harness.md "Proving the
// harness works"): each caught by a stats/pipeline/ case of the draw harness.
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - top_p_off_by_one        the nucleus keeps one more token (the most probable excluded one)
//                           -> stats/pipeline/top_p_inside_v100/<profile> L1
// - top_k_drops_ties        vllm's top-k keeps exactly k tokens instead of every tie at the
//                           k-th value -> stats/pipeline/top_k_ties_v1023/vllm L2
// - temperature_after_softmax  the temperature divides the probabilities, and renormalising
//                           cancels it (the row is drawn at temperature 1)
//                           -> stats/pipeline/temperature_v50/<profile> L3
// - min_p_wrong_max         min-p's threshold uses the second largest probability as the
//                           maximum -> stats/pipeline/min_p_v100/<profile> L1
// - tie_break_highest_index greedy rows and canonical/sglang top-k ties prefer the highest index
//                           -> stats/pipeline/top_k_ties_v1023/canonical L1 and mixed_v8193 row0 L1
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

using detail::kNegInf;

class TopPOffByOne final : public WrappingBackend {
 public:
  TopPOffByOne() : WrappingBackend("top_p_off_by_one") {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    if (!DrawsTo(stage, ExactTargetKind::kPipeline) || !in.inputs.count("top_p")) return in;
    const ExactTarget target = ComputeExactTarget(in);
    PipelineRows r(in);
    for (std::int64_t b = 0; b < r.rows; ++b) {
      const RowTarget& t = target.rows[static_cast<std::size_t>(b)];
      if (t.greedy_token >= 0 || !(r.Get("top_p", b, 1.0f) < 1.0f)) continue;
      std::vector<bool> keep(static_cast<std::size_t>(r.vocab));
      for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = t.p[i] > 0.0;
      for (std::int64_t i : Order(r.Row(b), false)) {  // the most probable excluded token joins
        if (!keep[static_cast<std::size_t>(i)]) {
          keep[static_cast<std::size_t>(i)] = true;
          break;
        }
      }
      r.Mask(b, keep);
      r.Set("top_p", b, 1.0f);
      r.Set("top_k", b, 0.0f);
      r.Set("min_p", b, 0.0f);
    }
    return std::move(r.c);
  }
};

class TopKDropsTies final : public WrappingBackend {
 public:
  TopKDropsTies() : WrappingBackend("top_k_drops_ties") {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    if (!DrawsTo(stage, ExactTargetKind::kPipeline) || in.profile != Profile::kVllm || !in.inputs.count("top_k"))
      return in;
    PipelineRows r(in);
    for (std::int64_t b = 0; b < r.rows; ++b) {
      const auto k = static_cast<std::int64_t>(r.Get("top_k", b, 0.0f));
      if (k <= 0 || k >= r.vocab) continue;
      r.Mask(b, FirstK(r.Row(b), k, false));
      r.Set("top_k", b, 0.0f);
    }
    return std::move(r.c);
  }
};

class TemperatureAfterSoftmax final : public WrappingBackend {
 public:
  TemperatureAfterSoftmax() : WrappingBackend("temperature_after_softmax") {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    if (!DrawsTo(stage, ExactTargetKind::kPipeline) || !in.inputs.count("temperature")) return in;
    PipelineRows r(in);
    for (std::int64_t b = 0; b < r.rows; ++b) {
      // softmax(l) / t renormalised == softmax(l): the row is drawn at temperature 1.
      if (r.Get("temperature", b, 1.0f) >= 1e-5f) r.Set("temperature", b, 1.0f);
    }
    return std::move(r.c);
  }
};

class MinPWrongMax final : public WrappingBackend {
 public:
  MinPWrongMax() : WrappingBackend("min_p_wrong_max") {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    if (!DrawsTo(stage, ExactTargetKind::kPipeline) || !in.inputs.count("min_p")) return in;
    const ExactTarget target = ComputeExactTarget(in);
    PipelineRows r(in);
    for (std::int64_t b = 0; b < r.rows; ++b) {
      const float m = r.Get("min_p", b, 0.0f);
      if (target.rows[static_cast<std::size_t>(b)].greedy_token >= 0 || !(m > 0.0f && m < 1.0f)) continue;
      const float t = r.Get("temperature", b, 1.0f);
      auto row = r.Row(b);
      std::vector<float> scaled(row.size());
      for (std::size_t i = 0; i < row.size(); ++i) scaled[i] = row[i] / t;
      const auto ids = Order(scaled, false);
      if (ids.size() < 2) continue;
      const double wrong_max = scaled[static_cast<std::size_t>(ids[1])];  // the second largest
      std::vector<bool> keep(row.size(), false);
      for (std::size_t i = 0; i < row.size(); ++i) {
        keep[i] = scaled[i] != kNegInf && std::exp(static_cast<double>(scaled[i]) - wrong_max) >= m;
      }
      r.Mask(b, keep);
      r.Set("min_p", b, 0.0f);
    }
    return std::move(r.c);
  }
};

class TieBreakHighestIndex final : public WrappingBackend {
 public:
  TieBreakHighestIndex() : WrappingBackend("tie_break_highest_index") {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    if (!DrawsTo(stage, ExactTargetKind::kPipeline)) return in;
    const ExactTarget target = ComputeExactTarget(in);
    PipelineRows r(in);
    for (std::int64_t b = 0; b < r.rows; ++b) {
      auto row = r.Row(b);
      if (target.rows[static_cast<std::size_t>(b)].greedy_token >= 0) {
        // Lower every tied maximum but the highest index by one ulp: the argmax moves there.
        const auto ids = Order(row, true);
        if (ids.empty()) continue;
        const float max = row[static_cast<std::size_t>(ids.front())];
        for (std::size_t i = 0; i < row.size(); ++i) {
          if (row[i] == max && static_cast<std::int64_t>(i) != ids.front()) row[i] = std::nextafter(max, kNegInf);
        }
        continue;
      }
      const auto k = static_cast<std::int64_t>(r.Get("top_k", b, 0.0f));
      if (in.profile == Profile::kVllm || k <= 0 || k >= r.vocab) continue;
      r.Mask(b, FirstK(row, k, true));
      r.Set("top_k", b, 0.0f);
    }
    return std::move(r.c);
  }
};

}  // namespace

SAMPCHECK_WRONG_SAMPLER(TopPOffByOne, {{"top_p_off_by_one", "the nucleus keeps one token past the top-p boundary", "stats/pipeline/top_p_inside_v100/", "L1"},
       [] { return std::make_unique<TopPOffByOne>(); }});
SAMPCHECK_WRONG_SAMPLER(TopKDropsTies, {{"top_k_drops_ties", "vllm top-k keeps exactly k tokens, dropping ties at the k-th value",
        "stats/pipeline/top_k_ties_v1023/vllm", "L2"},
       [] { return std::make_unique<TopKDropsTies>(); }});
SAMPCHECK_WRONG_SAMPLER(TemperatureAfterSoftmax, {{"temperature_after_softmax", "temperature divides the probabilities and renormalising cancels it",
        "stats/pipeline/temperature_v50/", "L3"},
       [] { return std::make_unique<TemperatureAfterSoftmax>(); }});
SAMPCHECK_WRONG_SAMPLER(MinPWrongMax, {{"min_p_wrong_max", "min-p's threshold against the second largest probability", "stats/pipeline/min_p_v100/", "L1"},
       [] { return std::make_unique<MinPWrongMax>(); }});
SAMPCHECK_WRONG_SAMPLER(TieBreakHighestIndex, {{"tie_break_highest_index", "greedy and top-k ties prefer the highest index", "stats/pipeline/top_k_ties_v1023/canonical",
        "L1"},
       [] { return std::make_unique<TieBreakHighestIndex>(); }});

}  // namespace sampcheck::statistical
