// SPDX-License-Identifier: Apache-2.0
// Exact target distributions and ambiguous tokens (statistical/exact_target.h).
#include "statistical/exact_target.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>

#include "core/profile.h"
#include "core/stage_catalogue.h"
#include "reference/ascend_top_k_top_p_sample_v2.h"
#include "reference/flashinfer_sampling_from_probs.h"
#include "reference/pipeline.h"
#include "reference/sampling_filters.h"
#include "reference/stage_io.h"
#include "statistical/detail/numeric.h"
#include "statistical/spec_first_token.h"

namespace sampcheck::statistical {
namespace {

using detail::kNegInf;

std::vector<float> RowsAsF32(const Case& c, const std::string& name) {
  auto it = c.inputs.find(name);
  if (it == c.inputs.end()) {
    throw std::invalid_argument("exact target of case '" + c.id + "': missing input '" + name + "'");
  }
  if (it->second.rank() != 2) {
    throw std::invalid_argument("exact target of case '" + c.id + "': input '" + name + "' must be [B, V]");
  }
  const Tensor f = reference::UpcastToF32(it->second, name);
  const auto d = f.data<float>();
  return {d.begin(), d.end()};
}

// p_i proportional to exp(s_i - max) over tokens with a finite score, in long double.
std::vector<double> SoftmaxExact(std::span<const float> scores) {
  long double max = -std::numeric_limits<long double>::infinity();
  for (float s : scores) {
    if (s != kNegInf) max = std::max(max, static_cast<long double>(s));
  }
  std::vector<long double> w(scores.size(), 0.0L);
  long double sum = 0.0L;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (scores[i] == kNegInf) continue;
    w[i] = std::exp(static_cast<long double>(scores[i]) - max);
    sum += w[i];
  }
  std::vector<double> p(scores.size(), 0.0);
  if (!(sum > 0.0L)) return p;
  for (std::size_t i = 0; i < scores.size(); ++i) p[i] = static_cast<double>(w[i] / sum);
  return p;
}

std::vector<double> NormaliseExact(std::span<const float> weights) {
  long double sum = 0.0L;
  for (float w : weights) sum += w;
  std::vector<double> p(weights.size(), 0.0);
  if (!(sum > 0.0L)) return p;
  for (std::size_t i = 0; i < weights.size(); ++i) p[i] = static_cast<double>(weights[i] / sum);
  return p;
}

bool NearButNotEqual(long double value, long double threshold) {
  return value != threshold && std::fabs(value - threshold) <= kAmbiguityTolerance * std::fabs(threshold);
}

Tensor OneRow(const Tensor& t, std::int64_t b) {
  Shape shape = t.shape();
  shape[0] = 1;
  Tensor out(t.dtype(), shape);
  const std::size_t row_bytes = out.nbytes();
  std::copy_n(t.bytes().data() + static_cast<std::size_t>(b) * row_bytes, row_bytes, out.bytes().data());
  return out;
}

// The kept set of the reference's sampling_filters on one row of scaled logits, with the
// filter tensors of row b (absent ones stay absent, or are overridden to disabled values).
std::vector<float> FilterRow(const Case& c, Profile profile, std::span<const float> scaled, std::int64_t b,
                             bool disable_top_p, bool disable_min_p) {
  Case f{c.id + " (filters)", "sampling_filters", c.profile, nlohmann::json::object(), {}};
  if (c.params.contains("order")) f.params["order"] = c.params["order"];
  f.inputs.emplace("logits", Tensor::FromValues<float>(DType::kF32, {1, static_cast<std::int64_t>(scaled.size())},
                                                      {scaled.begin(), scaled.end()}));
  for (const char* name : {"top_k", "top_p", "min_p"}) {
    auto it = c.inputs.find(name);
    if (it == c.inputs.end()) continue;
    if ((disable_top_p && std::string(name) == "top_p") || (disable_min_p && std::string(name) == "min_p")) continue;
    f.inputs.emplace(name, OneRow(it->second, b));
  }
  const TensorMap out = reference::RunSamplingFilters(f, profile);
  const auto d = out.at("logits").data<float>();
  return {d.begin(), d.end()};
}

float FilterValue(const Case& c, const char* name, std::int64_t b, float disabled) {
  auto it = c.inputs.find(name);
  if (it == c.inputs.end()) return disabled;
  const Tensor f = reference::UpcastToF32(it->second, name);
  return f.data<float>()[static_cast<std::size_t>(b)];
}

std::string FilterOrder(const Case& c, Profile profile) {
  if (c.params.contains("order")) return c.params["order"].get<std::string>();
  switch (profile) {
    case Profile::kVllm: return "min_p_first";
    case Profile::kSglang: return "joint";
    default: return "top_k_first";
  }
}

std::vector<std::int64_t> AmbiguousTokens(const Case& c, Profile profile, std::span<const float> scaled,
                                          std::int64_t b) {
  std::set<std::int64_t> ambiguous;
  const std::size_t v = scaled.size();
  const float min_p = FilterValue(c, "min_p", b, 0.0f);
  if (min_p > 0.0f && min_p < 1.0f) {
    long double max = -std::numeric_limits<long double>::infinity();
    for (float s : scaled) max = std::max(max, static_cast<long double>(s));
    for (std::size_t i = 0; i < v; ++i) {
      const long double ratio = std::exp(static_cast<long double>(scaled[i]) - max);
      if (NearButNotEqual(ratio, min_p)) ambiguous.insert(static_cast<std::int64_t>(i));
    }
  }
  const float top_p = FilterValue(c, "top_p", b, 1.0f);
  if (top_p < 1.0f) {
    const std::string order = FilterOrder(c, profile);
    std::vector<float> reads;
    if (order == "joint") {
      reads.assign(scaled.begin(), scaled.end());
    } else {
      reads = FilterRow(c, profile, scaled, b, /*disable_top_p=*/true, /*disable_min_p=*/order != "min_p_first");
    }
    std::vector<std::int64_t> order_ids;
    for (std::size_t i = 0; i < v; ++i) {
      if (reads[i] != kNegInf) order_ids.push_back(static_cast<std::int64_t>(i));
    }
    std::stable_sort(order_ids.begin(), order_ids.end(), [&](std::int64_t a, std::int64_t x) {
      return reads[static_cast<std::size_t>(a)] > reads[static_cast<std::size_t>(x)];
    });
    // Sums of the long double weights (not of the rounded doubles).
    long double max = -std::numeric_limits<long double>::infinity();
    for (float s : reads) max = std::max(max, static_cast<long double>(s));
    long double total = 0.0L;
    for (std::int64_t i : order_ids) total += std::exp(static_cast<long double>(reads[static_cast<std::size_t>(i)]) - max);
    long double before = 0.0L;
    for (std::int64_t i : order_ids) {
      const long double w = std::exp(static_cast<long double>(reads[static_cast<std::size_t>(i)]) - max) / total;
      const long double including = before + w;
      if (NearButNotEqual(before, top_p) || NearButNotEqual(including, top_p)) ambiguous.insert(i);
      before = including;
      if (before > static_cast<long double>(top_p) * (1.0L + 2.0L * kAmbiguityTolerance)) break;
    }
  }
  return {ambiguous.begin(), ambiguous.end()};
}

// The pipeline's distribution as the reference composes it (reference/pipeline.h): a greedy
// row is its greedy token; a random row draws exp(s_i - s_max) over the tokens its filters
// keep (every token on SGLang's unfiltered path, where no filter runs).
ExactTarget PipelineTarget(const Case& c) {
  const Profile profile = c.profile;
  const reference::PipelineDistribution d = reference::ComposePipeline(c, profile, reference::ReferencePipelineStages());
  const std::int64_t rows = d.rows(), vocab = d.vocab();
  ExactTarget target;
  target.vocab = vocab;
  for (std::int64_t b = 0; b < rows; ++b) {
    RowTarget row;
    if (const std::int64_t pinned = d.Pinned(b); pinned >= 0) {
      row.greedy_token = pinned;
      row.p.assign(static_cast<std::size_t>(vocab), 0.0);
      row.p[static_cast<std::size_t>(row.greedy_token)] = 1.0;
      target.rows.push_back(std::move(row));
      continue;
    }
    const auto at = static_cast<std::size_t>(b * vocab), n = static_cast<std::size_t>(vocab);
    const auto scaled_row = d.scaled.data<float>().subspan(at, n);
    row.p = SoftmaxExact(d.sglang_unfiltered ? scaled_row : d.masked.data<float>().subspan(at, n));
    row.ambiguous = AmbiguousTokens(c, profile, scaled_row, b);
    target.rows.push_back(std::move(row));
  }
  return target;
}

// ascend_top_k_top_p_sample_v2 (docs/spec/ascend_top_k_top_p_sample_v2.md): the op's QSample
// is a race of probs[L[j]] against Exp(1) noise over the survivor list L, so token L[j] is
// drawn with probability proportional to probs[L[j]] (eps moves that by about eps / q, below
// any effect the harness can see). L and probs come from the reference op itself
// (is_need_sample_result), so the filter rules are the op's, not a re-derivation.
ExactTarget AscendTarget(const Case& c) {
  Case s = c;
  s.id = c.id + " (survivors)";
  s.params["is_need_sample_result"] = true;
  s.inputs.erase("q");
  const TensorMap out = reference::RunAscendTopKTopPSampleV2(s, Profile::kAscendV2);
  const Tensor& probs = out.at("logits_sort_masked");
  const Tensor& ids = out.at("logits_idx");
  const std::int64_t rows = probs.dim(0), vocab = probs.dim(1);
  const bool logits_in = !c.params.contains("input_is_logits") || c.params["input_is_logits"].get<bool>();
  const std::vector<float> values = RowsAsF32(c, "logits");
  ExactTarget target;
  target.vocab = vocab;
  for (std::int64_t b = 0; b < rows; ++b) {
    std::vector<float> weights(static_cast<std::size_t>(vocab), 0.0f);
    for (std::int64_t j = 0; j < vocab; ++j) {
      const std::int64_t id = ids.data<std::int64_t>()[static_cast<std::size_t>(b * vocab + j)];
      if (id < 0) break;
      weights[static_cast<std::size_t>(id)] = probs.data<float>()[static_cast<std::size_t>(b * vocab + j)];
    }
    RowTarget r;
    r.p = NormaliseExact(weights);
    if (std::all_of(r.p.begin(), r.p.end(), [](double x) { return x == 0.0; })) {
      throw std::invalid_argument("exact target of case '" + c.id + "': row " + std::to_string(b) + " has no drawable token");
    }
    // Near-threshold tokens: top-p and min-p as sampling_filters (ascend_v2) reads them, which
    // is the op's own softmax of the top-k survivors (reference/ascend_top_k_top_p_sample_v2.h).
    if (logits_in) {
      const std::span<const float> row(values.data() + b * vocab, static_cast<std::size_t>(vocab));
      r.ambiguous = AmbiguousTokens(c, Profile::kAscendV2, row, b);
    }
    target.rows.push_back(std::move(r));
  }
  return target;
}

// flashinfer_sampling_from_probs (docs/spec/flashinfer_sampling_from_probs.md "Law"): a valid
// row draws probs restricted to the kernel's accepted set, renormalised (rejection sampling
// from the probabilities above a rising threshold accepts exactly that set). The set comes
// from the reference's own f32 sums; a token whose exact mass above it lies within
// kAmbiguityTolerance of top_p (and that passes top-k) is ambiguous; under top_k_first that
// mass is taken in the top-k-renormalised row top-p reads.
ExactTarget FlashinferTarget(const Case& c) {
  const std::vector<float> values = RowsAsF32(c, "probs");
  const Tensor& t = c.inputs.at("probs");
  const std::int64_t rows = t.dim(0), vocab = t.dim(1);
  ExactTarget target;
  target.vocab = vocab;
  for (std::int64_t b = 0; b < rows; ++b) {
    const std::span<const float> row(values.data() + b * vocab, static_cast<std::size_t>(vocab));
    const reference::FlashinferRowParams f = reference::FlashinferParamsOfRow(c, b);
    const std::vector<bool> keep = reference::FlashinferSurvivors(row, f);
    std::vector<float> weights(row.size(), 0.0f);
    for (std::size_t i = 0; i < row.size(); ++i) weights[i] = keep[i] ? row[i] : 0.0f;
    RowTarget r;
    r.p = NormaliseExact(weights);
    if (std::all_of(r.p.begin(), r.p.end(), [](double x) { return x == 0.0; })) {
      throw std::invalid_argument("exact target of case '" + c.id + "': row " + std::to_string(b) +
                                  " is invalid (no token passes the kernel's rule)");
    }
    const bool uses_p = f.kernel == reference::FlashinferKernel::kTopKTopP || f.kernel == reference::FlashinferKernel::kTopP;
    const bool uses_k = f.kernel == reference::FlashinferKernel::kTopKTopP;
    // top_k_first: top-p reads the top-k survivors renormalised, so the exact mass above a
    // token is the survivors' mass above it over the survivors' total.
    long double kept_total = 1.0L;
    if (f.top_k_first) {
      kept_total = 0.0L;
      for (float x : row) {
        std::uint64_t greater = 0;
        for (float y : row) greater += y > x ? 1 : 0;
        if (x > 0.0f && greater < f.top_k) kept_total += x;
      }
    }
    for (std::size_t i = 0; uses_p && i < row.size(); ++i) {
      if (!(row[i] > 0.0f)) continue;
      long double mass = 0.0L;
      std::uint64_t count = 0;
      for (float x : row) {
        if (x > row[i]) {
          mass += x;
          ++count;
        }
      }
      if (uses_k && !(count < f.top_k)) continue;
      if (kept_total > 0.0L) mass /= kept_total;
      const long double p = f.top_p;
      if (mass != p && std::fabs(mass - p) <= kAmbiguityTolerance * std::fabs(p)) r.ambiguous.push_back(static_cast<std::int64_t>(i));
    }
    target.rows.push_back(std::move(r));
  }
  return target;
}

}  // namespace

bool HasExactTarget(const std::string& stage) {
  const StageInfo* info = FindStage(stage);
  return info != nullptr && info->draw.draws();
}

ExactTarget ComputeExactTarget(const Case& c) {
  const StageInfo& info = RequireStage(c.stage);
  switch (info.draw.target) {
    case ExactTargetKind::kPipeline: return PipelineTarget(c);
    case ExactTargetKind::kSpecFirstToken: return SpecFirstTokenTarget(c);  // statistical/spec_first_token.h
    case ExactTargetKind::kAscendSurvivors: return AscendTarget(c);
    case ExactTargetKind::kFlashinferSurvivors: return FlashinferTarget(c);
    case ExactTargetKind::kNormalisedProbs:
    case ExactTargetKind::kSoftmaxScores: break;
    case ExactTargetKind::kNone:
      throw std::invalid_argument("exact target: stage '" + c.stage + "' does not draw (its catalogue entry has no exact target)");
  }
  const bool scores = info.draw.target == ExactTargetKind::kSoftmaxScores;
  const TensorSpec* input = info.InputWithRole(scores ? Role::kScores : Role::kProbs);
  if (input == nullptr) {
    throw std::logic_error("stage catalogue: stage '" + c.stage + "' draws from " +
                           std::string(scores ? "scores" : "probabilities") + " but names no such input");
  }
  const std::vector<float> values = RowsAsF32(c, input->name);
  const Tensor& t = c.inputs.at(input->name);
  const std::int64_t rows = t.dim(0), vocab = t.dim(1);
  ExactTarget target;
  target.vocab = vocab;
  for (std::int64_t b = 0; b < rows; ++b) {
    const std::span<const float> row(values.data() + b * vocab, static_cast<std::size_t>(vocab));
    for (float x : row) {
      if (std::isnan(x) || (!scores && (x < 0.0f || std::isinf(x))) || (scores && x == std::numeric_limits<float>::infinity())) {
        throw std::invalid_argument("exact target of case '" + c.id + "': row " + std::to_string(b) + " holds " +
                                    reference::FormatFloat(x));
      }
    }
    RowTarget r;
    r.p = scores ? SoftmaxExact(row) : NormaliseExact(row);
    if (std::all_of(r.p.begin(), r.p.end(), [](double x) { return x == 0.0; })) {
      throw std::invalid_argument("exact target of case '" + c.id + "': row " + std::to_string(b) + " has no drawable token");
    }
    target.rows.push_back(std::move(r));
  }
  return target;
}

}  // namespace sampcheck::statistical
