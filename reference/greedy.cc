// SPDX-License-Identifier: Apache-2.0
// greedy (reference/greedy.h, docs/spec/greedy.md).
#include "reference/greedy.h"

#include "reference/reductions.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

TensorMap RunGreedy(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "greedy");
  Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0);
  const auto vocab = static_cast<std::size_t>(logits.dim(1));
  Tensor token(DType::kI64, {rows});
  auto all = logits.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    token.data<std::int64_t>()[static_cast<std::size_t>(b)] =
        CanonicalArgmax(all.subspan(static_cast<std::size_t>(b) * vocab, vocab));
  }
  return Outputs("token", std::move(token));
}

SAMPCHECK_REFERENCE_STAGE(greedy, RunGreedy);

}  // namespace sampcheck::reference
