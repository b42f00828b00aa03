// SPDX-License-Identifier: Apache-2.0
#pragma once
// Two-sample homogeneity of token counts (backend A vs backend B): the 2 x K power-divergence
// test (docs/spec/statistics.md#homogeneity).
//
// Contract:
// - counts_a, counts_b: counts per token (>= 0), same length V, each with a positive total
//   (N_a, N_b).
// - Pooling rule (documented choice): under H0 both samples share one law, estimated by the
//   combined proportions c_t = (a_t + b_t) / (N_a + N_b). Bins are
//   PoolCategories(c, min(N_a, N_b), E_min): every cell of the smaller sample (hence of both)
//   expects >= E_min. The bins depend on the column totals a_t + b_t only, which are the
//   conditioning statistic of the homogeneity test: given them, the table is multivariate
//   hypergeometric under H0 whatever the bins are, so the choice cannot favour either sample.
//   They do not depend on how a column's total splits between A and B, which is what the test
//   measures. Tokens with a_t + b_t = 0 carry no information and are in no bin.
// - Expected counts E_it = N_i C_j / N for row i in {a, b}, bin column total C_j. Statistic: the
//   power-divergence sum over the 2 x bins cells (goodness_of_fit.h formula), df = bins - 1,
//   p = ChiSquareSf (asymptotic). One bin: statistic 0, df 0, p 1.
// - top_bins: bins by |standardised residual| (a_j - E_aj) / sqrt(E_aj (1 - N_a / N)) (the
//   adjusted residual of row a; row b's is its negative), ties by pooling order.
// Example: a = {30, 70}, b = {70, 30}, Pearson -> statistic 32, df 1.

#include <cstdint>
#include <span>
#include <vector>

#include "statistical/goodness_of_fit.h"

namespace sampcheck::statistical {

struct HomogeneityOptions {
  double lambda = kCressieReadLambda;
  double e_min = 0.0;  // 0: DefaultEMin(lambda)
  std::size_t top_bins = 10;
};

struct HomogeneityBin {
  std::vector<std::int64_t> tokens;
  double observed_a = 0.0, observed_b = 0.0;
  double expected_a = 0.0, expected_b = 0.0;
  double residual = 0.0;  // adjusted residual of row a
};

struct HomogeneityResult {
  double lambda = kCressieReadLambda;
  double statistic = 0.0;
  double df = 0.0;
  double p_value = 1.0;
  std::int64_t n_a = 0, n_b = 0;
  std::size_t bins = 0;
  double e_min = 0.0;
  std::vector<HomogeneityBin> top_bins;
};

HomogeneityResult HomogeneityTest(std::span<const std::int64_t> counts_a, std::span<const std::int64_t> counts_b,
                                  const HomogeneityOptions& options = {});

}  // namespace sampcheck::statistical
