// SPDX-License-Identifier: Apache-2.0
// Tests of the continuous-law checks (statistical/continuous_laws.h,
// docs/spec/statistics.md#continuous-laws).
//
// Expected KS values: printed by
//   /usr/bin/python3 tests/python/statistical_reference_values.py
// (mpmath: D_n exactly from the same IEEE doubles, Kolmogorov's series
// P(K > t) = 2 sum (-1)^(k-1) exp(-2 k^2 t^2)). Tolerance 1e-10 relative.
#include "statistical/continuous_laws.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/split_mix64.h"
#include "statistical/chi_square.h"
#include "tests/support/relative_near.h"

namespace sampcheck::statistical {
namespace {

using sampcheck::testing::RelativeNear;
constexpr double kRel = 1e-10;

TEST(ContinuousLaws, CdfsAtKnownPoints) {
  EXPECT_EQ(LawCdf(ContinuousLaw::kUniform01, 0.25), 0.25);
  EXPECT_EQ(LawCdf(ContinuousLaw::kUniform01, -1.0), 0.0);
  EXPECT_EQ(LawCdf(ContinuousLaw::kUniform01, 2.0), 1.0);
  // Exp(1): F(ln 2) = 1/2; Gumbel: F(0) = e^-1 (closed forms).
  EXPECT_TRUE(RelativeNear(LawCdf(ContinuousLaw::kExponential1, std::log(2.0)), 0.5, 1e-15));
  EXPECT_EQ(LawCdf(ContinuousLaw::kExponential1, -3.0), 0.0);
  EXPECT_TRUE(RelativeNear(LawCdf(ContinuousLaw::kGumbel, 0.0), std::exp(-1.0), 1e-15));
  EXPECT_EQ(LawCdf(ContinuousLaw::kGumbel, -INFINITY), 0.0);
  EXPECT_EQ(LawCdf(ContinuousLaw::kGumbel, INFINITY), 1.0);
  // Upper tails without cancellation: Exp(1) sf(50) = e^-50; Gumbel sf(40) = -expm1(-e^-40).
  EXPECT_TRUE(RelativeNear(LawSf(ContinuousLaw::kExponential1, 50.0), std::exp(-50.0), 1e-13));
  EXPECT_TRUE(RelativeNear(LawSf(ContinuousLaw::kGumbel, 40.0), -std::expm1(-std::exp(-40.0)), 1e-13));
  EXPECT_THROW(LawCdf(ContinuousLaw::kGumbel, NAN), std::invalid_argument);
}

TEST(ContinuousLaws, QuantileInvertsCdf) {
  for (ContinuousLaw law : {ContinuousLaw::kUniform01, ContinuousLaw::kExponential1, ContinuousLaw::kGumbel}) {
    for (double q : {1e-7, 0.1, 0.5, 0.9, 1 - 1e-7}) {
      EXPECT_TRUE(RelativeNear(LawCdf(law, LawQuantile(law, q)), q, 1e-9)) << static_cast<int>(law) << " " << q;
    }
  }
}

TEST(ContinuousLaws, KolmogorovSmirnovMatchesMpmath) {
  // u_i = 0.9 ((i + 0.5) / n) + 0.1, n = 1000, against U(0,1): D = 0.10045000000000001 and
  // p = 3.4418462139015571e-9 (mpmath, same doubles).
  const int n = 1000;
  std::vector<double> u;
  for (int i = 0; i < n; ++i) u.push_back(0.9 * ((i + 0.5) / n) + 0.1);
  const KolmogorovSmirnovResult r = KolmogorovSmirnovTest(u, ContinuousLaw::kUniform01);
  EXPECT_EQ(r.n, n);
  EXPECT_TRUE(RelativeNear(r.statistic, 0.10045000000000001, 1e-14));
  EXPECT_TRUE(RelativeNear(r.p_value, 3.4418462139015571e-9, kRel));
  EXPECT_THROW(KolmogorovSmirnovTest(std::vector<double>{}, ContinuousLaw::kUniform01), std::invalid_argument);
}

TEST(ContinuousLaws, BinnedPitIsExactOnAStratifiedSample) {
  // Ten copies of each bin midpoint: every bin holds 10, statistic 0, p 1 (header example).
  std::vector<double> u;
  for (int c = 0; c < 10; ++c) {
    for (int j = 0; j < 10; ++j) u.push_back(0.05 + 0.1 * j);
  }
  const BinnedPitResult r = BinnedPitTest(u, ContinuousLaw::kUniform01, 10);
  EXPECT_EQ(r.counts, std::vector<std::int64_t>(10, 10));
  EXPECT_EQ(r.statistic, 0.0);
  EXPECT_EQ(r.p_value, 1.0);
  EXPECT_EQ(r.df, 9.0);
  // Too few samples per bin is an error, never a silent merge.
  EXPECT_THROW(BinnedPitTest(u, ContinuousLaw::kUniform01, 50), std::invalid_argument);
  // All mass in one of 10 bins: Cressie–Read statistic against E = 10 per bin.
  const std::vector<double> lumped(100, 0.01);
  const BinnedPitResult bad = BinnedPitTest(lumped, ContinuousLaw::kUniform01, 10);
  EXPECT_EQ(bad.counts[0], 100);
  EXPECT_TRUE(RelativeNear(bad.p_value, ChiSquareSf(bad.statistic, 9), 1e-15));
  EXPECT_LT(bad.p_value, 1e-30);
}

// Exp(1) built as -log(u) from 53-bit uniforms is Exp(1) to double precision: the binned PIT
// test does not reject at the harness alpha (1e-6; fixed seed, deterministic). The same
// variates read as Gumbel are rejected: an effect of order 1 at n = 1e5.
TEST(ContinuousLaws, SampledNoisePassesItsOwnLawAndFailsAnother) {
  SplitMix64 rng(20261122);
  std::vector<double> x;
  for (int i = 0; i < 100000; ++i) {
    const double u = (static_cast<double>(rng.Next() >> 11) + 0.5) * 0x1p-53;  // in (0, 1)
    x.push_back(-std::log(u));
  }
  const BinnedPitResult ok = BinnedPitTest(x, ContinuousLaw::kExponential1, 100);
  EXPECT_GT(ok.p_value, 1e-6) << "statistic " << ok.statistic;
  EXPECT_GT(KolmogorovSmirnovTest(x, ContinuousLaw::kExponential1).p_value, 1e-6);
  EXPECT_LT(BinnedPitTest(x, ContinuousLaw::kGumbel, 100).p_value, 1e-6);
}

TEST(ContinuousLaws, ExactCountsAreBinomialTests) {
  // 12 exceedances of a 0.005 tail in 1000 draws: the binomial value from the script
  // (binom(12, 1000, 0.005) greater = 5.3300112062563768e-3).
  EXPECT_TRUE(RelativeNear(ExactCountTest(12, 1000, 0.005, Alternative::kGreater).p_value,
                           5.3300112062563768e-3, kRel));
  const std::vector<double> x = {0.0, 0.0, 0.5, 1.0, 2.0};
  EXPECT_EQ(CountBelow(x, 0.5), 2);
  EXPECT_EQ(CountAbove(x, 0.5), 2);
}

}  // namespace
}  // namespace sampcheck::statistical
