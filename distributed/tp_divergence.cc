// SPDX-License-Identifier: Apache-2.0
// The tensor-parallel divergence model (distributed/tp_divergence.h).
#include "distributed/tp_divergence.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>

#include "core/error.h"
#include "core/split_mix64.h"
#include "reference/math/exp.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/tp_consensus.h"
#include "statistical/exact_tests.h"
#include "statistical/goodness_of_fit.h"
#include "statistical/power.h"

namespace sampcheck::distributed {
namespace {

constexpr double kLevel = 0.99;

rng::Philox4x32Block Block(std::uint64_t seed, std::uint32_t token_block, std::uint32_t draw, std::uint32_t lane,
                           std::uint32_t tag) {
  const rng::Philox4x32Block ctr = {{token_block, draw, lane, tag}};
  const rng::Philox4x32Key key = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  return rng::Philox4x32_10(ctr, key);
}

// x moved by k steps of the ordered binary32 representation (k ulps; -0 and +0 are one
// point). Finite x and |k| small against the distance to +-inf (the model's m <= 2^17).
float StepUlps(float x, std::int32_t k) {
  const auto bits = std::bit_cast<std::int32_t>(x);
  std::int64_t key = bits < 0 ? std::int64_t{INT32_MIN} - bits : bits;
  key += k;
  const auto out = static_cast<std::int32_t>(key < 0 ? std::int64_t{INT32_MIN} - key : key);
  return std::bit_cast<float>(out);
}

std::string Fmt(double x) {
  std::ostringstream s;
  s.precision(4);
  s << x;
  return s.str();
}


}  // namespace

std::string DivergenceCase::Id(std::int64_t ranks) const {
  return "tp_divergence/" + name + "/r" + std::to_string(ranks) + "/" + std::string(ProfileName(profile));
}

std::vector<DivergenceCase> DivergenceCases() {
  // Non-monotone logits so that MIN's pull towards low ids is visible: the most probable
  // tokens (3 and 6) are not the lowest ids.
  const std::vector<float> x = {0.0f, 1.0f, 2.0f, 3.0f, 0.5f, 1.5f, 2.5f, -1.0f};
  std::vector<DivergenceCase> cases;
  for (Profile p : {Profile::kSglang, Profile::kVllm}) {
    // A different reduction order: a few ulps per logit, the same seeded noise on every rank.
    cases.push_back({"shared_noise_4ulp", p, x, 4, true});
    // A non-deterministic renormalisation (float atomics): 2^17 ulps (~1.6% relative).
    cases.push_back({"shared_noise_renorm", p, x, 1 << 17, true});
    // Ranks that do not share a seed: each draws its own noise.
    cases.push_back({"independent_noise", p, x, 4, false});
  }
  return cases;
}

std::uint64_t DivergenceSeed(const DivergenceCase& c, std::int64_t ranks, std::uint64_t epoch) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
  for (unsigned char ch : c.Id(ranks)) {
    h ^= ch;
    h *= 0x100000001b3ull;  // FNV-1a 64 prime
  }
  SplitMix64 mix(h ^ (epoch * 0x9E3779B97F4A7C15ull));
  return mix.Next();
}

float RankNoiseUniform(std::uint32_t word) {
  // The numerator 2 (w >> 9) + 1 < 2^24 is exact in binary32, so u lies in [2^-24, 1 - 2^-24]
  // and the Gumbel noise is finite. ((w >> 8) + 1/2) 2^-24 needed 25 bits: at w >> 8 = 2^24 - 1
  // it rounded to 1.0 and the noise was +inf (a false FAIL of the reference).
  return (static_cast<float>(word >> 9) + 0.5f) * 0x1p-23f;
}

Case RankDrawCase(const DivergenceCase& c, std::uint64_t seed, std::int64_t rank, std::int64_t first, std::int64_t draws) {
  const auto vocab = static_cast<std::int64_t>(c.logits.size());
  Tensor scores = Tensor::Uninitialized(DType::kF32, {draws, vocab});
  Tensor gumbel = Tensor::Uninitialized(DType::kF32, {draws, vocab});
  auto s = scores.data<float>();
  auto g = gumbel.data<float>();
  const auto lane = static_cast<std::uint32_t>(rank);
  const std::uint32_t noise_lane = c.shared_noise ? 0u : lane;
  const auto span = static_cast<std::uint32_t>(2 * c.max_ulps + 1);
  for (std::int64_t d = 0; d < draws; ++d) {
    const auto draw = static_cast<std::uint32_t>(first + d);
    for (std::int64_t i0 = 0; i0 < vocab; i0 += 4) {
      const auto block = static_cast<std::uint32_t>(i0 / 4);
      const auto perturb = Block(seed, block, draw, lane, kPerturbTag);
      const auto noise = Block(seed, block, draw, noise_lane, kRankNoiseTag);
      for (std::int64_t i = i0; i < std::min(vocab, i0 + 4); ++i) {
        const auto at = static_cast<std::size_t>(d * vocab + i);
        const auto k = static_cast<std::int32_t>(perturb.v[i - i0] % span) - c.max_ulps;
        s[at] = StepUlps(c.logits[static_cast<std::size_t>(i)], k);
        g[at] = rng::GumbelNegLogNegLogF32(RankNoiseUniform(noise.v[i - i0]));
      }
    }
  }
  Case out{c.Id(0) + "/rank" + std::to_string(rank), "gumbel_max", Profile::kCanonical, nlohmann::json::object(), {}};
  out.inputs.emplace("logprobs", std::move(scores));
  out.inputs.emplace("gumbel", std::move(gumbel));
  return out;
}

std::vector<std::int64_t> RankDraws(Backend& backend, const DivergenceCase& c, std::uint64_t seed, std::int64_t rank,
                                    std::int64_t first, std::int64_t draws) {
  const Case rc = RankDrawCase(c, seed, rank, first, draws);
  const TensorMap out = backend.Run("gumbel_max", rc);
  const auto it = out.find("token");
  if (it == out.end() || it->second.dtype() != DType::kI64 || it->second.rank() != 1 || it->second.dim(0) != draws) {
    throw InputError("backend '" + backend.Name() + "' returned no i64 'token' [" + std::to_string(draws) +
                     "] for gumbel_max on rank " + std::to_string(rank) + " of case '" + c.name + "'");
  }
  std::vector<std::int64_t> ids(it->second.data<std::int64_t>().begin(), it->second.data<std::int64_t>().end());
  for (std::int64_t id : ids) {
    if (id < 0 || id >= static_cast<std::int64_t>(c.logits.size())) {
      throw InputError("backend '" + backend.Name() + "' returned token " + std::to_string(id) + " outside [0, " +
                       std::to_string(c.logits.size()) + ") on rank " + std::to_string(rank));
    }
  }
  return ids;
}

std::vector<double> TargetLaw(const DivergenceCase& c) {
  const double mx = *std::max_element(c.logits.begin(), c.logits.end());
  std::vector<double> p;
  double sum = 0.0;
  for (float x : c.logits) {
    p.push_back(math::ExpF64Dd(static_cast<double>(x) - mx));
    sum += p.back();
  }
  for (double& v : p) v /= sum;
  return p;
}

std::vector<double> ConsensusLaw(const DivergenceCase& c, std::int64_t ranks) {
  const std::vector<double> p = TargetLaw(c);
  if (c.profile == Profile::kVllm) return p;  // rank 0's own law
  if (c.shared_noise) return {};
  // P(min >= k) = S(k)^R: the minimum of R independent draws.
  std::vector<double> s(p.size() + 1, 0.0);
  for (std::size_t k = p.size(); k-- > 0;) s[k] = s[k + 1] + p[k];
  std::vector<double> q(p.size());
  for (std::size_t k = 0; k < p.size(); ++k) {
    q[k] = std::pow(s[k], static_cast<double>(ranks)) - std::pow(s[k + 1], static_cast<double>(ranks));
  }
  return q;
}

CaseResult DivergenceResult(const DivergenceCase& c, const DivergenceTally& t, std::uint64_t seed) {
  CaseResult r;
  r.id = c.Id(t.ranks);
  r.stage = "tp_consensus";
  r.profile = std::string(ProfileName(c.profile));
  r.comparison = "distribution";
  const std::vector<double> p = TargetLaw(c);
  const std::vector<double> q = ConsensusLaw(c, t.ranks);
  const statistical::Interval disagree = statistical::ClopperPearson(t.disagreements, t.draws, kLevel);
  const auto tv = statistical::TotalVariation(t.counts, p, kLevel);
  statistical::GoodnessOfFitOptions gof_options;
  gof_options.level = kLevel;
  TestStatistics s;
  s.layer = TestLayer::kOmnibus;
  s.test = "tp-divergence";
  s.n = t.draws;
  s.seed = seed;
  ConsensusStatistics& cs = s.consensus.emplace();
  cs.ranks = t.ranks;
  cs.max_ulps = c.max_ulps;
  cs.shared_noise = c.shared_noise;
  cs.disagreements = t.disagreements;
  cs.disagreement_rate = t.draws ? static_cast<double>(t.disagreements) / static_cast<double>(t.draws) : 0.0;
  cs.disagreement_lower = disagree.lower;
  cs.disagreement_upper = disagree.upper;
  cs.level = kLevel;
  s.effect = EffectSize{"TV", tv.estimate, tv.interval.lower, tv.interval.upper, kLevel};
  cs.post_consensus_mismatches = t.post_mismatches;
  s.observed = t.counts;
  cs.expected_target = p;
  s.alpha = kDivergenceAlpha;
  std::string law = "no closed-form law (measured only)";
  double p_value = 1.0;
  if (!q.empty()) {
    const auto gof = statistical::GoodnessOfFitTest(t.counts, q, gof_options);
    p_value = gof.p_value;
    double tv_exact = 0.0;
    for (std::size_t k = 0; k < p.size(); ++k) tv_exact += 0.5 * std::abs(q[k] - p[k]);
    s.expected = q;
    s.statistic = gof.statistic;
    s.df = gof.df;
    s.p_value = gof.p_value;
    s.p_adjusted = gof.p_value;
    cs.exact_tv = tv_exact;
    law = "exact consensus law TV " + Fmt(tv_exact) + ", goodness of fit p = " + Fmt(gof.p_value);
  }
  const std::string summary = "disagreement " + Fmt(cs.disagreement_rate) + " [" +
                              Fmt(disagree.lower) + ", " + Fmt(disagree.upper) + "], TV to softmax " +
                              Fmt(tv.estimate) + " [" + Fmt(tv.interval.lower) + ", " + Fmt(tv.interval.upper) +
                              "], " + law + ", " + std::to_string(t.post_mismatches) +
                              " draws with ranks apart after consensus (n = " + std::to_string(t.draws) + ")";
  cs.summary = summary;
  if (t.post_mismatches > 0) {
    r.verdict = Verdict::kFail;
    r.reason = "ranks hold different ids after consensus: " + summary;
  } else if (p_value < kDivergenceAlpha) {
    r.verdict = Verdict::kFail;
    r.reason = "the agreed ids do not follow the exact consensus law: " + summary;
  }
  r.statistics = std::move(s);
  return r;
}

DivergenceTally SimulateDivergence(Backend& backend, const DivergenceCase& c, std::int64_t ranks, std::int64_t draws,
                                   std::uint64_t seed) {
  DivergenceTally t;
  t.ranks = ranks;
  t.draws = draws;
  t.counts.assign(c.logits.size(), 0);
  Tensor rank_ids(DType::kI64, {ranks, draws});
  for (std::int64_t r = 0; r < ranks; ++r) {
    const auto ids = RankDraws(backend, c, seed, r, 0, draws);
    std::copy(ids.begin(), ids.end(), rank_ids.data<std::int64_t>().begin() + r * draws);
  }
  Case cc{c.Id(ranks), "tp_consensus", c.profile, nlohmann::json::object(), {}};
  cc.inputs.emplace("rank_ids", std::move(rank_ids));
  const TensorMap agreed = reference::RunTpConsensus(cc, c.profile);
  const auto token = agreed.at("token").data<std::int64_t>();
  const auto unanimous = agreed.at("unanimous").data<std::uint8_t>();
  for (std::int64_t d = 0; d < draws; ++d) {
    t.disagreements += unanimous[static_cast<std::size_t>(d)] == 0;
    ++t.counts[static_cast<std::size_t>(token[static_cast<std::size_t>(d)])];
  }
  // In one process every rank reads the same agreed tensor: post-consensus mismatches are 0
  // by construction here; the MPI driver checks them across processes.
  return t;
}

}  // namespace sampcheck::distributed
