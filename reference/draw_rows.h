// SPDX-License-Identifier: Apache-2.0
#pragma once
// The draw stages' degenerate-row rules (docs/spec/draws.md "Degenerate rows"): the order a
// race's winner is chosen in, and the token of a row with nothing to draw.
//
// Contract:
// - DrawArgmaxAbove(v, best): whether a later candidate v replaces the current winner best
//   in an index-order scan. torch.argmax's total order (greedy.h): NaN above every number,
//   the larger number above, equal values (NaN == NaN, +0 == -0) to the lower index. So a
//   row whose race holds a NaN draws its first NaN, which is what SGLang's
//   `torch.argmax(logprobs + noise)` (multinomial_with_seed) and vLLM's
//   `probs.div_(q).argmax()` (random_sample) return; the gpu kernels use the same order
//   (gpu/block/block_argmax.cuh ArgmaxAbove).
// - kNoDrawToken (reference/profile_rules.h, where the kernels read it too): the token of a
//   row with no candidate.
// Example: scan {1, NaN, 5, NaN}: winner 1 (the first NaN); scan {} -> kNoDrawToken.

#include <cmath>

#include "reference/profile_rules.h"

namespace sampcheck::reference {

inline bool DrawArgmaxAbove(float v, float best) {
  if (std::isnan(best)) return false;  // the first NaN stays
  return std::isnan(v) || v > best;
}

}  // namespace sampcheck::reference
