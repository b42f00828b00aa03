// SPDX-License-Identifier: Apache-2.0
// token_bitmask_fill (reference/token_bitmask_fill.h, docs/spec/token_bitmask_fill.md).
#include "reference/token_bitmask_fill.h"

#include <cstdint>
#include <string>
#include <vector>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

// xgrammar's vocabulary size is a C++ int (DynamicBitset(int size)); a larger one has no
// bitmask in its layout.
constexpr std::int64_t kMaxVocab = (std::int64_t{1} << 31) - 1;
// At most 2^28 words (1 GiB) in the output, so a bad parameter cannot exhaust memory.
constexpr std::int64_t kMaxWords = std::int64_t{1} << 28;

std::int64_t IntParam(const Case& c, const StageInputs& in, const char* name, std::int64_t fallback, std::int64_t lo,
                      std::int64_t hi, bool required) {
  if (!c.params.contains(name)) {
    if (required) in.Fail(std::string("missing parameter ") + name);
    return fallback;
  }
  const auto& v = c.params[name];
  if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
    in.Fail(std::string("parameter ") + name + " = " + v.dump() + " must be an integer in [" + std::to_string(lo) + ", " +
            std::to_string(hi) + "]");
  }
  return v.get<std::int64_t>();
}

}  // namespace

TensorMap RunTokenBitmaskFill(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "token_bitmask_fill");
  const std::int64_t vocab = IntParam(c, in, "vocab_size", 0, 1, kMaxVocab, true);
  const std::int64_t needed = (vocab + 31) / 32;
  const std::int64_t words = IntParam(c, in, "words", needed, needed, kMaxWords, false);
  const Tensor& allowed = in.Required("allowed_ids");
  const Tensor& spec = in.Required("spec_tokens");
  const Tensor& structured = in.Required("structured");

  // The logits rows: each request's first row follows the rows of the requests before it.
  const std::int64_t requests = spec.dim(0);
  std::vector<std::int64_t> first_row(static_cast<std::size_t>(requests));
  std::int64_t rows = 0;
  for (std::int64_t b = 0; b < requests; ++b) {
    const std::int32_t k = spec.data<std::int32_t>()[static_cast<std::size_t>(b)];
    if (k < 0) in.Fail("spec_tokens[" + std::to_string(b) + "] = " + std::to_string(k) + " must be >= 0");
    first_row[static_cast<std::size_t>(b)] = rows;
    rows += 1 + k;
  }
  if (rows > kMaxWords / words) {
    in.Fail("the bitmask would hold " + std::to_string(rows) + " x " + std::to_string(words) + " words, above 2^28");
  }
  const Tensor* buffer = in.Optional("buffer");
  if (buffer != nullptr) {
    in.ExpectDim("buffer", *buffer, 0, rows);
    in.ExpectDim("buffer", *buffer, 1, words);
  }

  // Which compacted rows belong to which logits rows, in the compacted order.
  std::vector<std::int32_t> indices;
  std::vector<bool> seen(static_cast<std::size_t>(requests), false);
  for (std::int32_t b : structured.data<std::int32_t>()) {
    if (b < 0 || b >= requests) {
      in.Fail("structured entry " + std::to_string(b) + " is outside the requests [0, " + std::to_string(requests) + ")");
    }
    if (seen[static_cast<std::size_t>(b)]) in.Fail("structured entry " + std::to_string(b) + " is repeated");
    seen[static_cast<std::size_t>(b)] = true;
    const std::int32_t k = spec.data<std::int32_t>()[static_cast<std::size_t>(b)];
    for (std::int32_t i = 0; i <= k; ++i) indices.push_back(static_cast<std::int32_t>(first_row[static_cast<std::size_t>(b)] + i));
  }
  const auto guided = static_cast<std::int64_t>(indices.size());
  in.ExpectDim("allowed_ids", allowed, 0, guided);
  in.ExpectIdsOrPadding("allowed_ids", allowed, vocab);

  // Every word starts all ones: unguided rows stay so, and so does every bit at t >= vocab.
  Tensor bitmask(DType::kI32, {rows, words});
  for (auto& w : bitmask.data<std::int32_t>()) w = -1;
  auto* bits = reinterpret_cast<std::uint32_t*>(bitmask.data<std::int32_t>().data());
  const std::int64_t width = allowed.dim(1);
  for (std::int64_t g = 0; g < guided; ++g) {
    std::uint32_t* row = bits + static_cast<std::int64_t>(indices[static_cast<std::size_t>(g)]) * words;
    for (std::int64_t w = 0; w < needed; ++w) row[w] = 0;
    if (vocab % 32) row[needed - 1] = ~((std::uint32_t{1} << (vocab % 32)) - 1);  // the tail: 1
    for (std::int64_t a = 0; a < width; ++a) {
      const std::int64_t t = allowed.data<std::int32_t>()[static_cast<std::size_t>(g * width + a)];
      if (t >= 0) row[t / 32] |= std::uint32_t{1} << (t % 32);
    }
  }
  Tensor out_indices(DType::kI32, {guided});
  for (std::int64_t g = 0; g < guided; ++g) out_indices.data<std::int32_t>()[static_cast<std::size_t>(g)] = indices[static_cast<std::size_t>(g)];
  TensorMap result = Outputs("bitmask", std::move(bitmask));
  result.emplace("indices", std::move(out_indices));
  return result;
}

SAMPCHECK_REFERENCE_STAGE(token_bitmask_fill, RunTokenBitmaskFill);

}  // namespace sampcheck::reference
