// SPDX-License-Identifier: Apache-2.0
// Shared plumbing of the filter stages (reference/filter_rows.h).
#include "reference/filter_rows.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/filter_order.h"

namespace sampcheck::reference {

Tensor FilterLogits(const StageInputs& in) {
  Tensor logits = in.Logits();
  const auto vocab = logits.dim(1);
  auto x = logits.data<float>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || x[i] == std::numeric_limits<float>::infinity()) {
      in.Fail("row " + std::to_string(static_cast<std::int64_t>(i) / vocab) + " holds " +
              (std::isnan(x[i]) ? "NaN" : "+inf") + " at column " +
              std::to_string(static_cast<std::int64_t>(i) % vocab) +
              "; filters need finite or -inf logits (apply nan_handling first)");
    }
  }
  return logits;
}

void ForEachRow(Tensor& logits, const std::function<void(std::int64_t, std::span<float>)>& fn) {
  const auto vocab = static_cast<std::size_t>(logits.dim(1));
  auto x = logits.data<float>();
  for (std::int64_t b = 0; b < logits.dim(0); ++b) fn(b, x.subspan(static_cast<std::size_t>(b) * vocab, vocab));
}

std::int64_t IntParam(const StageInputs& in, const Case& c, const std::string& name, std::int64_t fallback) {
  if (!c.params.contains(name)) return fallback;
  const auto& v = c.params[name];
  if (!v.is_number_integer()) in.Fail("parameter " + name + " = " + v.dump() + " must be an integer");
  return v.get<std::int64_t>();
}

const float* RowParams(const StageInputs& in, const std::string& name, std::int64_t rows) {
  const Tensor* t = in.Optional(name, DType::kF32, 1);
  if (!t) return nullptr;
  in.ExpectDim(name, *t, 0, rows);
  for (std::size_t b = 0; b < t->data<float>().size(); ++b) {
    if (std::isnan(t->data<float>()[b])) in.Fail("'" + name + "'[" + std::to_string(b) + "] is NaN");
  }
  return t->data<float>().data();
}

std::vector<std::int32_t> KeptPrefix(std::span<const float> logits, PrefixRule& rule, std::int64_t initial_count) {
  const auto vocab = static_cast<std::int64_t>(logits.size());
  for (std::int64_t count = std::max<std::int64_t>(initial_count, 1);; count *= 8) {
    std::vector<std::int32_t> order = TopIndices(logits, count);
    rule.Reset();
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
      if (!rule.Keep(order[pos])) {
        order.resize(pos);
        return order;
      }
    }
    if (static_cast<std::int64_t>(order.size()) == vocab) return order;
  }
}

void KeepOnly(std::span<float> row, std::span<const std::int32_t> kept) {
  std::vector<float> values(kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) values[i] = row[static_cast<std::size_t>(kept[i])];
  std::fill(row.begin(), row.end(), -std::numeric_limits<float>::infinity());
  for (std::size_t i = 0; i < kept.size(); ++i) row[static_cast<std::size_t>(kept[i])] = values[i];
}

}  // namespace sampcheck::reference
