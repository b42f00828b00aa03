// SPDX-License-Identifier: Apache-2.0
// token_bitmask (reference/token_bitmask.h, docs/spec/masks.md#token_bitmask).
#include "reference/token_bitmask.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

constexpr std::uint32_t kNegInfBits = 0xFF800000u;  // -inf in binary32
static_assert(std::numeric_limits<float>::is_iec559);

// One bit per lane: a word is expanded by AND with this table and a compare, which SSE2
// vectorises (a per-lane variable shift would need AVX2).
constexpr std::array<std::uint32_t, 32> kLaneBit = [] {
  std::array<std::uint32_t, 32> a{};
  for (int i = 0; i < 32; ++i) a[static_cast<std::size_t>(i)] = 1u << i;
  return a;
}();

// Tokens [0, n) of one 32-token word; bits are selected, never branched on, so the cost does
// not depend on the mask's pattern.
void MaskWord(float* cell, std::uint32_t word, std::int64_t n) {
  std::uint32_t bits[32];
  std::memcpy(bits, cell, static_cast<std::size_t>(n) * sizeof(float));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t keep = 0u - static_cast<std::uint32_t>((word & kLaneBit[static_cast<std::size_t>(i)]) != 0);
    bits[i] = (bits[i] & keep) | (kNegInfBits & ~keep);
  }
  std::memcpy(cell, bits, static_cast<std::size_t>(n) * sizeof(float));
}

void MaskRow(float* row, const std::int32_t* words, std::int64_t vocab_size) {
  const std::int64_t full = vocab_size / 32;
  for (std::int64_t w = 0; w < full; ++w) {
    const auto word = static_cast<std::uint32_t>(words[w]);
    if (word != 0xFFFFFFFFu) MaskWord(row + w * 32, word, 32);  // -1: all 32 allowed
  }
  if (vocab_size % 32) MaskWord(row + full * 32, static_cast<std::uint32_t>(words[full]), vocab_size % 32);
}

}  // namespace

TokenBitmaskArgs ParseTokenBitmask(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "token_bitmask");
  TokenBitmaskArgs a;
  a.logits = in.Logits();
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  a.bitmask = &in.Required("bitmask");
  const std::int64_t mask_rows = a.bitmask->dim(0), words = a.bitmask->dim(1);
  const std::int64_t limit = std::min(vocab, words * 32);
  a.vocab_size = limit;
  if (c.params.contains("vocab_size")) {
    const auto& v = c.params["vocab_size"];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > limit) {
      in.Fail("parameter vocab_size = " + v.dump() + " must be an integer in [0, min(V, 32 W)] = [0, " +
              std::to_string(limit) + "]");
    }
    a.vocab_size = v.get<std::int64_t>();
  }
  a.masked.assign(static_cast<std::size_t>(rows), 0);
  if (const Tensor* idx = in.Optional("indices")) {
    for (std::int32_t r : idx->data<std::int32_t>()) {
      if (r < 0 || r >= rows || r >= mask_rows) {
        in.Fail("indices entry " + std::to_string(r) + " is outside the logits rows [0, " +
                std::to_string(rows) + ") or the bitmask rows [0, " + std::to_string(mask_rows) + ")");
      }
      a.masked[static_cast<std::size_t>(r)] = 1;
    }
  } else {
    in.ExpectDim("bitmask", *a.bitmask, 0, rows);
    std::fill(a.masked.begin(), a.masked.end(), std::uint8_t{1});
  }
  return a;
}

TensorMap RunTokenBitmask(const Case& c, Profile profile) {
  TokenBitmaskArgs a = ParseTokenBitmask(c, profile);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1), words = a.bitmask->dim(1);
  float* x = a.logits.data<float>().data();
  const std::int32_t* m = a.bitmask->data<std::int32_t>().data();
  // Rows are independent and masking one twice changes nothing, so the rows marked by the
  // indices (in any order, repeated or not) are masked once each, in row order.
  for (std::int64_t r = 0; r < rows; ++r) {
    if (a.masked[static_cast<std::size_t>(r)]) MaskRow(x + r * vocab, m + r * words, a.vocab_size);
  }
  return Outputs("logits", std::move(a.logits));
}

SAMPCHECK_REFERENCE_STAGE(token_bitmask, RunTokenBitmask);

}  // namespace sampcheck::reference
