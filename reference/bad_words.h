// SPDX-License-Identifier: Apache-2.0
#pragma once
// bad_words: ban the last token of a bad word when the output ends with the word's prefix
// (docs/spec/masks.md#bad_words).
//
// Contract:
// - Inputs: logits [B, V] (upcast to f32); output_ids [B, Lo] i32, the row's output is its
//   entries before the first -1; bad_words [B, Nw, Lw] i32, each word is its entries before
//   the first -1 (an empty word is absent). Ids in [0, V). Output: logits [B, V] f32.
// - For a word w of length n >= 1 (vllm/v1/sample/ops/bad_words.py): skipped when
//   n > len(output) + 1; otherwise, when the last n - 1 output tokens equal w[0 .. n-2],
//   logits[w[n-1]] = -inf (assignment). A one-token word is always banned. Prompt tokens do
//   not count.
// - canonical = vllm. Exact tier, no randomness.
// Example: output {5, 7}, word {7, 2} -> logits[2] = -inf; word {5, 2} -> nothing.

#include <cstdint>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The stage's inputs after every check above, one message each: what the reference below and the gpu glue (gpu/backend/gpu_backend.cc) compute from. The id
// tensors point into the case, which must outlive the arguments.
struct BadWordsArgs {
  Tensor logits;                       // [B, V], upcast to f32
  const Tensor* output_ids = nullptr;  // [B, Lo] i32 ids or -1
  const Tensor* bad_words = nullptr;   // [B, Nw, Lw] i32 ids or -1
};
BadWordsArgs ParseBadWords(const Case& c, Profile profile);

TensorMap RunBadWords(const Case& c, Profile profile);

}  // namespace sampcheck::reference
