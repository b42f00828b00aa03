// SPDX-License-Identifier: Apache-2.0
// Canonical reductions (reference/reductions.h, docs/spec/reductions.md).
#include "reference/reductions.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
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

float CanonicalSumAt(std::span<const std::int32_t> index, std::span<const float> value) {
  alignas(64) std::array<float, kLanes> lane;
  lane.fill(-0.0f);
  for (std::size_t j = 0; j < index.size(); ++j) lane[static_cast<std::size_t>(index[j]) % kLanes] += value[j];
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

namespace {

// Max and NaN presence of x[0, n) in one read, 16 lanes at a time (generic vectors: AVX-512F,
// AVX2 or the baseline ISA, chosen at load time by target_clones). Without NaN the max is
// order-independent (a total order), so the lane layout cannot change it; `v > m ? v : m`
// keeps the first-seen of two equal zeros, which the callers settle separately.
struct MaxScan {
  float max;
  bool nan;
};

typedef float F16 __attribute__((vector_size(64)));
typedef std::int32_t I16 __attribute__((vector_size(64)));

__attribute__((target_clones("avx512f", "avx2", "default"))) MaxScan ScanMax(const float* x, std::size_t n) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  F16 m = F16{} + kNegInf;
  I16 nan = I16{};
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    F16 v;
    std::memcpy(&v, x + i, sizeof(v));
    nan |= v != v;
    m = v > m ? v : m;
  }
  float best = kNegInf;
  bool any_nan = false;
  for (int j = 0; j < 16; ++j) {
    any_nan |= nan[j] != 0;
    best = m[j] > best ? m[j] : best;
  }
  for (; i < n; ++i) {
    any_nan |= x[i] != x[i];
    best = x[i] > best ? x[i] : best;
  }
  return {best, any_nan};
}

}  // namespace

float CanonicalMax(std::span<const float> row) {
  // Without NaN the order is total, so any order gives the lane order's result: one
  // vectorised pass, then the sign of a zero maximum settled separately.
  const MaxScan scan = ScanMax(row.data(), row.size());
  if (scan.nan) return LaneOrderMax(row);
  if (scan.max == 0.0f) {
    for (float x : row) {
      if (x == 0.0f && !std::signbit(x)) return 0.0f;
    }
    return -0.0f;
  }
  return scan.max;
}

std::int64_t CanonicalArgmax(std::span<const float> row) {
  // The order on (value, index) is total, so the lane order's winner is the first NaN, else
  // the first maximum. One read of the row in blocks: a block holding a NaN holds the answer
  // (earlier blocks had none), so the scan stops there; otherwise the first block whose max
  // is strictly above every earlier block's holds the first maximum, found by a rescan of that
  // block alone (in cache).
  if (row.empty()) return -1;
  constexpr std::size_t kBlock = 4096;
  const float* x = row.data();
  const std::size_t n = row.size();
  float best = -std::numeric_limits<float>::infinity();
  std::size_t best_block = 0;
  for (std::size_t b = 0; b < n; b += kBlock) {
    const std::size_t len = std::min(kBlock, n - b);
    const MaxScan scan = ScanMax(x + b, len);
    if (scan.nan) {
      for (std::size_t i = b;; ++i) {
        if (std::isnan(x[i])) return static_cast<std::int64_t>(i);
      }
    }
    if (scan.max > best) best = scan.max, best_block = b;
  }
  for (std::size_t i = best_block;; ++i) {  // all -inf: best stays -inf, found at index 0
    if (x[i] == best) return static_cast<std::int64_t>(i);
  }
}

}  // namespace sampcheck::reference
