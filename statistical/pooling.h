// SPDX-License-Identifier: Apache-2.0
#pragma once
// A-priori pooling of token categories for goodness-of-fit tests (docs/method.md "Omnibus statistic
// and pooling"). Bins depend only on the target probabilities p and the sample size n, never
// on observed counts, so pooling cannot be tuned to the data.
//
// Contract:
// - p: probabilities of tokens 0..V-1 (finite, >= 0, not all 0; they need not sum to exactly
//   1 — expected counts use p as given). n > 0, e_min > 0.
// - Tokens with p == 0 are in no bin: a draw of one is a structural (L1) failure, not a GOF
//   matter.
// - Order: p descending, ties by lower token id. Every token with n p >= e_min is its own bin.
//   The others, in that order, are grouped consecutively into pools closed as soon as their
//   expected count reaches e_min. A last pool short of e_min is merged into the previous bin
//   (the previous pool, or the smallest single bin when there is no pool).
// - If the total expected count is below e_min, everything is one bin.
// Example: p = {0.5, 0.3, 0.1, 0.06, 0.04}, n = 100, e_min = 5 -> bins {0} E=50, {1} E=30,
//   {2} E=10, {3} E=6, {4} E=4 is short: merged into {3}: {3, 4} E=10.

#include <cstdint>
#include <span>
#include <vector>

namespace sampcheck::statistical {

struct Bin {
  std::vector<std::int64_t> tokens;  // in pooling order
  double expected = 0.0;             // n * sum of p over the tokens
};

std::vector<Bin> PoolCategories(std::span<const double> p, double n, double e_min);

}  // namespace sampcheck::statistical
