// SPDX-License-Identifier: Apache-2.0
// token_bitmask (reference/token_bitmask.h, docs/spec/masks.md#token_bitmask).
#include "reference/token_bitmask.h"

#include <algorithm>
#include <limits>

#include "reference/stage_io.h"

namespace sampcheck::reference {

namespace {
void MaskRow(float* row, const std::int32_t* words, std::int64_t vocab_size) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (std::int64_t w = 0; w * 32 < vocab_size; ++w) {
    const auto word = static_cast<std::uint32_t>(words[w]);
    if (word == 0xFFFFFFFFu) continue;  // all 32 allowed
    const std::int64_t end = std::min<std::int64_t>(32, vocab_size - w * 32);
    for (std::int64_t bit = 0; bit < end; ++bit) {
      if (((word >> bit) & 1u) == 0) row[w * 32 + bit] = kNegInf;
    }
  }
}
}  // namespace

TensorMap RunTokenBitmask(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "token_bitmask");
  Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const Tensor& mask = in.Required("bitmask", DType::kI32, 2);
  const std::int64_t mask_rows = mask.dim(0), words = mask.dim(1);
  const std::int64_t limit = std::min(vocab, words * 32);
  std::int64_t vocab_size = limit;
  if (c.params.contains("vocab_size")) {
    const auto& v = c.params["vocab_size"];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > limit) {
      in.Fail("parameter vocab_size = " + v.dump() + " must be an integer in [0, min(V, 32 W)] = [0, " +
              std::to_string(limit) + "]");
    }
    vocab_size = v.get<std::int64_t>();
  }
  float* x = logits.data<float>().data();
  const std::int32_t* m = mask.data<std::int32_t>().data();
  auto mask_row = [&](std::int64_t r) { MaskRow(x + r * vocab, m + r * words, vocab_size); };

  if (const Tensor* idx = in.Optional("indices", DType::kI32, 1)) {
    for (std::int32_t r : idx->data<std::int32_t>()) {
      if (r < 0 || r >= rows || r >= mask_rows) {
        in.Fail("indices entry " + std::to_string(r) + " is outside the logits rows [0, " +
                std::to_string(rows) + ") or the bitmask rows [0, " + std::to_string(mask_rows) + ")");
      }
      mask_row(r);
    }
  } else {
    in.ExpectDim("bitmask", mask, 0, rows);
    for (std::int64_t r = 0; r < rows; ++r) mask_row(r);
  }
  return {{"logits", std::move(logits)}};
}

}  // namespace sampcheck::reference
