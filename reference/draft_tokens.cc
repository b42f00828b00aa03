// SPDX-License-Identifier: Apache-2.0
// Draft tokens and per-position rows (reference/draft_tokens.h, docs/spec/speculative.md#inputs).
#include "reference/draft_tokens.h"

#include <cmath>

namespace sampcheck::reference {

std::vector<std::int64_t> DraftCounts(const StageInputs& in, const Tensor& draft_ids, std::int64_t vocab) {
  const std::int64_t rows = draft_ids.dim(0), width = draft_ids.dim(1);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(rows), 0);
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto row = Row(draft_ids, b);
    std::int64_t n = 0;
    for (std::int64_t i = 0; i < width; ++i) {
      const std::int32_t id = row[static_cast<std::size_t>(i)];
      const std::string where = "'draft_ids' row " + std::to_string(b) + " column " + std::to_string(i);
      if (id == -1) continue;
      if (id < 0 || id >= vocab) {
        in.Fail(where + " is token id " + std::to_string(id) + ", outside the vocabulary [0, " +
                std::to_string(vocab) + ") (-1 is padding)");
      }
      if (n != i) in.Fail(where + " is token id " + std::to_string(id) + " after -1 padding; padding must be trailing");
      ++n;
    }
    counts[static_cast<std::size_t>(b)] = n;
  }
  return counts;
}

Tensor PositionRows(const Case& c, const StageInputs& in, const std::string& name, std::int64_t rows,
                    std::int64_t positions, std::int64_t vocab) {
  // Messages are built with append: GCC 12 reports a false -Wrestrict on "literal" + string here.
  auto it = c.inputs.find(name);
  if (it == c.inputs.end()) {
    std::string message = "missing input tensor '";
    in.Fail(message.append(name).append("' (f32, f16 or bf16 [B, positions, V])"));
  }
  const Tensor& t = it->second;
  if (!WidensToF32(t.dtype())) {
    std::string message = "'";
    in.Fail(message.append(name).append("' must be f32, f16 or bf16, got ").append(DTypeName(t.dtype())));
  }
  if (t.rank() != 3 || t.dim(0) != rows || t.dim(1) != positions || t.dim(2) < 1 ||
      (vocab >= 0 && t.dim(2) != vocab)) {
    std::string message = "'";
    message.append(name).append("' must be [").append(std::to_string(rows)).append(", ");
    message.append(std::to_string(positions)).append(", ");
    message.append(vocab >= 0 ? std::to_string(vocab) : std::string("V >= 1")).append("], got shape ");
    in.Fail(message.append(ShapeString(t.shape())));
  }
  return UpcastToF32(t, in.stage() + ": '" + name + "'");
}

Tensor PositionProbabilities(const Case& c, const StageInputs& in, const std::string& name, std::int64_t rows,
                             std::int64_t positions, std::int64_t vocab) {
  Tensor t = PositionRows(c, in, name, rows, positions, vocab);
  // NaN and +inf are values a model's rows can hold (docs/spec/speculative.md "Degenerate
  // rows" gives each profile's result); a negative entry is no probability at all.
  for (float p : t.data<float>()) {
    if (p < 0.0f) in.Fail("'" + name + "' holds " + FormatFloat(p) + "; probabilities must be >= 0 (NaN and +inf are read)");
  }
  return t;
}

std::span<const float> PositionRow(const Tensor& t, std::int64_t b, std::int64_t position) {
  const auto vocab = static_cast<std::size_t>(t.dim(2));
  const auto at = (static_cast<std::size_t>(b) * static_cast<std::size_t>(t.dim(1)) + static_cast<std::size_t>(position)) * vocab;
  return t.data<float>().subspan(at, vocab);
}

DraftedTarget ReadDraftedTarget(const Case& c, const StageInputs& in) {
  DraftedTarget d;
  d.drafts = &in.Required("draft_ids", DType::kI32, 2);
  d.rows = d.drafts->dim(0);
  d.width = d.drafts->dim(1);
  d.target = PositionRows(c, in, "target_logits", d.rows, d.width + 1);
  d.vocab = d.target.dim(2);
  d.counts = DraftCounts(in, *d.drafts, d.vocab);
  return d;
}

}  // namespace sampcheck::reference
