// SPDX-License-Identifier: Apache-2.0
#pragma once
// Goodness of fit of token counts to target probabilities: the Cressie–Read power-divergence
// test with a-priori pooling (docs/spec/statistics.md#goodness-of-fit, docs/method.md "Omnibus
// statistic and pooling").
//
// Contract:
// - counts[t] >= 0 is how often token t was drawn; p[t] (finite, >= 0, positive sum) its
//   target weight; same length V. p is normalised by its sum.
// - Tokens with p[t] == 0 are in no bin. A count on one is a structural (L1) violation listed
//   in `structural_violations`; it is not part of n and never enters the statistic.
// - n = sum of counts over tokens with p > 0. Bins: PoolCategories(p / sum p, n, E_min)
//   (statistical/pooling.h), so they depend on p and n only. E_min defaults by lambda: 10 for
//   Pearson (lambda = 1), 5 otherwise (docs/method.md).
// - Statistic (Cressie & Read 1984), over bins with O = observed, E = expected:
//     lambda not in {0, -1}: 2 / (lambda (lambda + 1)) * sum O ((O / E)^lambda - 1),
//       with (O/E)^lambda - 1 computed as expm1(lambda log(O / E)) so lambda -> 0 is smooth;
//     lambda = 1 (Pearson): sum (O - E)^2 / E (the same value, without cancellation);
//     lambda = 0 (G-test):  2 sum O log(O / E);  lambda = -1: 2 sum E log(E / O).
//   Terms with O = 0 are 0 for lambda > -1 and +inf for lambda <= -1.
// - df = bins - 1; p-value = ChiSquareSf(statistic, df) (asymptotic). With one bin (or n = 0)
//   statistic = 0, df = 0, p = 1.
// - Effect D = (statistic - df) / n estimates lambda_nc / n = sum (q - p)^2 / p over the bins
//   (Cohen's w^2 for Pearson); its interval is NoncentralityInterval(statistic, df, level) / n
//   (statistical/chi_square.h).
// - top_bins: up to options.top_bins bins with the largest |standardised residual|
//   (O - E) / sqrt(E), ties by bin order (pooling order).
// - Deterministic: same inputs, same outputs. Bad input throws std::invalid_argument.
// Example: counts {18, 22, 20, 40}, p {0.2, 0.2, 0.2, 0.4}, Pearson -> statistic 0.4, df 3, p 0.9402424948393607.

#include <cstdint>
#include <span>
#include <vector>

#include "statistical/interval.h"

namespace sampcheck::statistical {

inline constexpr double kCressieReadLambda = 2.0 / 3.0;
inline constexpr double kPearsonLambda = 1.0;
inline constexpr double kGTestLambda = 0.0;

// 10 for Pearson, 5 otherwise (docs/method.md).
double DefaultEMin(double lambda);

struct GoodnessOfFitOptions {
  double lambda = kCressieReadLambda;
  double e_min = 0.0;  // 0: DefaultEMin(lambda)
  std::size_t top_bins = 10;
  double level = 0.95;  // of the effect interval
};

struct ResidualBin {
  std::vector<std::int64_t> tokens;  // pooling order
  double observed = 0.0;
  double expected = 0.0;
  double residual = 0.0;  // (observed - expected) / sqrt(expected)
};

struct StructuralViolation {
  std::int64_t token = 0;
  std::int64_t count = 0;
};

struct GoodnessOfFitResult {
  double lambda = kCressieReadLambda;
  double statistic = 0.0;
  double df = 0.0;
  double p_value = 1.0;
  std::int64_t n = 0;
  std::size_t bins = 0;
  double e_min = 0.0;
  double effect = 0.0;        // D = (statistic - df) / n
  Interval effect_interval;  // for lambda_nc / n
  std::vector<ResidualBin> top_bins;
  std::vector<StructuralViolation> structural_violations;
};

// The power-divergence statistic of observed vs expected (same length, expected > 0,
// observed >= 0). No pooling; formula as in the contract.
double PowerDivergence(std::span<const double> observed, std::span<const double> expected, double lambda);

GoodnessOfFitResult GoodnessOfFitTest(std::span<const std::int64_t> counts, std::span<const double> p,
                                      const GoodnessOfFitOptions& options = {});

}  // namespace sampcheck::statistical
