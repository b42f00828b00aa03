// SPDX-License-Identifier: Apache-2.0
#pragma once
// The canonical descending order of a row of logits, and the selection that lets filters sort
// only their survivors (docs/spec/filters.md "Order").
//
// Contract:
// - Order: larger value first; equal values (-0.0 == +0.0 included) in increasing index
//   order. -inf entries come last. Rows must hold no NaN (filters reject NaN rows before
//   ordering).
// - TopIndices(row, n) returns the first min(n, V) indices of that order, sorted. It selects
//   by radix select (a 4096-bucket histogram of the top 12 bits of the value keys, O(V)),
//   builds 64-bit keys only for the selected buckets and sorts only those, so its output
//   equals the prefix of a full sort (tests/top_k_test.cc and top_p_test.cc check this
//   against std::stable_sort).
// - CountReachingMass(row, probs, m): a count n such that the first n tokens of the order
//   hold about mass m (whole histogram buckets, masses summed in double): a starting size for
//   the prefix a top-p rule needs. Only a hint; correctness never depends on it.
// - DescendingOrder(row) is the whole order (LSD radix sort on the same keys, O(V)); the vllm
//   profile's ascending cumulative sum needs it (docs/spec/filters.md "top_p").
// Example: {1, 3, 3, -inf, 2} -> 1, 2, 4, 0, 3.

#include <cstdint>
#include <span>
#include <vector>

namespace sampcheck::reference {

// A key whose ascending unsigned order is the canonical descending order of (value, index).
std::uint64_t DescendingKey(float value, std::int32_t index);

std::vector<std::int32_t> TopIndices(std::span<const float> row, std::int64_t count);
std::vector<std::int32_t> DescendingOrder(std::span<const float> row);
std::int64_t CountReachingMass(std::span<const float> row, std::span<const float> probs, double mass);

}  // namespace sampcheck::reference
