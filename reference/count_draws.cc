// SPDX-License-Identifier: Apache-2.0
// The reference backend's own draws: a fast exponential race (reference/count_draws.h).
#include "reference/count_draws.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/error.h"
#include "reference/exponential_race.h"
#include "reference/greedy.h"
#include "reference/pipeline.h"
#include "reference/rng/noise.h"
#include "reference/rng/philox.h"
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
  const rng::Philox4x32Block ctr = {{block, draw, row, kCountDrawsTag}};
  const rng::Philox4x32Key key = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  return rng::Philox4x32_10(ctr, key);
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

namespace {

// Eight Philox4x32-10 blocks at once, counters {first + b, draw, row, tag} for b = 0..7, in
// 32-bit lanes with the 32x32 -> 64-bit products in 64-bit lanes: the operations of
// rng::Philox4x32_10 (reference/rng/philox.h) lane by lane. words[4 b + i] = block b's word i,
// so words[j] is the word of the j-th token after first * 4 (count_draws.h's layout).
typedef std::uint32_t U8 __attribute__((vector_size(32)));
typedef std::uint64_t L8 __attribute__((vector_size(64)));
typedef double D8 __attribute__((vector_size(64)));
typedef std::int64_t I8 __attribute__((vector_size(64)));

inline void PhiloxBlocks8(std::uint64_t seed, std::uint32_t row, std::uint32_t draw, std::uint32_t first,
                          std::uint32_t* words) {
  U8 c0 = U8{0, 1, 2, 3, 4, 5, 6, 7} + first;
  U8 c1 = U8{} + draw;
  U8 c2 = U8{} + row;
  U8 c3 = U8{} + kCountDrawsTag;
  std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += rng::detail::kPhiloxW0;
      k1 += rng::detail::kPhiloxW1;
    }
    const L8 p0 = __builtin_convertvector(c0, L8) * static_cast<std::uint64_t>(rng::detail::kPhiloxM0);
    const L8 p1 = __builtin_convertvector(c2, L8) * static_cast<std::uint64_t>(rng::detail::kPhiloxM1);
    const U8 hi0 = __builtin_convertvector(p0 >> 32, U8), lo0 = __builtin_convertvector(p0, U8);
    const U8 hi1 = __builtin_convertvector(p1 >> 32, U8), lo1 = __builtin_convertvector(p1, U8);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
  }
  for (int b = 0; b < 8; ++b) {
    words[4 * b] = c0[b];
    words[4 * b + 1] = c1[b];
    words[4 * b + 2] = c2[b];
    words[4 * b + 3] = c3[b];
  }
}

// Bit j of the result is set when token j0 + j (j < 8) may still win: the skip test of
// RaceRow::Draw, !(u * best >= p (1 + 2^-22)), with u = (w >> 8) 2^-24 exact in double.
inline unsigned MayWin8(const std::uint32_t* words, const double* p_margin, double best) {
  U8 w;
  std::memcpy(&w, words, sizeof(w));
  D8 pm;
  std::memcpy(&pm, p_margin, sizeof(pm));
  const D8 u = __builtin_convertvector(w >> 8, D8) * 0x1p-24;
  const I8 skip = u * best >= pm;
  unsigned may = 0;
  for (int j = 0; j < 8; ++j) may |= skip[j] ? 0u : (1u << j);
  return may;
}

// Draw's loop: 32 tokens (8 Philox blocks) per step; the vector test only narrows which tokens
// the scalar code looks at. The best ratio never decreases during a draw, so a token the test
// skips with the step's starting best would be skipped with the current one too; every token
// it passes is re-tested by the scalar code with the current best. Same winner, bit for bit,
// as the scalar loop (tests/count_draws_test.cc).
__attribute__((target_clones("avx512f", "avx2", "default"))) std::int64_t RaceDraw(
    const std::int32_t* ids, const float* p, const double* p_margin, std::size_t n, std::uint64_t seed,
    std::uint32_t row, std::uint32_t draw) {
  std::int64_t best = -1;
  float best_ratio = 0.0f;
  double best_d = 0.0;
  alignas(64) std::uint32_t words[32];
  auto visit = [&](std::size_t j, std::uint32_t word) {
    const float u = rng::UniformClosedOpen24F32(word);
    if (best >= 0 && static_cast<double>(u) * best_d >= p_margin[j]) return;  // cannot win
    const float q = rng::ExponentialNegLog1pNegF32(u);
    const float r = p[j] / q;
    const std::int64_t id = ids[j];
    if (best < 0 || r > best_ratio || (r == best_ratio && id < best)) {
      best = id;
      best_ratio = r;
      best_d = static_cast<double>(r);
    }
  };
  for (std::size_t j0 = 0; j0 < n; j0 += 32) {
    PhiloxBlocks8(seed, row, draw, static_cast<std::uint32_t>(j0 / 4), words);
    const std::size_t end = std::min(n, j0 + 32);
    std::size_t j = j0;
    if (best >= 0) {
      for (; j + 8 <= end; j += 8) {
        unsigned may = MayWin8(words + (j - j0), p_margin + j, best_d);
        while (may != 0) {
          const int b = __builtin_ctz(may);
          may &= may - 1;
          visit(j + static_cast<std::size_t>(b), words[j - j0 + static_cast<std::size_t>(b)]);
        }
      }
    }
    for (; j < end; ++j) visit(j, words[j - j0]);
  }
  return best;
}

}  // namespace

std::int64_t RaceRow::Draw(std::uint64_t seed, std::uint32_t row, std::uint32_t draw) const {
  const std::size_t n = ids_.size();
  if (n == 0) return -1;
  if (n == 1) return ids_[0];
  return RaceDraw(ids_.data(), p_.data(), p_margin_.data(), n, seed, row, draw);
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
                      const std::vector<std::int64_t>& greedy, std::int64_t draws, std::uint64_t seed) {
  if (draws < 0 || draws > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("CountDraws: draws = " + std::to_string(draws) + " must be in [0, 2^32)");
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
    for (std::int64_t d = 0; d < draws; ++d) {
      ++row_counts[static_cast<std::size_t>(race.Draw(seed, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(d)))];
    }
  }
  return counts;
}

bool SupportsCountDrawsStage(const std::string& stage) {
  return stage == "exponential_race" || stage == "inverse_cdf" || stage == "gumbel_max" || stage == "pipeline" ||
         stage == "qsample" || stage == "multinomial_with_seed" || stage == "multinomial_with_seed_token_ids";
}

Tensor ReferenceCountDraws(const Case& c, std::int64_t draws, std::uint64_t seed) {
  const Profile profile = ParseProfile(c.profile);
  if (c.stage == "exponential_race" || c.stage == "inverse_cdf" || c.stage == "qsample" ||
      c.stage == "multinomial_with_seed" || c.stage == "multinomial_with_seed_token_ids") {
    StageInputs in(c, c.stage);
    const Tensor probs = in.Probabilities();
    return CountRaceDraws(probs.data<float>(), probs.dim(0), probs.dim(1), {}, draws, seed);
  }
  if (c.stage == "gumbel_max") {
    StageInputs in(c, c.stage);
    const Tensor scores = in.FloatRows("logprobs");
    const std::int64_t rows = scores.dim(0), vocab = scores.dim(1);
    std::vector<float> probs(static_cast<std::size_t>(rows * vocab));
    for (std::int64_t b = 0; b < rows; ++b) {
      const auto at = static_cast<std::size_t>(b * vocab), n = static_cast<std::size_t>(vocab);
      SoftmaxRow(scores.data<float>().subspan(at, n), std::span<float>(probs).subspan(at, n));
    }
    return CountRaceDraws(probs, rows, vocab, {}, draws, seed);
  }
  if (c.stage != "pipeline") {
    throw InputError("backend 'reference' cannot draw stage '" + c.stage + "' with its own randomness");
  }
  StageInputs in(c, "pipeline");
  const Tensor processed = PipelineLogitsBeforeTemperature(c, profile);
  Case t{c.id, "temperature", c.profile, nlohmann::json::object(), {}};
  t.inputs.emplace("logits", processed);
  t.inputs.emplace("temperature", in.Required("temperature", DType::kF32, 1));
  const TensorMap scaled = RunTemperature(t, profile);
  Case g{c.id, "greedy", "canonical", nlohmann::json::object(), {}};
  g.inputs.emplace("logits", processed);
  const TensorMap greedy = RunGreedy(g, Profile::kCanonical);
  Case f{c.id, "sampling_filters", c.profile, nlohmann::json::object(), {}};
  if (c.params.contains("order")) f.params["order"] = c.params["order"];
  f.inputs.emplace("logits", scaled.at("logits"));
  for (const char* name : {"top_k", "top_p", "min_p"}) {
    if (c.inputs.count(name)) f.inputs.emplace(name, c.inputs.at(name));
  }
  const TensorMap filtered = RunSamplingFilters(f, profile);
  const Tensor& probs = filtered.at("probs");
  const auto is_greedy = scaled.at("is_greedy").data<std::uint8_t>();
  std::vector<std::int64_t> pinned(static_cast<std::size_t>(probs.dim(0)), -1);
  for (std::size_t b = 0; b < pinned.size(); ++b) {
    if (is_greedy[b] != 0) pinned[b] = greedy.at("token").data<std::int64_t>()[b];
  }
  return CountRaceDraws(probs.data<float>(), probs.dim(0), probs.dim(1), pinned, draws, seed);
}

}  // namespace sampcheck::reference
