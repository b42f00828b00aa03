// SPDX-License-Identifier: Apache-2.0
// A-priori pooling (statistical/pooling.h, docs/method.md "Omnibus statistic and pooling").
#include "statistical/pooling.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace sampcheck::statistical {

std::vector<Bin> PoolCategories(std::span<const double> p, double n, double e_min) {
  if (!(n > 0) || !(e_min > 0)) throw std::invalid_argument("PoolCategories: n and e_min must be > 0");
  std::vector<std::int64_t> order;
  for (std::size_t t = 0; t < p.size(); ++t) {
    if (!std::isfinite(p[t]) || p[t] < 0) {
      throw std::invalid_argument("PoolCategories: p[" + std::to_string(t) + "] is not a finite value >= 0");
    }
    if (p[t] > 0) order.push_back(static_cast<std::int64_t>(t));
  }
  if (order.empty()) throw std::invalid_argument("PoolCategories: every probability is 0");
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return p[static_cast<std::size_t>(a)] > p[static_cast<std::size_t>(b)]; });

  std::vector<Bin> bins;
  std::ptrdiff_t last_pool = -1;  // index in bins of the most recent pool
  Bin open;                       // pool being filled
  for (std::int64_t t : order) {
    const double e = n * p[static_cast<std::size_t>(t)];
    if (e >= e_min) {
      bins.push_back({{t}, e});
      continue;
    }
    open.tokens.push_back(t);
    open.expected += e;
    if (open.expected >= e_min) {
      bins.push_back(std::move(open));
      last_pool = static_cast<std::ptrdiff_t>(bins.size()) - 1;
      open = Bin{};
    }
  }
  if (!open.tokens.empty()) {
    if (bins.empty()) {
      bins.push_back(std::move(open));
    } else {
      // Small tokens come after every single bin in descending order, so with no pool the
      // last single bin is the smallest one.
      Bin& target = last_pool >= 0 ? bins[static_cast<std::size_t>(last_pool)] : bins.back();
      target.tokens.insert(target.tokens.end(), open.tokens.begin(), open.tokens.end());
      target.expected += open.expected;
    }
  }
  return bins;
}

}  // namespace sampcheck::statistical
