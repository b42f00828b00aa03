// SPDX-License-Identifier: Apache-2.0
#pragma once
// Canonical reductions over a row: sum, max and argmax in the one fixed order a GPU block can
// follow exactly (docs/architecture.md "Canonical arithmetic", docs/spec/reductions.md).
//
// Contract:
// - The order: kLanes = 1024 virtual lanes. Lane l folds the elements l, l + 1024, l + 2048,
//   ... in increasing index order into an accumulator that starts at the operation's identity.
//   Then the lanes are combined by a fixed binary tree: for stride s = 512, 256, ..., 1, lane l
//   (l < s) becomes combine(lane l, lane l + s). The result is lane 0. Lanes that receive no
//   element keep the identity.
// - Sum: f32 accumulation, one IEEE addition per step, identity -0.0 (x + -0.0 == x for every
//   x, so empty lanes change nothing and an all -0.0 row sums to -0.0). NaN and inf follow
//   IEEE (+inf + -inf = NaN).
// - Max: NaN beats every number; among numbers the larger wins and +0.0 beats -0.0; identity
//   -inf. This is a total order (up to which NaN is returned), so the result does not depend on
//   the order; the lane order fixes which NaN's bits come out.
// - Argmax: NaN beats every number; equal values (+0.0 == -0.0, NaN == NaN) go to the lower
//   index. A total order on (value, index): the result is the first NaN, else the first
//   maximum — torch.argmax's rule (docs/spec/greedy.md). An empty row has no argmax (-1).
// - CanonicalSum may vectorise: lane j of the accumulator array is exactly lane j above, so
//   adding a 1024-wide chunk element-wise is the same sequence of roundings.
// - CanonicalSumAt(index, value): CanonicalSum of the dense row that holds value[j] at
//   index[j] (index strictly increasing) and a zero (of either sign) everywhere else, provided
//   that sum is not zero — only its sign could differ. Exact because x + (+-0) == x for every
//   nonzero x: skipping a zero addend changes at most the sign of a zero partial sum, and a
//   zero partial sum plus y is y whatever its sign. The filters use it after top-k, where the
//   -inf logits' exponentials are +0 and the maximum's is 1 (docs/spec/filters.md "Work on the
//   survivors only").
// Example: CanonicalSum({2^-24, 2^-24, 1}): lanes 0, 1, 2 hold 2^-24, 2^-24, 1. Stride 2 adds
//   lane 2 into lane 0: 2^-24 + 1 is halfway between 1 and 1 + 2^-23 and rounds to even, 1.
//   Stride 1 adds lane 1: 1 + 2^-24 = 1 again. Result 1.0f — where a left-to-right loop gives
//   (2^-24 + 2^-24) + 1 = 1 + 2^-23 exactly.

#include <cstdint>
#include <span>

namespace sampcheck::reference {

inline constexpr int kCanonicalLanes = 1024;

float CanonicalSum(std::span<const float> row);
float CanonicalSumAt(std::span<const std::int32_t> index, std::span<const float> value);
float CanonicalMax(std::span<const float> row);
std::int64_t CanonicalArgmax(std::span<const float> row);

}  // namespace sampcheck::reference
