// SPDX-License-Identifier: Apache-2.0
// The reference backend's own draws: a fast exponential race (reference/count_draws.h).
#include "reference/count_draws.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/error.h"
#include "core/stage_catalogue.h"
#include "reference/exponential_race.h"
#include "reference/greedy.h"
#include "reference/pipeline.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
#include "reference/rng/streams.h"
#include "reference/rng/uniform.h"
#include "reference/sampling_filters.h"
#include "reference/softmax.h"
#include "reference/stage_io.h"
#include "reference/temperature.h"

namespace sampcheck::reference {
namespace {

// 1 + 2^-22: the bound of count_draws.h; p * kMargin is exact in double for an f32 p.
constexpr double kMargin = 1.0 + 0x1p-22;

rng::Philox4x32Block NoiseBlock(std::uint64_t seed, std::uint32_t row, std::uint32_t draw, std::uint32_t block) {
  return rng::StreamBlock(rng::Stream::kCountDraws, seed, block, draw, row);
}

}  // namespace

RaceRow::RaceRow(std::span<const float> probs) : vocab_(static_cast<std::int64_t>(probs.size())) {
  for (std::size_t i = 0; i < probs.size(); ++i) {
    if (probs[i] > 0.0f) ids_.push_back(static_cast<std::int32_t>(i));
  }
  std::stable_sort(ids_.begin(), ids_.end(), [&](std::int32_t a, std::int32_t b) {
    return probs[static_cast<std::size_t>(a)] > probs[static_cast<std::size_t>(b)];
  });
  for (std::int32_t i : ids_) {
    p_.push_back(probs[static_cast<std::size_t>(i)]);
    p_margin_.push_back(static_cast<double>(probs[static_cast<std::size_t>(i)]) * kMargin);
  }
}

std::int64_t RaceRow::Draw(std::uint64_t seed, std::uint32_t row, std::uint32_t draw) const {
  const std::size_t n = ids_.size();
  if (n == 0) return -1;
  if (n == 1) return ids_[0];
  std::int64_t best = -1;
  float best_ratio = 0.0f;
  double best_d = 0.0;
  for (std::size_t j0 = 0; j0 < n; j0 += 4) {
    const rng::Philox4x32Block words = NoiseBlock(seed, row, draw, static_cast<std::uint32_t>(j0 / 4));
    const std::size_t end = std::min(n, j0 + 4);
    for (std::size_t j = j0; j < end; ++j) {
      const float u = rng::UniformClosedOpen24F32(words.v[j - j0]);
      if (best >= 0 && static_cast<double>(u) * best_d >= p_margin_[j]) continue;  // cannot win
      const float q = rng::ExponentialNegLog1pNegF32(u);
      const float r = p_[j] / q;
      const std::int64_t id = ids_[j];
      if (best < 0 || r > best_ratio || (r == best_ratio && id < best)) {
        best = id;
        best_ratio = r;
        best_d = static_cast<double>(r);
      }
    }
  }
  return best;
}

std::int64_t RaceRow::DrawNaive(std::uint64_t seed, std::uint32_t row, std::uint32_t draw) const {
  const std::size_t n = ids_.size();
  if (n == 0) return -1;
  std::vector<float> probs(static_cast<std::size_t>(vocab_), 0.0f);
  std::vector<float> q(static_cast<std::size_t>(vocab_), 1.0f);
  for (std::size_t j = 0; j < n; ++j) {
    const rng::Philox4x32Block words = NoiseBlock(seed, row, draw, static_cast<std::uint32_t>(j / 4));
    const auto id = static_cast<std::size_t>(ids_[j]);
    probs[id] = p_[j];
    q[id] = rng::ExponentialNegLog1pNegF32(rng::UniformClosedOpen24F32(words.v[j % 4]));
  }
  return ExponentialRaceRow(probs, q, /*all_tokens=*/false);
}

Tensor CountRaceDraws(std::span<const float> probs, std::int64_t rows, std::int64_t vocab,
                      const std::vector<std::int64_t>& greedy, std::int64_t draws, std::uint64_t seed,
                      std::int64_t first_draw) {
  if (draws < 0 || draws > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("CountDraws: draws = " + std::to_string(draws) + " must be in [0, 2^32)");
  }
  if (first_draw < 0 || first_draw + draws > std::int64_t{1} << 32) {
    throw std::invalid_argument("CountDraws: draws [" + std::to_string(first_draw) + ", " +
                                std::to_string(first_draw + draws) + ") must lie in [0, 2^32)");
  }
  Tensor counts(DType::kI64, {rows, vocab});
  auto out = counts.data<std::int64_t>();
  for (std::int64_t b = 0; b < rows; ++b) {
    auto row_counts = out.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
    if (!greedy.empty() && greedy[static_cast<std::size_t>(b)] >= 0) {
      row_counts[static_cast<std::size_t>(greedy[static_cast<std::size_t>(b)])] = draws;
      continue;
    }
    const RaceRow race(probs.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab)));
    if (race.support() == 0) {
      throw InputError("CountDraws: row " + std::to_string(b) + " has no positive probability: nothing can be drawn");
    }
    for (std::int64_t d = first_draw; d < first_draw + draws; ++d) {
      ++row_counts[static_cast<std::size_t>(race.Draw(seed, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(d)))];
    }
  }
  return counts;
}

bool SupportsCountDrawsStage(const std::string& stage) {
  const StageInfo* info = FindStage(stage);
  return info != nullptr && info->draw.reference_count_draws;
}

Tensor ReferenceCountDraws(const Case& c, std::int64_t draws, std::uint64_t seed, std::int64_t first_draw) {
  const StageInfo& info = RequireStage(c.stage);
  if (!info.draw.reference_count_draws) {
    throw InputError("backend 'reference' cannot draw stage '" + c.stage + "' with its own randomness");
  }
  const Profile profile = c.profile;
  switch (info.draw.target) {
    case ExactTargetKind::kNormalisedProbs: {
      StageInputs in(c, c.stage);
      const Tensor probs = in.Probabilities();
      return CountRaceDraws(probs.data<float>(), probs.dim(0), probs.dim(1), {}, draws, seed, first_draw);
    }
    case ExactTargetKind::kSoftmaxScores: {
      StageInputs in(c, c.stage);
      const Tensor scores = in.FloatRows(info.InputWithRole(Role::kScores)->name);
      const std::int64_t rows = scores.dim(0), vocab = scores.dim(1);
      std::vector<float> probs(static_cast<std::size_t>(rows * vocab));
      for (std::int64_t b = 0; b < rows; ++b) {
        const auto at = static_cast<std::size_t>(b * vocab), n = static_cast<std::size_t>(vocab);
        SoftmaxRow(scores.data<float>().subspan(at, n), std::span<float>(probs).subspan(at, n));
      }
      return CountRaceDraws(probs, rows, vocab, {}, draws, seed, first_draw);
    }
    case ExactTargetKind::kPipeline: break;
    default:
      throw std::logic_error("stage catalogue: stage '" + c.stage + "' claims reference CountDraws for target kind " +
                             std::string(ExactTargetKindName(info.draw.target)));
  }
  StageInputs in(c, "pipeline");
  const Tensor processed = PipelineLogitsBeforeTemperature(c, profile);
  Case t{c.id, "temperature", c.profile, nlohmann::json::object(), {}};
  t.inputs.emplace("logits", processed);
  t.inputs.emplace("temperature", in.Required("temperature", DType::kF32, 1));
  const TensorMap scaled = RunTemperature(t, profile);
  Case g{c.id, "greedy", Profile::kCanonical, nlohmann::json::object(), {}};
  g.inputs.emplace("logits", processed);
  const TensorMap greedy = RunGreedy(g, Profile::kCanonical);
  Case f{c.id, "sampling_filters", c.profile, nlohmann::json::object(), {}};
  if (c.params.contains("order")) f.params["order"] = c.params["order"];
  f.inputs.emplace("logits", scaled.at("logits"));
  for (const char* name : {"top_k", "top_p", "min_p"}) {
    if (c.inputs.count(name)) f.inputs.emplace(name, c.inputs.at(name));
  }
  const TensorMap filtered = RunSamplingFilters(f, profile);
  Tensor probs = filtered.at("probs");
  if (PipelineDrawsUnfiltered(c, profile)) {  // SGLang's unfiltered path: the full softmax
    const auto s = scaled.at("logits").data<float>();
    const auto v = static_cast<std::size_t>(probs.dim(1));
    for (std::size_t b = 0; b * v < s.size(); ++b) SoftmaxRow(s.subspan(b * v, v), probs.data<float>().subspan(b * v, v));
  }
  const auto is_greedy = scaled.at("is_greedy").data<std::uint8_t>();
  std::vector<std::int64_t> pinned(static_cast<std::size_t>(probs.dim(0)), -1);
  for (std::size_t b = 0; b < pinned.size(); ++b) {
    if (is_greedy[b] != 0 || PipelineTopKOneIsGreedy(c, profile, static_cast<std::int64_t>(b))) {
      pinned[b] = greedy.at("token").data<std::int64_t>()[b];
    }
  }
  return CountRaceDraws(probs.data<float>(), probs.dim(0), probs.dim(1), pinned, draws, seed, first_draw);
}

}  // namespace sampcheck::reference
