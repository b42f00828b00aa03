// SPDX-License-Identifier: Apache-2.0
// spec_greedy (reference/spec_greedy.h, docs/spec/speculative.md#spec_greedy).
#include "reference/spec_greedy.h"

#include "reference/draft_tokens.h"
#include "reference/reductions.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

SpecGreedyArgs ParseSpecGreedy(const Case& c) {
  StageInputs in(c, "spec_greedy");
  SpecGreedyArgs a;
  a.drafts = &in.Required("draft_ids", DType::kI32, 2);
  a.rows = a.drafts->dim(0);
  a.width = a.drafts->dim(1);
  a.target = PositionRows(c, in, "target_logits", a.rows, a.width + 1);
  a.vocab = a.target.dim(2);
  a.counts = DraftCounts(in, *a.drafts, a.vocab);
  return a;
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
