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

std::vector<SpecJointOutcome> BlockJointLaw(std::span<const double> draft_rows, std::span<const double> target_rows,
                                            std::int64_t vocab) {
  std::vector<SpecJointOutcome> law = SpecJointLaw(draft_rows, target_rows, vocab);  // the outcome list
  for (auto& o : law) o.probability = 0.0;
  const auto v = static_cast<std::size_t>(vocab);
  const std::int64_t k = static_cast<std::int64_t>(draft_rows.size() / v);
  std::vector<std::vector<double>> p, q;
  for (std::int64_t i = 0; i <= k; ++i) p.push_back(NormalisedLaw(target_rows.subspan(static_cast<std::size_t>(i) * v, v)));
  for (std::int64_t i = 0; i < k; ++i) q.push_back(NormalisedLaw(draft_rows.subspan(static_cast<std::size_t>(i) * v, v)));
  std::vector<std::int64_t> x(static_cast<std::size_t>(k), 0);
  for (;;) {
    double prob_x = 1.0;
    for (std::int64_t i = 0; i < k; ++i) prob_x *= q[static_cast<std::size_t>(i)][static_cast<std::size_t>(x[static_cast<std::size_t>(i)])];
    if (prob_x > 0.0) {
      std::vector<double> weight(static_cast<std::size_t>(k + 1), 1.0), h(static_cast<std::size_t>(k + 1), 1.0);
      for (std::int64_t i = 0; i < k; ++i) {
        const auto xi = static_cast<std::size_t>(x[static_cast<std::size_t>(i)]);
        const double num = weight[static_cast<std::size_t>(i)] * p[static_cast<std::size_t>(i)][xi];
        const double d = q[static_cast<std::size_t>(i)][xi];
        weight[static_cast<std::size_t>(i + 1)] = d > 0.0 ? std::min(num / d, 1.0) : (num > 0.0 ? 1.0 : 0.0);
      }
      for (std::int64_t i = 1; i <= k; ++i) {
        const double w = weight[static_cast<std::size_t>(i)];
        if (i == k) {
          h[static_cast<std::size_t>(i)] = w;
          continue;
        }
        double mass = 0.0;
        for (std::size_t y = 0; y < v; ++y) {
          mass += std::max(w * p[static_cast<std::size_t>(i)][y] - q[static_cast<std::size_t>(i)][y], 0.0);
        }
        const double den = mass + (1.0 - w);
        h[static_cast<std::size_t>(i)] = den > 0.0 ? mass / den : 1.0;
      }
      for (std::int64_t stop = 0; stop <= k; ++stop) {
        double p_stop = stop == 0 ? 1.0 : h[static_cast<std::size_t>(stop)];
        for (std::int64_t j = stop + 1; j <= k; ++j) p_stop *= 1.0 - h[static_cast<std::size_t>(j)];
        if (p_stop == 0.0) continue;
        std::vector<double> y_law(v);
        if (stop == k) {
          y_law = p[static_cast<std::size_t>(k)];
        } else {
          double total = 0.0;
          for (std::size_t y = 0; y < v; ++y) {
            y_law[y] = std::max(weight[static_cast<std::size_t>(stop)] * p[static_cast<std::size_t>(stop)][y] -
                                    q[static_cast<std::size_t>(stop)][y],
                                0.0);
            total += y_law[y];
          }
          if (!(total > 0.0)) throw std::invalid_argument("BlockJointLaw: a reachable stop has an empty residual");
          for (double& e : y_law) e /= total;
        }
        std::vector<std::int64_t> tokens(x.begin(), x.begin() + stop);
        tokens.push_back(0);
        for (std::size_t y = 0; y < v; ++y) {
          tokens.back() = static_cast<std::int64_t>(y);
          law[static_cast<std::size_t>(JointOutcomeIndex(vocab, stop, tokens))].probability += prob_x * p_stop * y_law[y];
        }
      }
    }
    std::size_t pos = x.size();
    while (pos > 0 && x[pos - 1] == vocab - 1) x[--pos] = 0;
    if (pos == 0) break;
    ++x[pos - 1];
  }
  return law;
}

}  // namespace sampcheck::reference
