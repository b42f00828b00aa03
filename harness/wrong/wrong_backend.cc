// SPDX-License-Identifier: Apache-2.0
// The row helpers the planted faults share (harness/wrong/wrong_backend.h).
#include "harness/wrong/wrong_backend.h"

#include <algorithm>

namespace sampcheck::statistical {

bool DrawsTo(const std::string& stage, ExactTargetKind target) {
  const StageInfo* s = FindStage(stage);
  return s != nullptr && s->draw.target == target;
}

bool IsSpecOnProbs(const std::string& stage) {
  const StageInfo* s = FindStage(stage);
  return s != nullptr && s->draw.target == ExactTargetKind::kSpecFirstToken && s->DistributionInput() != nullptr &&
         s->DistributionInput()->role == Role::kProbs;
}

bool IsExponentialRace(const std::string& stage) {
  const StageInfo* s = FindStage(stage);
  return s != nullptr && s->draw.target == ExactTargetKind::kNormalisedProbs &&
         s->draw.noise == HarnessNoise::kExponential;
}

std::vector<std::int64_t> Order(std::span<const float> row, bool higher_index_first) {
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (row[i] != detail::kNegInf) ids.push_back(static_cast<std::int64_t>(i));
  }
  std::sort(ids.begin(), ids.end(), [&](std::int64_t a, std::int64_t b) {
    const float va = row[static_cast<std::size_t>(a)], vb = row[static_cast<std::size_t>(b)];
    if (va != vb) return va > vb;
    return higher_index_first ? a > b : a < b;
  });
  return ids;
}

std::vector<bool> FirstK(std::span<const float> row, std::int64_t k, bool higher_index_first) {
  std::vector<bool> keep(row.size(), false);
  const auto ids = Order(row, higher_index_first);
  for (std::int64_t j = 0; j < k && j < static_cast<std::int64_t>(ids.size()); ++j) keep[static_cast<std::size_t>(ids[static_cast<std::size_t>(j)])] = true;
  return keep;
}

}  // namespace sampcheck::statistical
