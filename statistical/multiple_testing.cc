// SPDX-License-Identifier: Apache-2.0
// Holm and Benjamini–Hochberg adjustments (statistical/multiple_testing.h,
// docs/spec/statistics.md#multiple-testing).
#include "statistical/multiple_testing.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "statistical/detail/checks.h"

namespace sampcheck::statistical {
namespace {

std::vector<std::size_t> AscendingOrder(const char* fn, std::span<const double> p) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] >= 0.0 && p[i] <= 1.0)) {
      detail::Fail(fn, "p[" + std::to_string(i) + "] = " + detail::Num(p[i]) + " is not in [0, 1]");
    }
  }
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  return order;
}

}  // namespace

std::vector<double> HolmAdjust(std::span<const double> p) {
  const std::vector<std::size_t> order = AscendingOrder("HolmAdjust", p);
  const double m = static_cast<double>(p.size());
  std::vector<double> out(p.size());
  double running = 0.0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    running = std::max(running, std::min(1.0, (m - static_cast<double>(i)) * p[order[i]]));
    out[order[i]] = running;
  }
  return out;
}

std::vector<double> BenjaminiHochbergAdjust(std::span<const double> p) {
  const std::vector<std::size_t> order = AscendingOrder("BenjaminiHochbergAdjust", p);
  const double m = static_cast<double>(p.size());
  std::vector<double> out(p.size());
  double running = 1.0;
  for (std::size_t i = order.size(); i-- > 0;) {
    // p (m / i), not m p / i: m / i is exact at i = 1 and i = m, so raw <= BH <= Holm holds in
    // floating point too (Holm's factor m - i + 1 equals m / i exactly there).
    running = std::min(running, std::min(1.0, p[order[i]] * (m / static_cast<double>(i + 1))));
    out[order[i]] = running;
  }
  return out;
}

}  // namespace sampcheck::statistical
