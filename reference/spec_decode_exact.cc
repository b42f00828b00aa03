// SPDX-License-Identifier: Apache-2.0
// Exact laws of speculative rejection sampling (reference/spec_decode_exact.h).
#include "reference/spec_decode_exact.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sampcheck::reference {

std::vector<double> NormalisedLaw(std::span<const double> weights) {
  double total = 0.0;
  for (double w : weights) {
    if (!std::isfinite(w) || w < 0.0) throw std::invalid_argument("NormalisedLaw: weight " + std::to_string(w) + " is not finite >= 0");
    total += w;
  }
  if (!(total > 0.0)) throw std::invalid_argument("NormalisedLaw: the weights sum to 0");
  std::vector<double> law(weights.begin(), weights.end());
  for (double& p : law) p /= total;
  return law;
}

double AcceptanceProbability(std::span<const double> target, std::span<const double> draft) {
  if (target.size() != draft.size()) throw std::invalid_argument("AcceptanceProbability: rows of different lengths");
  const auto p = NormalisedLaw(target), q = NormalisedLaw(draft);
  double accept = 0.0;
  for (std::size_t j = 0; j < p.size(); ++j) accept += std::min(p[j], q[j]);
  return accept;
}

std::vector<double> ResidualLaw(std::span<const double> target, std::span<const double> draft) {
  if (target.size() != draft.size()) throw std::invalid_argument("ResidualLaw: rows of different lengths");
  const auto p = NormalisedLaw(target), q = NormalisedLaw(draft);
  std::vector<double> r(p.size());
  double total = 0.0;
  for (std::size_t j = 0; j < p.size(); ++j) total += r[j] = std::max(p[j] - q[j], 0.0);
  if (!(total > 0.0)) throw std::invalid_argument("ResidualLaw: target == draft, the residual is empty");
  for (double& x : r) x /= total;
  return r;
}

namespace {

std::vector<double> FirstTokenLaw(std::span<const double> target, std::span<const double> draft, std::int64_t x,
                                  bool accept_zero_draft) {
  if (target.size() != draft.size() || x < 0 || x >= static_cast<std::int64_t>(target.size())) {
    throw std::invalid_argument("FirstTokenLawGivenDraft: rows of different lengths or draft outside the vocabulary");
  }
  const auto p = NormalisedLaw(target), q = NormalisedLaw(draft);
  const auto xi = static_cast<std::size_t>(x);
  const double a = q[xi] > 0.0 ? std::min(1.0, p[xi] / q[xi]) : (accept_zero_draft && p[xi] > 0.0 ? 1.0 : 0.0);
  std::vector<double> law(p.size(), 0.0);
  law[xi] = a;
  if (a < 1.0) {
    const auto r = ResidualLaw(target, draft);
    for (std::size_t j = 0; j < law.size(); ++j) law[j] += (1.0 - a) * r[j];
  }
  return law;
}

}  // namespace

std::vector<double> FirstTokenLawGivenDraft(std::span<const double> target, std::span<const double> draft, std::int64_t x) {
  return FirstTokenLaw(target, draft, x, false);
}

std::vector<double> FirstTokenLawGivenDraftAcceptingZero(std::span<const double> target, std::span<const double> draft,
                                                         std::int64_t x) {
  return FirstTokenLaw(target, draft, x, true);
}

std::int64_t JointOutcomeIndex(std::int64_t vocab, std::int64_t accepted, std::span<const std::int64_t> tokens) {
  if (static_cast<std::int64_t>(tokens.size()) != accepted + 1) throw std::invalid_argument("JointOutcomeIndex: need accepted + 1 tokens");
  std::int64_t offset = 0, block = vocab;
  for (std::int64_t l = 0; l < accepted; ++l, block *= vocab) offset += block;
  std::int64_t index = 0;
  for (std::int64_t t : tokens) index = index * vocab + t;
  return offset + index;
}

std::vector<SpecJointOutcome> SpecJointLaw(std::span<const double> draft_rows, std::span<const double> target_rows,
                                           std::int64_t vocab) {
  if (vocab < 1 || target_rows.size() % static_cast<std::size_t>(vocab) != 0 ||
      target_rows.size() != draft_rows.size() + static_cast<std::size_t>(vocab)) {
    throw std::invalid_argument("SpecJointLaw: need k draft rows and k + 1 target rows of V entries");
  }
  const auto v = static_cast<std::size_t>(vocab);
  const std::int64_t k = static_cast<std::int64_t>(draft_rows.size() / v);
  std::vector<std::vector<double>> p, q;
  for (std::int64_t i = 0; i <= k; ++i) p.push_back(NormalisedLaw(target_rows.subspan(static_cast<std::size_t>(i) * v, v)));
  for (std::int64_t i = 0; i < k; ++i) q.push_back(NormalisedLaw(draft_rows.subspan(static_cast<std::size_t>(i) * v, v)));
  std::vector<SpecJointOutcome> law;
  for (std::int64_t accepted = 0; accepted <= k; ++accepted) {
    std::vector<std::int64_t> tokens(static_cast<std::size_t>(accepted + 1), 0);
    for (;;) {
      double prob = 1.0;
      for (std::int64_t i = 0; i < accepted; ++i) {
        const auto x = static_cast<std::size_t>(tokens[static_cast<std::size_t>(i)]);
        prob *= std::min(p[static_cast<std::size_t>(i)][x], q[static_cast<std::size_t>(i)][x]);
      }
      const auto y = static_cast<std::size_t>(tokens.back());
      const auto& pl = p[static_cast<std::size_t>(accepted)];
      prob *= accepted < k ? std::max(pl[y] - q[static_cast<std::size_t>(accepted)][y], 0.0) : pl[y];
      law.push_back({accepted, tokens, prob});
      // Next token tuple in lexicographic order (last entry fastest).
      std::size_t pos = tokens.size();
      while (pos > 0 && tokens[pos - 1] == vocab - 1) tokens[--pos] = 0;
      if (pos == 0) break;
      ++tokens[pos - 1];
    }
  }
  return law;
}

}  // namespace sampcheck::reference
