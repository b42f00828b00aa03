// SPDX-License-Identifier: Apache-2.0
#pragma once
// greedy: argmax of each row (docs/spec/greedy.md).
//
// Contract:
// - Input: logits [B, V], V >= 1 (upcast to f32). Output: token [B] i64.
// - Total order, as torch.argmax's comparator (aten SharedReduceOps.h, GreaterOrNan): NaN
//   ranks above every number (of any sign or payload); among equal values — -0.0 and +0.0
//   are equal, all NaNs are equal — the lowest index wins.
//   So: a row with a NaN returns its first NaN; an all -inf row returns 0; ties return the
//   first maximum.
// - Exact tier, no randomness. The argmax is CanonicalArgmax (reference/reductions.h).
// Example: {1, 3, 3, -inf} -> 1; {-inf, -inf} -> 0; {5, NaN, NaN} -> 1.

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

TensorMap RunGreedy(const Case& c, Profile profile);

}  // namespace sampcheck::reference
