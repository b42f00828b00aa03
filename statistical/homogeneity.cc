// SPDX-License-Identifier: Apache-2.0
// Two-sample homogeneity (statistical/homogeneity.h, docs/spec/statistics.md#homogeneity).
#include "statistical/homogeneity.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "statistical/chi_square.h"
#include "statistical/detail/checks.h"
#include "statistical/pooling.h"

namespace sampcheck::statistical {

HomogeneityResult HomogeneityTest(std::span<const std::int64_t> counts_a, std::span<const std::int64_t> counts_b,
                                  const HomogeneityOptions& options) {
  const char* fn = "HomogeneityTest";
  detail::CheckSameSize(fn, "counts_a", counts_a.size(), "counts_b", counts_b.size());
  detail::CheckCounts(fn, "counts_a", counts_a);
  detail::CheckCounts(fn, "counts_b", counts_b);
  if (!std::isfinite(options.lambda)) detail::Fail(fn, "options.lambda = " + detail::Num(options.lambda) + " is not finite");
  if (options.e_min < 0.0 || !std::isfinite(options.e_min)) {
    detail::Fail(fn, "options.e_min = " + detail::Num(options.e_min) + " is not a finite value >= 0");
  }
  HomogeneityResult r;
  r.lambda = options.lambda;
  r.e_min = options.e_min > 0.0 ? options.e_min : DefaultEMin(options.lambda);
  r.n_a = std::accumulate(counts_a.begin(), counts_a.end(), std::int64_t{0});
  r.n_b = std::accumulate(counts_b.begin(), counts_b.end(), std::int64_t{0});
  if (r.n_a == 0) detail::Fail(fn, "counts_a sums to 0");
  if (r.n_b == 0) detail::Fail(fn, "counts_b sums to 0");

  const double na = static_cast<double>(r.n_a), nb = static_cast<double>(r.n_b), n = na + nb;
  std::vector<double> c(counts_a.size());
  for (std::size_t t = 0; t < c.size(); ++t) c[t] = static_cast<double>(counts_a[t] + counts_b[t]) / n;
  const std::vector<Bin> bins = PoolCategories(c, std::min(na, nb), r.e_min);
  r.bins = bins.size();

  const std::size_t k = bins.size();
  std::vector<double> observed(2 * k), expected(2 * k);
  for (std::size_t j = 0; j < k; ++j) {
    double a = 0.0, b = 0.0;
    for (std::int64_t t : bins[j].tokens) {
      a += static_cast<double>(counts_a[static_cast<std::size_t>(t)]);
      b += static_cast<double>(counts_b[static_cast<std::size_t>(t)]);
    }
    observed[j] = a;
    observed[k + j] = b;
    expected[j] = na * (a + b) / n;
    expected[k + j] = nb * (a + b) / n;
  }
  std::vector<double> residual(k);
  for (std::size_t j = 0; j < k; ++j) {
    residual[j] = (observed[j] - expected[j]) / std::sqrt(expected[j] * (1.0 - na / n));
  }
  std::vector<std::size_t> order(k);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return std::abs(residual[x]) > std::abs(residual[y]); });
  for (std::size_t i = 0; i < std::min(options.top_bins, k); ++i) {
    const std::size_t j = order[i];
    r.top_bins.push_back({bins[j].tokens, observed[j], observed[k + j], expected[j], expected[k + j], residual[j]});
  }
  if (k < 2) return r;
  r.statistic = PowerDivergence(observed, expected, options.lambda);
  r.df = static_cast<double>(k - 1);
  r.p_value = ChiSquareSf(r.statistic, r.df);
  return r;
}

}  // namespace sampcheck::statistical
