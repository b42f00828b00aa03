// SPDX-License-Identifier: Apache-2.0
// Canonical reductions (reference/reductions.h, docs/spec/reductions.md).
#include "reference/reductions.h"

#include <array>
#include <cmath>
#include <limits>

namespace sampcheck::reference {

namespace {

constexpr std::size_t kLanes = static_cast<std::size_t>(kCanonicalLanes);
static_assert((kLanes & (kLanes - 1)) == 0, "the tree halves the lane count");

// Max under the contract's total order: NaN first, then value, +0.0 above -0.0.
inline float MaxCombine(float a, float b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a > b) return a;
  if (b > a) return b;
  return std::signbit(a) ? b : a;  // equal: the zeros differ only in sign; prefer +0.0
}

}  // namespace

float CanonicalSum(std::span<const float> row) {
  alignas(64) std::array<float, kLanes> lane;
  lane.fill(-0.0f);
  const std::size_t n = row.size();
  std::size_t base = 0;
  for (; base + kLanes <= n; base += kLanes) {
    for (std::size_t j = 0; j < kLanes; ++j) lane[j] += row[base + j];  // vectorises
  }
  for (std::size_t j = 0; base + j < n; ++j) lane[j] += row[base + j];
  for (std::size_t s = kLanes / 2; s >= 1; s /= 2) {
    for (std::size_t j = 0; j < s; ++j) lane[j] += lane[j + s];
  }
  return lane[0];
}

namespace {

// The lane order, literally: needed only to decide which NaN's bits a NaN row returns.
float LaneOrderMax(std::span<const float> row) {
  std::array<float, kLanes> lane;
  lane.fill(-std::numeric_limits<float>::infinity());
  for (std::size_t i = 0; i < row.size(); ++i) lane[i % kLanes] = MaxCombine(lane[i % kLanes], row[i]);
  for (std::size_t s = kLanes / 2; s >= 1; s /= 2) {
    for (std::size_t j = 0; j < s; ++j) lane[j] = MaxCombine(lane[j], lane[j + s]);
  }
  return lane[0];
}

}  // namespace

float CanonicalMax(std::span<const float> row) {
  // Without NaN the order is total, so any order gives the lane order's result: one
  // vectorisable pass, then the sign of a zero maximum settled separately.
  float m = -std::numeric_limits<float>::infinity();
  int nan = 0;
  for (float x : row) {
    nan |= x != x;
    m = x > m ? x : m;
  }
  if (nan) return LaneOrderMax(row);
  if (m == 0.0f) {
    for (float x : row) {
      if (x == 0.0f && !std::signbit(x)) return 0.0f;
    }
    return -0.0f;
  }
  return m;
}

std::int64_t CanonicalArgmax(std::span<const float> row) {
  // The order on (value, index) is total, so the lane order's winner is the first NaN, else
  // the first maximum.
  if (row.empty()) return -1;
  float m = -std::numeric_limits<float>::infinity();
  int nan = 0;
  for (float x : row) {
    nan |= x != x;
    m = x > m ? x : m;
  }
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (nan ? std::isnan(row[i]) : row[i] == m) return static_cast<std::int64_t>(i);
  }
  return 0;  // unreachable: some element equals m
}

}  // namespace sampcheck::reference
