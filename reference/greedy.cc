// SPDX-License-Identifier: Apache-2.0
// greedy (reference/greedy.h, docs/spec/greedy.md).
#include "reference/greedy.h"

#include <cmath>

#include "reference/stage_io.h"

namespace sampcheck::reference {

std::int64_t ArgmaxFirst(std::span<const float> row) {
  std::int64_t best = 0;
  float best_value = row[0];
  if (std::isnan(best_value)) return 0;
  for (std::size_t i = 1; i < row.size(); ++i) {
    const float v = row[i];
    if (std::isnan(v)) return static_cast<std::int64_t>(i);
    if (v > best_value) {  // strict: equal values keep the lower index
      best_value = v;
      best = static_cast<std::int64_t>(i);
    }
  }
  return best;
}

TensorMap RunGreedy(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "greedy");
  Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0);
  const auto vocab = static_cast<std::size_t>(logits.dim(1));
  Tensor token(DType::kI64, {rows});
  auto all = logits.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    token.data<std::int64_t>()[static_cast<std::size_t>(b)] =
        ArgmaxFirst(all.subspan(static_cast<std::size_t>(b) * vocab, vocab));
  }
  return Outputs("token", std::move(token));
}

}  // namespace sampcheck::reference
