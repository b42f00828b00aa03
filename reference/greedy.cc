// SPDX-License-Identifier: Apache-2.0
// greedy (reference/greedy.h, docs/spec/greedy.md).
#include "reference/greedy.h"

#include <span>
#include <vector>

#include "core/half.h"

#include "reference/reductions.h"
#include "reference/row_threads.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

TensorMap RunGreedy(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "greedy");
  // The stage only reads the row: f32 logits are read in place, f16/bf16 rows are upcast one
  // row at a time into a per-call buffer (exact, so the argmax is the same as over a whole
  // f32 copy). A [B, V] bf16 input above 2^31 elements (docs/spec/input_classes.md "Large
  // indices") thus needs no second, twice-as-large f32 tensor.
  const Tensor& logits = in.CheckedLogits();
  const std::int64_t rows = logits.dim(0);
  const auto vocab = static_cast<std::size_t>(logits.dim(1));
  Tensor token(DType::kI64, {rows});
  auto out = token.data<std::int64_t>();
  if (logits.dtype() == DType::kF32) {
    auto all = logits.data<float>();
    ParallelRows(rows, [&](std::int64_t b) {
      out[static_cast<std::size_t>(b)] = CanonicalArgmax(all.subspan(static_cast<std::size_t>(b) * vocab, vocab));
    });
  } else {
    auto all = logits.data<std::uint16_t>();
    const bool f16 = logits.dtype() == DType::kF16;
    ParallelRows(rows, [&](std::int64_t b) {
      thread_local std::vector<float> row;
      row.resize(vocab);
      auto bits = all.subspan(static_cast<std::size_t>(b) * vocab, vocab);
      for (std::size_t i = 0; i < vocab; ++i) row[i] = f16 ? F16BitsToF32(bits[i]) : BF16BitsToF32(bits[i]);
      out[static_cast<std::size_t>(b)] = CanonicalArgmax(std::span<const float>(row));
    });
  }
  return Outputs("token", std::move(token));
}

SAMPCHECK_REFERENCE_STAGE(greedy, RunGreedy);

}  // namespace sampcheck::reference
