// SPDX-License-Identifier: Apache-2.0
// Canonical descending order and selection (reference/filter_order.h).
#include "reference/filter_order.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace sampcheck::reference {

std::uint64_t DescendingKey(float value, std::int32_t index) {
  // IEEE order as unsigned integers: flip all bits of negatives, set the sign bit of the rest;
  // -0.0 is folded onto +0.0 first so that the two zeros tie. Complementing gives descending
  // order; the index in the low half breaks ties by increasing index.
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value == 0.0f ? 0.0f : value);
  bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  return (static_cast<std::uint64_t>(~bits) << 32) | static_cast<std::uint32_t>(index);
}

namespace {

std::vector<std::uint64_t> Keys(std::span<const float> row) {
  std::vector<std::uint64_t> keys(row.size());
  for (std::size_t i = 0; i < row.size(); ++i) keys[i] = DescendingKey(row[i], static_cast<std::int32_t>(i));
  return keys;
}

std::vector<std::int32_t> Indices(const std::vector<std::uint64_t>& keys, std::size_t n) {
  std::vector<std::int32_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int32_t>(keys[i] & 0xFFFFFFFFu);
  return out;
}

}  // namespace

std::vector<std::int32_t> TopIndices(std::span<const float> row, std::int64_t count) {
  const std::size_t n = std::min<std::size_t>(row.size(), static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  if (n == 0) return {};
  std::vector<std::uint64_t> keys = Keys(row);
  if (n < keys.size()) std::nth_element(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n), keys.end());
  std::sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n));
  return Indices(keys, n);
}

std::vector<std::int32_t> DescendingOrder(std::span<const float> row) {
  // Stable LSD radix sort, 16 bits per pass, on the value half of the key only: the keys start
  // in increasing index order, which is already the order among equal values, and a stable
  // sort keeps it.
  std::vector<std::uint64_t> keys = Keys(row), tmp(keys.size());
  for (int shift = 32; shift < 64; shift += 16) {
    std::vector<std::uint32_t> count(65537, 0);
    for (std::uint64_t k : keys) ++count[((k >> shift) & 0xFFFF) + 1];
    for (std::size_t b = 1; b < count.size(); ++b) count[b] += count[b - 1];
    for (std::uint64_t k : keys) tmp[count[(k >> shift) & 0xFFFF]++] = k;
    keys.swap(tmp);
  }
  return Indices(keys, keys.size());
}

}  // namespace sampcheck::reference
