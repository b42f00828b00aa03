// SPDX-License-Identifier: Apache-2.0
// Deliberately wrong samplers (statistical/wrong_samplers.h).
#include "statistical/wrong_samplers.h"

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
#include "statistical/wrong_degenerate_rows.h"
#include "statistical/wrong_exact_stages.h"

namespace sampcheck::statistical {
namespace {

using detail::kNegInf;

// The stages a planted bug targets, found by their catalogue roles (the exact law their token
// follows) rather than by name: kPipeline is the pipeline.
bool DrawsTo(const std::string& stage, ExactTargetKind target) {
  const StageInfo* s = FindStage(stage);
  return s != nullptr && s->draw.target == target;
}

// Speculative rejection sampling on given probabilities (spec_random): the first-token law over
// a kProbs target (the whole speculative step also draws its first token, from logits).
bool IsSpecOnProbs(const std::string& stage) {
  const StageInfo* s = FindStage(stage);
  return s != nullptr && s->draw.target == ExactTargetKind::kSpecFirstToken && s->DistributionInput() != nullptr &&
         s->DistributionInput()->role == Role::kProbs;
}

// An exponential race over the stage's probabilities: the normalised-probs law drawn with
// Exp(1) noise (exponential_race, and Ascend's qsample, whose |q| + eps is the same race).
bool IsExponentialRace(const std::string& stage) {
  const StageInfo* s = FindStage(stage);
  return s != nullptr && s->draw.target == ExactTargetKind::kNormalisedProbs &&
         s->draw.noise == HarnessNoise::kExponential;
}

// The reference with a case transformation in front of Run and CountDraws.
class WrappingBackend : public Backend {
 public:
  explicit WrappingBackend(std::string name) : name_("wrong:" + std::move(name)) {}
  std::string Name() const override { return name_; }
  std::vector<std::string> SupportedStages() const override { return ref_.SupportedStages(); }
  TensorMap Run(const std::string& stage, const Case& c) override { return ref_.Run(stage, Transform(stage, c, false)); }
  // The case as the fault hands it to the reference's Run (SizedFaultTv).
  Case AsRun(const std::string& stage, const Case& c) { return Transform(stage, c, false); }
  // The reference's, but no ranges: the planted bugs are in front of CountDraws only.
  StageCapabilities Capabilities(const std::string& stage) const override {
    StageCapabilities caps = ref_.Capabilities(stage);
    caps.count_draws_range = false;
    return caps;
  }
  Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override {
    return ref_.CountDraws(stage, Transform(stage, c, true), draws, seed);
  }

 protected:
  virtual Case Transform(const std::string& /*stage*/, const Case& c, bool /*own_randomness*/) { return c; }
  reference::ReferenceBackend ref_;

 private:
  std::string name_;
};

// Mutable f32 / i32 views of a pipeline case's per-row tensors.
struct PipelineRows {
  Case c;
  std::int64_t rows = 0, vocab = 0;
  std::span<float> logits;

  explicit PipelineRows(const Case& in) : c(in) {
    Tensor l = reference::UpcastToF32(c.inputs.at("logits"), "logits");
    rows = l.dim(0);
    vocab = l.dim(1);
    c.inputs.erase("logits");
    c.inputs.emplace("logits", std::move(l));
    logits = c.inputs.at("logits").data<float>();
  }
  std::span<float> Row(std::int64_t b) { return logits.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab)); }
  float Get(const char* name, std::int64_t b, float absent) const {
    auto it = c.inputs.find(name);
    if (it == c.inputs.end()) return absent;
    if (it->second.dtype() == DType::kI32) return static_cast<float>(it->second.data<std::int32_t>()[static_cast<std::size_t>(b)]);
    return reference::UpcastToF32(it->second, name).data<float>()[static_cast<std::size_t>(b)];
  }
  void Set(const char* name, std::int64_t b, float value) {
    auto it = c.inputs.find(name);
    if (it == c.inputs.end()) return;
    if (it->second.dtype() == DType::kI32) {
      it->second.data<std::int32_t>()[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(value);
    } else if (it->second.dtype() == DType::kF32) {
      it->second.data<float>()[static_cast<std::size_t>(b)] = value;
    }
  }
  // Keeps only the tokens with keep[i], as -inf logits elsewhere.
  void Mask(std::int64_t b, const std::vector<bool>& keep) {
    auto row = Row(b);
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (!keep[i]) row[i] = kNegInf;
    }
  }
};

// Token ids in the filter order: larger value first, ties by lower (or higher) index.
std::vector<std::int64_t> Order(std::span<const float> row, bool higher_index_first) {
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (row[i] != kNegInf) ids.push_back(static_cast<std::int64_t>(i));
  }
  std::sort(ids.begin(), ids.end(), [&](std::int64_t a, std::int64_t b) {
    const float va = row[static_cast<std::size_t>(a)], vb = row[static_cast<std::size_t>(b)];
    if (va != vb) return va > vb;
    return higher_index_first ? a > b : a < b;
  });
  return ids;
}

std::vector<bool> FirstK(std::span<const float> row, std::int64_t k, bool higher_index_first) {
  std::vector<bool> keep(row.size(), false);
  const auto ids = Order(row, higher_index_first);
  for (std::int64_t j = 0; j < k && j < static_cast<std::int64_t>(ids.size()); ++j) keep[static_cast<std::size_t>(ids[static_cast<std::size_t>(j)])] = true;
  return keep;
}

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

// The case with each input of `stage` whose catalogue role is in `roles` upcast to f32 and
// rewritten row by row (a row: the last dimension) by fn(row, role); inputs of rank < 2 and
// absent optional inputs are left alone.
template <class Fn>
Case RewriteRows(const std::string& stage, const Case& in, std::initializer_list<Role> roles, Fn fn) {
  Case c = in;
  for (const auto& spec : RequireStage(stage).inputs) {
    if (std::find(roles.begin(), roles.end(), spec.role) == roles.end()) continue;
    auto it = c.inputs.find(spec.name);
    if (it == c.inputs.end() || it->second.rank() < 2) continue;
    Tensor x = reference::UpcastToF32(it->second, spec.name);
    const auto vocab = static_cast<std::size_t>(x.dim(x.rank() - 1));
    auto data = x.data<float>();
    for (std::size_t off = 0; vocab > 0 && off + vocab <= data.size(); off += vocab) fn(data.subspan(off, vocab), spec.role);
    c.inputs.erase(it);
    c.inputs.emplace(spec.name, std::move(x));
  }
  return c;
}

// A diffuse fault: every logit (or score) scaled by t, every probability raised to t, before
// the stage runs, so the drawn law is p^t / sum p^t (a temperature off by the factor 1/t).
// The input roles come from the catalogue; the pipeline's logits are scaled before its
// penalties and filters (on temperature_v50, which has neither, exactly p^t).
class LogitsScaled final : public WrappingBackend {
 public:
  LogitsScaled(std::string name, double t) : WrappingBackend(std::move(name)), t_(t) {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    return RewriteRows(stage, in, {Role::kLogits, Role::kScores, Role::kProbs}, [this](std::span<float> row, Role role) {
      for (float& v : row) {
        if (role == Role::kProbs) {
          v = v > 0.0f ? static_cast<float>(std::pow(static_cast<double>(v), t_)) : v;
        } else if (std::isfinite(v)) {
          v = static_cast<float>(static_cast<double>(v) * t_);
        }
      }
    });
  }

 private:
  double t_;
};

// The least favourable diffuse fault at total variation tau for the omnibus test: every
// probability scaled by 1 + 2 tau or 1 - 2 tau, the + tokens the most probable ones up to half
// the row's mass, so that |p' - p| / p is the same everywhere (the Cauchy–Schwarz bound
// 4 TV^2 <= w^2 is then an equality: the chi-square noncentrality is the smallest any fault of
// that TV can have). When the + tokens hold exactly half the mass (the dyadic rows), p' needs
// no renormalisation and its TV is exactly tau. Probabilities are multiplied, logits and
// scores shifted by ln(1 +- 2 tau); the law is taken as the row's softmax for those.
class DiffuseTv final : public WrappingBackend {
 public:
  DiffuseTv(std::string name, double tau) : WrappingBackend(std::move(name)), tau_(tau) {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    return RewriteRows(stage, in, {Role::kLogits, Role::kScores, Role::kProbs}, [this](std::span<float> row, Role role) {
      const bool probs = role == Role::kProbs;
      std::vector<double> w(row.size(), 0.0);
      double max = -HUGE_VAL, sum = 0.0;
      for (float v : row) max = std::max(max, static_cast<double>(v));
      for (std::size_t i = 0; i < row.size(); ++i) {
        if (probs) w[i] = row[i] > 0.0f ? row[i] : 0.0;
        else if (std::isfinite(row[i])) w[i] = std::exp(static_cast<double>(row[i]) - max);
        sum += w[i];
      }
      if (!(sum > 0.0)) return;
      double head = 0.0;
      for (std::int64_t i : Order(row, false)) {
        const auto k = static_cast<std::size_t>(i);
        if (!(w[k] > 0.0)) continue;
        const bool up = head + w[k] / sum <= 0.5 + 1e-12;
        if (up) head += w[k] / sum;
        const double f = up ? 1.0 + 2.0 * tau_ : 1.0 - 2.0 * tau_;
        row[k] = probs ? static_cast<float>(row[k] * f) : static_cast<float>(row[k] + std::log(f));
      }
    });
  }

 private:
  double tau_;
};

// A concentrated fault: in each row of a kProbs input, a total variation tau moved from the
// third most probable token to the fourth (ties by lower index), everything else left alone;
// weights are rescaled by the row sum, so the move is tau of the normalised law. A third token
// lighter than tau gives up all it has (the fault is then smaller than its name).
class MassShift final : public WrappingBackend {
 public:
  MassShift(std::string name, double tau) : WrappingBackend(std::move(name)), tau_(tau) {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    return RewriteRows(stage, in, {Role::kProbs}, [this](std::span<float> row, Role) {
      if (row.size() < 4) return;
      const auto ids = Order(row, false);
      double sum = 0.0;
      for (float v : row) sum += v;
      const auto from = static_cast<std::size_t>(ids[2]), to = static_cast<std::size_t>(ids[3]);
      const double moved = std::min(tau_ * sum, static_cast<double>(row[from]));
      row[from] = static_cast<float>(row[from] - moved);
      row[to] = static_cast<float>(row[to] + moved);
    });
  }

 private:
  double tau_;
};

// A leak: in each row of a kProbs input that has zero entries, those entries share the weight
// m times the row's sum equally, the positive entries left alone: after normalisation a draw
// lands on a token the law excludes with probability m / (1 + m). Rows without a zero entry
// are unchanged (a leak into a filtered logit is the top_p_off_by_one kind).
class Leak final : public WrappingBackend {
 public:
  Leak(std::string name, double mass) : WrappingBackend(std::move(name)), mass_(mass) {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    return RewriteRows(stage, in, {Role::kProbs}, [this](std::span<float> row, Role) {
      double sum = 0.0;
      std::size_t zeros = 0;
      for (float v : row) {
        if (v > 0.0f) sum += v;
        else if (v == 0.0f) ++zeros;
      }
      if (zeros == 0 || !(sum > 0.0)) return;
      const auto each = static_cast<float>(mass_ * sum / static_cast<double>(zeros));
      for (float& v : row) v = v == 0.0f ? each : v;
    });
  }

 private:
  double mass_;
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

class BatchDependentSeed final : public WrappingBackend {
 public:
  BatchDependentSeed() : WrappingBackend("batch_dependent_seed") {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    if (!DrawsTo(stage, ExactTargetKind::kPipeline) || !in.inputs.count("seed")) return in;
    Case c = in;
    auto seeds = c.inputs.at("seed").data<std::int64_t>();
    for (std::size_t b = 0; b < seeds.size(); ++b) {
      seeds[b] = static_cast<std::int64_t>(static_cast<std::uint64_t>(seeds[b]) + b);  // the slot leaks in
    }
    return c;
  }
};

// Own-randomness samplers for exponential_race: per-row draws from a function of (probs, rng).
class OwnRaceBackend : public WrappingBackend {
 public:
  using WrappingBackend::WrappingBackend;
  Tensor CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) override {
    if (!IsExponentialRace(stage)) return WrappingBackend::CountDraws(stage, c, draws, seed);
    reference::StageInputs in(c, stage);
    const Tensor probs = in.Probabilities();
    const std::int64_t rows = probs.dim(0), vocab = probs.dim(1);
    Tensor counts(DType::kI64, {rows, vocab});
    auto out = counts.data<std::int64_t>();
    for (std::int64_t b = 0; b < rows; ++b) {
      const auto row = probs.data<float>().subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
      for (std::int64_t d = 0; d < draws; ++d) {
        ++out[static_cast<std::size_t>(b * vocab + DrawOne(row, seed, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(d)))];
      }
    }
    return counts;
  }

 protected:
  virtual std::int64_t DrawOne(std::span<const float> probs, std::uint64_t seed, std::uint32_t row, std::uint32_t draw) = 0;
};

class Uniform16Bit final : public OwnRaceBackend {
 public:
  Uniform16Bit() : OwnRaceBackend("uniform_16bit") {}

 protected:
  std::int64_t DrawOne(std::span<const float> probs, std::uint64_t seed, std::uint32_t row, std::uint32_t draw) override {
    std::vector<float> q(probs.size());
    for (std::size_t i = 0; i < probs.size(); ++i) {
      const std::uint32_t w = rng::StreamWord(rng::Stream::kWrongUniform16, seed, static_cast<std::uint32_t>(i / 4), draw, row,
                                              static_cast<std::uint32_t>(i % 4));
      const float u = static_cast<float>(w >> 16) * 0x1p-16f;  // the bug: 16 bits
      q[i] = rng::ExponentialNegLog1pNegF32(u);                // u = 0 -> q = +0 -> ratio +inf
    }
    std::int64_t best = -1;
    float best_ratio = 0.0f;
    for (std::size_t i = 0; i < probs.size(); ++i) {
      if (!(probs[i] > 0.0f)) continue;
      const float r = probs[i] / q[i];
      if (best < 0 || r > best_ratio) best = static_cast<std::int64_t>(i), best_ratio = r;
    }
    return best;
  }
};

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

// The noise stage's Exp(1) samples scaled by 1.05 (mean 1.05; F(x / 1.05) is off by up to
// 0.05 / e = 0.018 in KS distance, beyond the declared 0.01). Found by the catalogue's noise
// role, so the bug follows the stage whatever it is called.
class ExponentialNoiseScaled final : public WrappingBackend {
 public:
  ExponentialNoiseScaled() : WrappingBackend("exponential_noise_scaled") {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    TensorMap out = WrappingBackend::Run(stage, c);
    const StageInfo* info = FindStage(stage);
    const TensorSpec* noise = info != nullptr ? info->OutputWithRole(Role::kNoise) : nullptr;
    if (noise == nullptr || !c.params.contains("law") || c.params["law"] != "exponential") return out;
    for (float& x : out.at(noise->name).data<float>()) x *= 1.05f;  // the bug
    return out;
  }
};

// The noise stage's philox Exp(1) (and the Gumbel built on it) with an atom at q = +0 outside
// the law's range [2^-24, 33 ln 2] (docs/spec/noise.md "The noise harness", endpoint probes):
// - unclamped: q = -log u of curand_uniform's u in (0, 1] without PyTorch's clamp, so u = 1
//   (the 128 words >= 0xffffff80, P = 2^-25) gives q = +0 and g = +inf;
// - closed_open_24bit: q = -log1p(-u) of the 24-bit u = (w >> 8) 2^-24 in [0, 1), the floor
//   convention of the reference's own race applied where the spec says PyTorch's, so the 256
//   words below 2^8 (P = 2^-24) give q = +0.
// Every other sample is within a few ulps of the spec's, so the statistics do not see it; the
// random stream meets the atom with probability 6% (2^-24) or 3% (2^-25) at the CI n.
class NoiseExponentialAtZero final : public WrappingBackend {
 public:
  enum class Kind { kUnclamped, kClosedOpen24Bit };
  NoiseExponentialAtZero(std::string name, Kind kind) : WrappingBackend(std::move(name)), kind_(kind) {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    TensorMap out = WrappingBackend::Run(stage, c);
    const StageInfo* info = FindStage(stage);
    const TensorSpec* noise = info != nullptr ? info->OutputWithRole(Role::kNoise) : nullptr;
    if (noise == nullptr || !c.params.contains("law") || c.params["law"] == "uniform") return out;
    if (c.params.contains("generator") && c.params["generator"] != "philox") return out;
    const bool gumbel = c.params["law"] == "gumbel";
    Tensor& t = out.at(noise->name);
    const std::int64_t rows = t.shape()[0], n = t.shape()[1];
    const auto seeds = c.inputs.at("seed").data<std::int64_t>();
    const auto offsets = c.inputs.at("offset").data<std::int64_t>();
    auto v = t.data<float>();
    for (std::int64_t b = 0; b < rows; ++b) {
      for (std::int64_t i = 0; i < n; ++i) {
        const std::uint32_t w = rng::CurandPhiloxWord(static_cast<std::uint64_t>(seeds[static_cast<std::size_t>(b)]), 0,
                                                      static_cast<std::uint64_t>(offsets[static_cast<std::size_t>(b)] + i));
        // The bug: q = +0 at the atom (0.0f - log: +0, not -0, for u = 1).
        const float q = kind_ == Kind::kUnclamped ? 0.0f - math::LogF32Cr(rng::UniformOpenClosedCurandF32(w))
                                                  : rng::ExponentialNegLog1pNegF32(rng::UniformClosedOpen24F32(w));
        v[static_cast<std::size_t>(b * n + i)] = gumbel ? -math::LogF32Cr(q) : q;
      }
    }
    return out;
  }

 private:
  Kind kind_;
};

// Tail-amplifier group (docs/spec/harness.md "Tail amplifiers"): an exponential race whose
// uniform is converted wrongly (to_u), so its floor differs from the reference's
// UniformClosedOpen24F32 (u in [0, 1 - 2^-24], q = +0 with probability 2^-24). Everything else
// as the reference: q = -log1p(-u), the largest f32 ratio probs / q, ties to the lower index.
class UniformFloorFault final : public OwnRaceBackend {
 public:
  UniformFloorFault(std::string name, float (*to_u)(std::uint32_t)) : OwnRaceBackend(std::move(name)), to_u_(to_u) {}

 protected:
  std::int64_t DrawOne(std::span<const float> probs, std::uint64_t seed, std::uint32_t row, std::uint32_t draw) override {
    // The words of StreamBlock(kWrongUniform16, seed, i / 4, draw, row), all blocks of the row
    // at once in SIMD lanes (bit-identical to the scalar Philox).
    const std::size_t blocks = (probs.size() + 3) / 4;
    ctr_.resize(blocks);
    words_.resize(blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
      ctr_[b] = {{static_cast<std::uint32_t>(b), draw, row, static_cast<std::uint32_t>(rng::Stream::kWrongUniform16)}};
    }
    rng::PhiloxLanes(ctr_, rng::SeedKey(seed), words_, isa_);
    std::int64_t best = -1;
    float best_ratio = 0.0f;
    for (std::size_t i0 = 0; i0 < probs.size(); i0 += 4) {
      const auto& words = words_[i0 / 4];
      for (std::size_t i = i0; i < std::min(probs.size(), i0 + 4); ++i) {
        if (!(probs[i] > 0.0f)) continue;
        const float u = to_u_(words.v[i - i0]);
        // -log1p(-u) >= u and u is a float, so the f32 ratio is at most RN(p / u): a token
        // that cannot beat the best (ties go to the lower index, met first) skips the log.
        if (best >= 0 && u > 0.0f && !(probs[i] / u > best_ratio)) continue;
        const float r = probs[i] / rng::ExponentialNegLog1pNegF32(u);  // u = 1: +inf, ratio 0
        if (best < 0 || r > best_ratio) best = static_cast<std::int64_t>(i), best_ratio = r;
      }
    }
    return best;
  }

 private:
  float (*to_u_)(std::uint32_t);
  rng::PhiloxIsa isa_ = rng::BestPhiloxIsa();
  std::vector<rng::Philox4x32Block> ctr_, words_;
};

// One bit short: (w >> 9) 2^-23 in [0, 1 - 2^-23], so q = +0 with probability 2^-23.
float Uniform23Bit(std::uint32_t w) { return static_cast<float>(w >> 9) * 0x1p-23f; }
// An endpoint let through: ((w >> 8) + 1) 2^-24 in [2^-24, 1], so u = 1 (q = +inf) with
// probability 2^-24 and never q = +0.
float UniformOpenClosed24(std::uint32_t w) { return static_cast<float>((w >> 8) + 1u) * 0x1p-24f; }

// Probabilities rounded to f16 before the draw (through Run and CountDraws): values below
// 2^-25 become 0, subnormal ones move to a multiple of 2^-24.
class ProbsF16 final : public WrappingBackend {
 public:
  ProbsF16() : WrappingBackend("probs_f16") {}

 protected:
  Case Transform(const std::string& stage, const Case& in, bool) override {
    return RewriteRows(stage, in, {Role::kProbs}, [](std::span<float> row, Role) {
      for (float& v : row) v = F16BitsToF32(F32ToF16Bits(v));
    });
  }
};

// SGLang's seeded Gumbel-max (multinomial_with_seed and its token-id variant) with the hash
// converted to f32 before the division: u = RN_f32(h) 2^-32 (`hashed.to(float32) / max`, the
// max rounding to 2^32), so u = 1 (g = 32 ln2, the clamp) for h >= 2^32 - 128, probability
// 2^-25 against the spec's 2^-31 for its two top cells, and the next value is u = 1 - 2^-24
// (g = 16.6). Drawn through Run (the seeds are the case's); CountDraws stays the reference's.
class SglangHashUniformF32 final : public WrappingBackend {
 public:
  SglangHashUniformF32() : WrappingBackend("sglang_hash_uniform_f32") {}
  TensorMap Run(const std::string& stage, const Case& c) override {
    const StageInfo* info = FindStage(stage);
    if (info == nullptr || info->draw.target != ExactTargetKind::kNormalisedProbs || info->draw.noise != HarnessNoise::kSeedPosition) {
      return WrappingBackend::Run(stage, c);
    }
    reference::StageInputs in(c, stage);
    const Tensor probs = in.Probabilities();
    const std::int64_t rows = probs.dim(0), vocab = probs.dim(1);
    const auto seeds = in.Required("seed", DType::kI64, 1).data<std::int64_t>();
    const auto positions = in.Required("positions", DType::kI64, 1).data<std::int64_t>();
    const Tensor* ids = c.inputs.count("token_ids") ? &c.inputs.at("token_ids") : nullptr;
    Tensor token(DType::kI64, {rows});
    for (std::int64_t b = 0; b < rows; ++b) {
      const auto row = probs.data<float>().subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
      std::int64_t best = -1;
      double best_value = 0.0, last_log_p = 0.0, u_floor = 0.0;
      float last_p = -1.0f;
      bool stale = true;  // u_floor is recomputed when the best or log p changes
      for (std::int64_t j = 0; j < vocab; ++j) {
        const float pj = row[static_cast<std::size_t>(j)];
        if (!(pj > 0.0f)) continue;
        const auto column = ids ? static_cast<std::uint32_t>(ids->data<std::int32_t>()[static_cast<std::size_t>(b * vocab + j)])
                                : static_cast<std::uint32_t>(j);
        const std::uint32_t h = rng::SglangMurmurKey(std::bit_cast<std::uint64_t>(seeds[static_cast<std::size_t>(b)]),
                                                     static_cast<std::uint32_t>(positions[static_cast<std::size_t>(b)]), column);
        const float u = static_cast<float>(h) * 0x1p-32f;  // the bug: a 24-bit significand
        if (pj != last_p) last_p = pj, last_log_p = math::LogF64Dd(static_cast<double>(pj)), stale = true;
        // g is increasing in u: g(u) <= best - log p for u <= exp(-exp(-(best - log p))); the
        // 1e-12 margin in u dwarfs the rounding of both sides, so a skipped column cannot win.
        if (best >= 0) {
          if (stale) u_floor = std::exp(-std::exp(-(best_value - last_log_p))) - 1e-12, stale = false;
          if (static_cast<double>(u) < u_floor) continue;
        }
        const double value = last_log_p + rng::GumbelSglangF64(static_cast<double>(u));
        if (best < 0 || value > best_value) best = j, best_value = value, stale = true;
      }
      if (best < 0) in.Fail("row " + std::to_string(b) + " has no positive probability: nothing can be drawn");
      token.data<std::int64_t>()[static_cast<std::size_t>(b)] = best;
    }
    TensorMap out;
    out.emplace("token", std::move(token));
    return out;
  }
};

const std::vector<std::pair<WrongSamplerInfo, std::function<std::unique_ptr<Backend>()>>>& Registry() {
  static const std::vector<std::pair<WrongSamplerInfo, std::function<std::unique_ptr<Backend>()>>> registry = {
      {{"top_p_off_by_one", "the nucleus keeps one token past the top-p boundary", "stats/pipeline/top_p_inside_v100/", "L1"},
       [] { return std::make_unique<TopPOffByOne>(); }},
      {{"top_k_drops_ties", "vllm top-k keeps exactly k tokens, dropping ties at the k-th value",
        "stats/pipeline/top_k_ties_v1023/vllm", "L2"},
       [] { return std::make_unique<TopKDropsTies>(); }},
      {{"temperature_after_softmax", "temperature divides the probabilities and renormalising cancels it",
        "stats/pipeline/temperature_v50/", "L3"},
       [] { return std::make_unique<TemperatureAfterSoftmax>(); }},
      {{"min_p_wrong_max", "min-p's threshold against the second largest probability", "stats/pipeline/min_p_v100/", "L1"},
       [] { return std::make_unique<MinPWrongMax>(); }},
      {{"uniform_16bit", "uniforms truncated to 16 bits in its own exponential race",
        "stats/exponential_race/amplifier_v2/", "L2"},
       [] { return std::make_unique<Uniform16Bit>(); }},
      {{"recovered_from_target", "on rejection of a uniform draft, the recovered token is drawn from p, not the residual",
        "stats/exponential_race/peaked_v100/", "L3"},
       [] { return std::make_unique<RecoveredFromTarget>(); }},
      {{"tie_break_highest_index", "greedy and top-k ties prefer the highest index", "stats/pipeline/top_k_ties_v1023/canonical",
        "L1"},
       [] { return std::make_unique<TieBreakHighestIndex>(); }},
      {{"spec_residual_from_target", "spec_random draws the recovered token from the target p, not the residual max(p - q, 0)",
        "stats/spec_random/small_v4/", "L3"},
       [] { return std::make_unique<SpecResidualFromTarget>(); }},
      {{"batch_dependent_seed", "a seeded row's stream depends on its slot in the batch", "reproducibility", "reproducibility"},
       [] { return std::make_unique<BatchDependentSeed>(); }},
      // A backend's own noise, through the noise stage (statistical/noise_harness.h).
      {{"exponential_noise_scaled", "the noise stage's Exp(1) samples are scaled by 1.05", "noise/philox/exponential/", "noise"},
       [] { return std::make_unique<ExponentialNoiseScaled>(); }},
      {{"noise_exponential_unclamped", "the noise stage's Exp(1) is -log u without PyTorch's clamp: q = +0 at u = 1 (P = 2^-25)",
        "noise/philox/exponential/endpoints", "noise"},
       [] { return std::make_unique<NoiseExponentialAtZero>("noise_exponential_unclamped", NoiseExponentialAtZero::Kind::kUnclamped); }},
      {{"noise_exponential_24bit_zero",
        "the noise stage's Exp(1) is -log1p(-u) of a 24-bit u in [0, 1): an atom q = +0 of 2^-24",
        "noise/philox/exponential/endpoints", "noise"},
       [] {
         return std::make_unique<NoiseExponentialAtZero>("noise_exponential_24bit_zero",
                                                         NoiseExponentialAtZero::Kind::kClosedOpen24Bit);
       }},
      // Exact-tier faults (statistical/wrong_exact_stages.h): rejected by a golden case.
      {{"logprob_rank_off_by_one", "the sampled token's rank misses its +1", "logprobs/edges_n3_raw_logprobs/canonical",
        "golden"},
       MakeLogprobRankOffByOne},
      {{"logprob_top_ranks_dedup", "the top-n ranks after a listed sampled token are one less (the token deduplicated)",
        "logprobs/random_v33_f32_raw_logprobs/", "golden"},
       MakeLogprobTopRanksDedup},
      {{"logprobs_before_temperature", "processed logprobs are taken before the temperature divides the logits",
        "logprobs/random_v33_f32_processed_logprobs/", "golden"},
       MakeLogprobsBeforeTemperature},
      {{"finish_min_tokens_ignored", "the finish rules ignore min_tokens", "finish_rules/edges/vllm", "golden"},
       MakeFinishMinTokensIgnored},
      {{"decode_offset_not_advanced", "decode steps reuse step 0's noise offset", "decode_steps/fresh_noise_v64/", "golden"},
       MakeDecodeOffsetNotAdvanced},
      {{"decode_history_not_updated", "decode steps never add drawn tokens to the penalty history",
        "decode_steps/greedy_history/", "golden"},
       MakeDecodeHistoryNotUpdated},
      {{"decode_seed_from_slot", "a decode-steps row's seed depends on its batch slot", "decode_steps/random_v16_", "golden"},
       MakeDecodeSeedFromSlot},
      // Seeded draws with the backend's own noise, judged by conform's checks (layer "harness").
      {{"vllm_generator_seed_row0", "vLLM's seeded rows all read the seed array at element 0",
        "decode_steps_check/vllm/seeds", "harness"},
       MakeVllmGeneratorSeedRow0},
      {{"vllm_generator_global_noise", "a vLLM batch with an unseeded row draws its seeded rows from the global noise too",
        "decode_steps_check/vllm/seeds", "harness"},
       MakeVllmGeneratorGlobalNoise},
      {{"vllm_generator_offset_stuck", "a vLLM request's generator does not advance across decode steps",
        "decode_steps_check/vllm/fresh_noise", "harness"},
       MakeVllmGeneratorOffsetStuck},
      {{"tp_rank_keyed_noise", "each tensor-parallel rank draws with seed + its rank", "tp_consensus_check/", "harness"},
       MakeTpRankKeyedNoise},
      {{"tp_unseeded_rank_uniforms", "each tensor-parallel rank draws from uniforms no seed keys", "tp_consensus_check/",
        "harness"},
       MakeTpUnseededRankUniforms},
      // FlashInfer's rejection samplers from probabilities (docs/spec/flashinfer_sampling_from_probs.md).
      {{"flashinfer_nan_row_valid", "FlashInfer's samplers flag a NaN row valid",
        "flashinfer_sampling_from_probs/edges_top_p/flashinfer", "golden"},
       MakeFlashinferNanRowValid},
      {{"flashinfer_ignores_top_k", "FlashInfer's joint top-k/top-p sampler ignores top_k",
        "stats/flashinfer_sampling_from_probs/joint_v16/", "L1"},
       MakeFlashinferIgnoresTopK},
      // The whole speculative step (docs/spec/spec_step.md).
      {{"spec_step_unfiltered_draft", "spec_step verifies against unfiltered draft probabilities",
        "spec_step/filtered_draft/canonical", "golden"},
       MakeSpecStepUnfilteredDraft},
      {{"spec_step_stop_ignored", "spec_step ignores stop ids inside the accepted drafts", "spec_step/edges/canonical",
        "golden"},
       MakeSpecStepStopIgnored},
      // The grammar side of the token bitmask (statistical/wrong_exact_stages.h).
      {{"bitmask_fill_stale_tail", "the bitmask fill leaves the reused buffer's bits at and past vocab_size",
        "token_bitmask_fill/mixed_batch_v100/", "golden"},
       MakeBitmaskFillStaleTail},
      {{"bitmask_fill_unguided_zero", "the batch bitmask's unguided rows are all 0 instead of all ones",
        "token_bitmask_fill/mixed_batch_v100/", "golden"},
       MakeBitmaskFillUnguidedZero},
      {{"bitmask_fill_row_stride", "fill writes rows ceil(V / 32) words apart, apply reads them `words` apart",
        "token_bitmask_fill/padded_stride_v100_w8/", "golden"},
       MakeBitmaskFillRowStride},
      {{"bitmask_id_narrowed_i32", "a token id is narrowed to int32 before its bit is tested", "token_bitmask_allowed/wide_ids/",
        "golden"},
       MakeBitmaskIdNarrowedI32},
      {{"bitmask_stop_never_cleared", "stop bits are never cleared while the grammar cannot end",
        "token_bitmask_stop_tokens/stale_stop_bits/", "golden"},
       MakeBitmaskStopNeverCleared},
      // Degenerate rows of the draws (docs/spec/draws.md "Degenerate rows").
      {{"draw_empty_row_pad_lane", "a draw's row with nothing drawable returns a pad lane id >= V",
        "gumbel_max/degenerate_rows_v33/", "golden"},
       MakeDrawEmptyRowPadLane},
      {{"draw_nan_as_constant", "a draw's NaN is replaced by a constant and the row drawn uniformly by its noise",
        "exponential_race/degenerate_rows_v33/", "golden"},
       MakeDrawNanAsConstant},
      // Degenerate rows of spec_random (statistical/wrong_degenerate_rows.h).
      {{"spec_degenerate_row_aborts_batch", "a NaN or +inf target probability makes the whole spec_random batch an error",
        "spec_random/degenerate_rows_v33/", "golden"},
       MakeSpecDegenerateRowAbortsBatch},
      {{"spec_nan_target_as_zero", "spec_random reads a NaN target probability as 0", "spec_random/degenerate_", "golden"},
       MakeSpecNanTargetAsZero},
      {{"spec_empty_row_pad_lane", "spec_random's final token from an all-NaN or all-zero row is a pad lane id >= V",
        "spec_random/degenerate_rows_v33/", "golden"},
       MakeSpecEmptyRowPadLane},
      {{"spec_inf_residual_token_zero", "spec_random's final token from a row holding +inf is 0 (a NaN normalisation)",
        "spec_random/degenerate_rows_v33/", "golden"},
       MakeSpecInfResidualTokenZero},
      {{"pipeline_inf_softmax_token_zero", "the pipeline's softmax turns a +inf into NaN and the draw falls back to token 0",
        "pipeline/degenerate_rows_v33/canonical", "golden"},
       MakePipelineInfSoftmaxTokenZero},
      {{"pipeline_degenerate_row_aborts_batch", "a degenerate row makes the whole pipeline batch an error",
        "pipeline/degenerate_rows_v33/", "golden"},
       MakePipelineDegenerateRowAbortsBatch},
      // Caller ids past the vocabulary (docs/spec/penalties.md "Prompt ids past the vocabulary").
      {{"penalties_prompt_id_clamped", "a prompt id >= V is clamped to V - 1 and penalises the last token",
        "penalties/prompt_id_past_vocab_v33/canonical", "golden"},
       MakePenaltiesPromptIdClamped},
      {{"race_noise_f16", "exponential_race's Exp(1) noise rounded to f16 before the division (q < 2^-25 becomes 0)",
        "exponential_race/narrow_noise_v8_f16/", "golden"},
       MakeRaceNoiseF16},
      {{"gumbel_noise_f16", "gumbel_max's Gumbel noise rounded to f16 before the addition", "gumbel_max/narrow_noise_v8_f16/",
        "golden"},
       MakeGumbelNoiseF16},
      // stages-round4 group: statistical faults of spec_step's vllm and sglang profiles and of
      // FlashInfer's top_k_first order (statistical/wrong_exact_stages.h).
      {{"flashinfer_top_k_first_as_joint", "FlashInfer runs the joint top-k/top-p kernel when top_k_first is asked",
        "stats/flashinfer_sampling_from_probs/top_k_first_v16/", "L1"},
       MakeFlashinferTopKFirstAsJoint},
      {{"flashinfer_joint_as_top_k_first", "FlashInfer runs top_k_first when the joint order is asked",
        "stats/flashinfer_sampling_from_probs/joint_order_v16/", "L3"},
       MakeFlashinferJointAsTopKFirst},
      {{"spec_step_vllm_min_p_verified", "spec_step (vllm) applies min-p at the verified positions, not only the bonus",
        "stats/spec_step/min_p_v8/vllm", "L3"},
       MakeSpecStepVllmMinPVerified},
      {{"spec_step_vllm_filtered_draft", "spec_step (vllm) verifies against filtered draft rows the drafter never filtered",
        "stats/spec_step/filtered_v8/vllm", "L3"},
       MakeSpecStepVllmFilteredDraft},
      {{"spec_step_sglang_reused_coin", "spec_step (sglang) reuses the rejecting coin for the final draw",
        "stats/spec_step/target_only_v8/sglang", "L3"},
       MakeSpecStepSglangReusedCoin},
      {{"spec_step_sglang_unfiltered_acceptance",
        "spec_step (sglang) accepts against the target probability before the top-k / top-p renorm",
        "stats/spec_step/target_only_v8/sglang", "L3"},
       MakeSpecStepSglangUnfilteredAcceptance},
      // stat-power group: a concentrated fault at TV 2e-3 (a regression check: the CI-sized n of dyadic_v8, set by
      // its exponent test, sees it with the omnibus L3).
      {{"mass_shift_tv0002", "0.002 of probability moved from the third to the fourth most probable token",
        "stats/exponential_race/dyadic_v8/", "L3"},
       [] { return std::make_unique<MassShift>("mass_shift_tv0002", 0.002); }},
      // Diffuse faults: the exponent test (L3, test exponent-score) at its declared effects,
      // 1.005 for CI and 1.002 for --thorough (stat_cases.cc).
      {{"temperature_x1010", "every logit scaled by 1.01 (probabilities raised to 1.01)",
        "stats/pipeline/temperature_v50/", "L3"},
       [] { return std::make_unique<LogitsScaled>("temperature_x1010", 1.01); }},
      {{"temperature_x1005", "every logit scaled by 1.005 (probabilities raised to 1.005)",
        "stats/exponential_race/peaked_v100/", "L3"},
       [] { return std::make_unique<LogitsScaled>("temperature_x1005", 1.005); }},
      {{"temperature_x1002", "every logit scaled by 1.002 (probabilities raised to 1.002)",
        "stats/exponential_race/peaked_v100/", "L3", /*thorough=*/true},
       [] { return std::make_unique<LogitsScaled>("temperature_x1002", 1.002); }},
      // Least favourable diffuse faults (TV spread as |p' - p| / p constant): the omnibus L3 at
      // the declared TV of the exponent families, 0.01 for CI and 0.002 for --thorough.
      {{"diffuse_tv0010", "every probability scaled by 1.02 on the head half of the mass and by 0.98 on the rest (TV 0.01)",
        "stats/exponential_race/dyadic_v8/", "L3"},
       [] { return std::make_unique<DiffuseTv>("diffuse_tv0010", 0.01); }},
      {{"diffuse_tv0002", "every probability scaled by 1.004 on the head half of the mass and by 0.996 on the rest (TV 0.002)",
        "stats/exponential_race/dyadic_v8/", "L3", /*thorough=*/true},
       [] { return std::make_unique<DiffuseTv>("diffuse_tv0002", 0.002); }},
      // Tail-amplifier group: the three fault kinds of docs/spec/harness.md "Tail amplifiers",
      // each seen by the L2 binomial on a group of weak tokens.
      {{"probs_f16", "probabilities rounded to f16 before the draw (weights below 2^-25 vanish)",
        "stats/exponential_race/tail_f16_v32/", "L2"},
       [] { return std::make_unique<ProbsF16>(); }},
      {{"uniform_open_closed_24bit", "its own race's uniform is ((w >> 8) + 1) 2^-24 in (0, 1]: u = 1 gives q = +inf, never q = +0",
        "stats/exponential_race/tail_floor_v1024/", "L2"},
       [] { return std::make_unique<UniformFloorFault>("uniform_open_closed_24bit", UniformOpenClosed24); }},
      {{"uniform_23bit", "its own race's uniform is (w >> 9) 2^-23: q = +0 with probability 2^-23, twice the floor",
        "stats/exponential_race/tail_floor_v1024/", "L2", /*thorough=*/true, /*proof_in_ci=*/false},
       [] { return std::make_unique<UniformFloorFault>("uniform_23bit", Uniform23Bit); }},
      {{"sglang_hash_uniform_f32", "SGLang's seeded draw converts the hash to f32 before dividing: u = 1 for h >= 2^32 - 128",
        "stats/multinomial_with_seed/tail_floor_v1024/", "L2", /*thorough=*/true, /*proof_in_ci=*/false},
       [] { return std::make_unique<SglangHashUniformF32>(); }},
  };
  return registry;
}

}  // namespace

const std::vector<WrongSamplerInfo>& WrongSamplers() {
  static const std::vector<WrongSamplerInfo> list = [] {
    std::vector<WrongSamplerInfo> v;
    for (const auto& [info, make] : Registry()) v.push_back(info);
    return v;
  }();
  return list;
}

namespace {

// The fault sizes of the parametric forms (wrong_samplers.h): a decimal number with a '.' or
// an exponent, so that a registered name such as temperature_x1005 never parses as one.
struct ParametricForm {
  const char* prefix;
  double low, high;  // the size must lie in (low, high]
  std::function<std::unique_ptr<Backend>(const std::string&, double)> make;
};

const std::vector<ParametricForm>& ParametricForms() {
  static const std::vector<ParametricForm> forms = {
      {"temperature_x", 0.0, 4.0, [](const std::string& n, double t) { return std::make_unique<LogitsScaled>(n, t); }},
      {"diffuse_tv", 0.0, 0.25, [](const std::string& n, double t) { return std::make_unique<DiffuseTv>(n, t); }},
      {"mass_shift_tv", 0.0, 0.5, [](const std::string& n, double t) { return std::make_unique<MassShift>(n, t); }},
      {"leak", 0.0, 0.5, [](const std::string& n, double m) { return std::make_unique<Leak>(n, m); }},
  };
  return forms;
}

std::string Decimal(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

std::unique_ptr<Backend> MakeParametric(const std::string& name) {
  for (const ParametricForm& form : ParametricForms()) {
    const std::string prefix = form.prefix;
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string size = name.substr(prefix.size());
    if (size.find_first_of(".eE") == std::string::npos) continue;
    double x = 0.0;
    const auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), x);
    if (ec != std::errc() || end != size.data() + size.size() || !(x > form.low && x <= form.high)) {
      throw std::invalid_argument("wrong sampler '" + name + "': '" + size + "' is not a decimal size in (" +
                                  Decimal(form.low) + ", " + Decimal(form.high) + "]");
    }
    return form.make(name, x);
  }
  return nullptr;
}

}  // namespace

std::optional<FaultSize> SizedFaultTv(const std::string& name, const Case& c) {
  if (!HasExactTarget(c.stage)) return std::nullopt;
  std::unique_ptr<Backend> backend = MakeParametric(name);
  auto* wrapping = dynamic_cast<WrappingBackend*>(backend.get());
  if (wrapping == nullptr) return std::nullopt;
  const ExactTarget right = ComputeExactTarget(c);
  const ExactTarget wrong = ComputeExactTarget(wrapping->AsRun(c.stage, c));
  FaultSize size;
  double sum = 0.0;
  int random_rows = 0;
  for (std::size_t b = 0; b < right.rows.size(); ++b) {
    const RowTarget& r = right.rows[b];
    const RowTarget& w = wrong.rows[b];
    long double tv = 0.0L;
    bool moved = false;
    for (std::size_t i = 0; i < r.p.size(); ++i) {
      tv += std::fabs(static_cast<long double>(r.p[i]) - w.p[i]);
      moved = moved || ((r.p[i] > 0.0) != (w.p[i] > 0.0));
    }
    size.row_tv.push_back(static_cast<double>(tv / 2.0L));
    size.row_support_moved.push_back(moved);
    if (r.greedy_token < 0) {
      sum += size.row_tv.back();
      ++random_rows;
    }
  }
  size.mean_tv = random_rows > 0 ? sum / random_rows : 0.0;
  return size;
}

std::unique_ptr<Backend> MakeWrongSampler(const std::string& name) {
  std::string names;
  for (const auto& [info, make] : Registry()) {
    if (info.name == name) return make();
    names += (names.empty() ? "" : ", ") + info.name;
  }
  if (auto parametric = MakeParametric(name)) return parametric;
  throw std::invalid_argument("unknown wrong sampler '" + name + "'; valid: " + names +
                              "; and the sized forms temperature_x<t>, diffuse_tv<tau>, mass_shift_tv<tau>, leak<m> "
                              "(a decimal size with a '.' or an exponent, e.g. temperature_x1.003, leak1e-6)");
}

}  // namespace sampcheck::statistical
