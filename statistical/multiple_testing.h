// SPDX-License-Identifier: Apache-2.0
#pragma once
// Multiple-testing adjustments: Holm (family-wise error) and Benjamini–Hochberg (false
// discovery rate) adjusted p-values (docs/spec/statistics.md#multiple-testing; docs/method.md "Alpha
// budget": Holm over every statistical p-value of a run).
//
// Contract:
// - p: raw p-values, each in [0, 1] (NaN throws). Output in the input order, same length;
//   empty in, empty out.
// - Holm (1979): sort ascending (ties by input position), adjusted p_(i) =
//   max_{j <= i} min(1, (m - j + 1) p_(j)). Reject H_i at FWER alpha iff adjusted <= alpha.
// - Benjamini–Hochberg (1995): adjusted p_(i) = min_{j >= i} min(1, m p_(j) / j). Same as R's
//   p.adjust(method = "holm" / "BH").
// - Properties: raw <= BH <= Holm <= 1; each adjustment is monotone in the raw p-values.
// Example: HolmAdjust({0.01, 0.04, 0.03}) == {0.03, 0.06, 0.06};
//   BenjaminiHochbergAdjust({0.01, 0.04, 0.03}) == {0.03, 0.04, 0.04}.

#include <span>
#include <vector>

namespace sampcheck::statistical {

std::vector<double> HolmAdjust(std::span<const double> p);
std::vector<double> BenjaminiHochbergAdjust(std::span<const double> p);

}  // namespace sampcheck::statistical
