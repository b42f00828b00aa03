// SPDX-License-Identifier: Apache-2.0
// The exact law of the reference's own race with its floor (statistical/race_floor_law.h).
#include "statistical/race_floor_law.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "reference/math/log.h"
#include "reference/rng/noise.h"
#include "reference/rng/uniform.h"

namespace sampcheck::statistical {
namespace {

constexpr std::uint32_t kCells = std::uint32_t{1} << 24;

// q of cell k: the value every word with w >> 8 == k gives.
float CellQ(std::uint32_t k) { return rng::ExponentialNegLog1pNegF32(rng::UniformClosedOpen24F32(k << 8)); }

// f32 ratio as ExponentialRaceRow computes it (q = +0: +inf).
float Ratio(float p, std::uint32_t k) { return p / CellQ(k); }

void Check(float x, const char* name) {
  if (!std::isfinite(x) || !(x > 0.0f)) {
    throw std::invalid_argument(std::string("CanonicalRaceGroupShare: ") + name + " = " + std::to_string(x) +
                                " must be finite and > 0");
  }
}

}  // namespace

std::vector<std::uint32_t> CanonicalRaceThresholds(float strong, float weak) {
  Check(strong, "strong");
  Check(weak, "weak");
  // min{k_s >= from : RN(strong / q(k_s)) < x}, kCells if none (the ratio is non-increasing
  // in k_s, so the predicate is monotone).
  auto first_below = [&](std::uint32_t from, float x) {
    std::uint32_t lo = from, hi = kCells;  // answer in [lo, hi]
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (Ratio(strong, mid) < x) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  };
  // T_1 = 1: the weak cell 0 (+inf) beats every strong cell k_s >= 1 (finite ratio).
  std::vector<std::uint32_t> t{1};
  // T_{j+1}: N >= j + 1 once the strong ratio is below the weak cell j's.
  for (std::uint32_t j = 1; j < kCells && t.back() < kCells; ++j) t.push_back(first_below(t.back(), Ratio(weak, j)));
  return t;
}

long double CanonicalRaceGroupShare(float strong, float weak, std::int64_t group) {
  if (group < 1) throw std::invalid_argument("CanonicalRaceGroupShare: group = " + std::to_string(group) + " must be >= 1");
  const std::vector<std::uint32_t> t = CanonicalRaceThresholds(strong, weak);
  const long double g = static_cast<long double>(group);
  long double sum = 0.0L;
  for (std::size_t j = 1; j < t.size(); ++j) {  // N = j on [T_j, T_{j+1})
    const long double share = static_cast<long double>(j) / static_cast<long double>(kCells);
    // 1 - (1 - share)^g, without cancellation.
    sum += static_cast<long double>(t[j] - t[j - 1]) * -std::expm1(g * std::log1p(-share));
  }
  return sum / static_cast<long double>(kCells);
}

long double SglangSeededGroupShare(float strong, float weak, std::int64_t group) {
  Check(strong, "strong");
  Check(weak, "weak");
  if (group < 1) throw std::invalid_argument("SglangSeededGroupShare: group = " + std::to_string(group) + " must be >= 1");
  if (!(weak < strong)) throw std::invalid_argument("SglangSeededGroupShare: weak must be below strong");
  constexpr std::uint64_t kHashes = std::uint64_t{1} << 32;
  const double ls = math::LogF64Dd(static_cast<double>(strong)), lw = math::LogF64Dd(static_cast<double>(weak));
  auto g = [](std::uint64_t h) { return rng::GumbelSglangFromHashF64(static_cast<std::uint32_t>(h)); };
  auto strong_score = [&](std::uint64_t h) { return ls + g(h); };
  auto weak_score = [&](std::uint64_t j) { return lw + g(kHashes - j); };  // the j-th weak cell from the top
  const long double gl = static_cast<long double>(group);
  auto hit = [&](std::uint64_t n) {  // 1 - (1 - n 2^-32)^group
    return -std::expm1(gl * std::log1p(-static_cast<long double>(n) / static_cast<long double>(kHashes)));
  };
  long double sum = 0.0L;
  std::uint64_t prev = kHashes;  // U_0: every strong cell has N >= 0
  for (std::uint64_t j = 1;; ++j) {
    // U_j = min{h_s in [0, prev) : strong_score(h_s) >= weak_score(j)}, prev if none.
    const double w = weak_score(j);
    std::uint64_t lo = 0, hi = prev;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (strong_score(mid) >= w) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    sum += static_cast<long double>(prev - lo) * hit(j - 1);  // N = j - 1 on [U_j, U_{j-1})
    prev = lo;
    if (prev <= 1) break;
  }
  if (prev == 1) {  // the strong cell h = 0 (g = -709.78): N = the weak cells above its score
    const double s0 = strong_score(0);
    std::uint64_t lo = 0, hi = kHashes;  // the largest j with weak_score(j) > s0 (0: none)
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo + 1) / 2;
      if (weak_score(mid) > s0) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    sum += hit(lo);
  }
  return sum / static_cast<long double>(kHashes);
}

long double IdealRaceGroupShare(float strong, float weak, std::int64_t group) {
  Check(strong, "strong");
  Check(weak, "weak");
  const long double w = static_cast<long double>(group) * weak;
  return w / (static_cast<long double>(strong) + w);
}

}  // namespace sampcheck::statistical
