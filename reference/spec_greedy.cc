// SPDX-License-Identifier: Apache-2.0
// spec_greedy (reference/spec_greedy.h, docs/spec/speculative.md#spec_greedy).
#include "reference/spec_greedy.h"

#include "reference/draft_tokens.h"
#include "reference/reductions.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

SpecGreedyArgs ParseSpecGreedy(const Case& c) {
  const StageInputs in(c, "spec_greedy");
  return ReadDraftedTarget(c, in);
}

TensorMap RunSpecGreedy(const Case& c, Profile /*profile*/) {
  const SpecGreedyArgs a = ParseSpecGreedy(c);
  const Tensor& drafts = *a.drafts;
  const Tensor& target = a.target;
  const std::vector<std::int64_t>& counts = a.counts;
  const std::int64_t rows = a.rows, width = a.width;
  Tensor emitted(DType::kI64, {rows, width + 1});
  Tensor accepted(DType::kI64, {rows});
  auto out = emitted.data<std::int64_t>();
  std::fill(out.begin(), out.end(), -1);
  for (std::int64_t b = 0; b < rows; ++b) {
    const std::int64_t n = counts[static_cast<std::size_t>(b)];
    const auto draft = Row(drafts, b);
    std::int64_t i = 0;
    for (;; ++i) {
      const std::int64_t a = CanonicalArgmax(PositionRow(target, b, i));
      out[static_cast<std::size_t>(b * (width + 1) + i)] = a;
      if (i == n || draft[static_cast<std::size_t>(i)] != a) break;
    }
    accepted.data<std::int64_t>()[static_cast<std::size_t>(b)] = i;
  }
  TensorMap result = Outputs("emitted", std::move(emitted));
  result.emplace("num_accepted", std::move(accepted));
  return result;
}

SAMPCHECK_REFERENCE_STAGE(spec_greedy, RunSpecGreedy);

}  // namespace sampcheck::reference
