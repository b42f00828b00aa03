// SPDX-License-Identifier: Apache-2.0
#pragma once
// A confidence interval as the statistical library reports it (docs/spec/statistics.md#intervals).
//
// Contract:
// - lower <= upper; level in (0, 1) is the nominal coverage (0.95 unless a caller asks
//   otherwise). One-sided intervals have one end at the parameter's natural bound (0 or 1 for a
//   probability, 0 or +inf for a rate or a noncentrality).
// - Each producer documents its method (Clopper–Pearson, Garwood, noncentral chi-square
//   inversion, L1 concentration) in its own contract block and in the spec.
// Example: ClopperPearson(5, 10, 0.95) == Interval{0.1870860..., 0.8129140..., 0.95}.

namespace sampcheck::statistical {

struct Interval {
  double lower = 0.0;
  double upper = 0.0;
  double level = 0.95;
};

}  // namespace sampcheck::statistical
