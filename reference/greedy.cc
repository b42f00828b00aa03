// SPDX-License-Identifier: Apache-2.0
// greedy (reference/greedy.h, docs/spec/greedy.md).
#include "reference/greedy.h"

#include "reference/reductions.h"
#include "reference/row_threads.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

TensorMap RunGreedy(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "greedy");
  // The stage only reads the row: f32 logits that pass Logits()'s checks are read in place
  // (the upcast copy would be a second pass over B x V floats); f16/bf16 and every malformed
  // input go through Logits(), which upcasts or fails with its message.
  const auto it = c.inputs.find("logits");
  const bool in_place = it != c.inputs.end() && it->second.dtype() == DType::kF32 && it->second.rank() == 2 &&
                        it->second.dim(1) >= 1;
  Tensor upcast;
  if (!in_place) upcast = in.Logits();
  const Tensor& logits = in_place ? it->second : upcast;
  const std::int64_t rows = logits.dim(0);
  const auto vocab = static_cast<std::size_t>(logits.dim(1));
  Tensor token(DType::kI64, {rows});
  auto all = logits.data<float>();
  auto out = token.data<std::int64_t>();
  ParallelRows(rows, [&](std::int64_t b) {
    out[static_cast<std::size_t>(b)] = CanonicalArgmax(all.subspan(static_cast<std::size_t>(b) * vocab, vocab));
  });
  return Outputs("token", std::move(token));
}

SAMPCHECK_REFERENCE_STAGE(greedy, RunGreedy);

}  // namespace sampcheck::reference
