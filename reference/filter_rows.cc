// SPDX-License-Identifier: Apache-2.0
// Shared plumbing of the filter stages (reference/filter_rows.h).
#include "reference/filter_rows.h"

#include <algorithm>
#include <cstring>
#include <cmath>
#include <limits>

#include "reference/filter_order.h"
#include "reference/math/exp_array.h"
#include "reference/reductions.h"
#include "reference/row_threads.h"
#include "reference/softmax.h"

namespace sampcheck::reference {

namespace {

typedef float F16 __attribute__((vector_size(64)));
typedef std::int32_t I16 __attribute__((vector_size(64)));

// Whether x[0, n) holds a NaN or +inf: one 16-lane read (the common, clean case).
__attribute__((target_clones("avx512f", "avx2", "default"))) bool HasNaNOrPosInf(const float* x, std::size_t n) {
  const float inf = std::numeric_limits<float>::infinity();
  I16 bad = I16{};
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    F16 v;
    std::memcpy(&v, x + i, sizeof(v));
    bad |= (v != v) | (v == inf);
  }
  std::int32_t any = 0;
  for (int j = 0; j < 16; ++j) any |= bad[j];
  for (; i < n; ++i) any |= (x[i] != x[i]) | (x[i] == inf);
  return any != 0;
}

}  // namespace

Tensor FilterLogits(const StageInputs& in) {
  Tensor logits = in.Logits();
  const auto vocab = logits.dim(1);
  auto x = logits.data<float>();
  if (!HasNaNOrPosInf(x.data(), x.size())) return logits;
  for (std::size_t i = 0; i < x.size(); ++i) {  // find the first one, for the message
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
  ParallelRows(logits.dim(0), [&](std::int64_t b) { fn(b, x.subspan(static_cast<std::size_t>(b) * vocab, vocab)); });
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

namespace {

// Appends the positions of x[0, n) that are not -inf to idx (capacity limit + 64); false as
// soon as more than `limit` are found.
__attribute__((target_clones("avx512f", "avx2", "default"))) bool GatherNotNegInf(const float* x, std::size_t n,
                                                                                 std::size_t limit,
                                                                                 std::int32_t* idx,
                                                                                 std::size_t* count) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  std::size_t c = 0;
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    F16 a, b, d, e;
    std::memcpy(&a, x + i, sizeof(a));
    std::memcpy(&b, x + i + 16, sizeof(b));
    std::memcpy(&d, x + i + 32, sizeof(d));
    std::memcpy(&e, x + i + 48, sizeof(e));
    const I16 hit = (a != neg_inf) | (b != neg_inf) | (d != neg_inf) | (e != neg_inf);
    std::int32_t any = 0;
    for (int j = 0; j < 16; ++j) any |= hit[j];
    if (any == 0) continue;
    for (std::size_t j = i; j < i + 64; ++j) {
      if (x[j] != neg_inf) idx[c++] = static_cast<std::int32_t>(j);
    }
    if (c > limit) return false;
  }
  for (; i < n; ++i) {
    if (x[i] != neg_inf) idx[c++] = static_cast<std::int32_t>(i);
  }
  *count = c;
  return c <= limit;
}

}  // namespace

bool GatherSurvivors(std::span<const float> row, Survivors& out) {
  const std::size_t limit = row.size() / 8;
  out.index.resize(limit + 64);
  std::size_t count = 0;
  if (!GatherNotNegInf(row.data(), row.size(), limit, out.index.data(), &count) || count == 0) return false;
  out.index.resize(count);
  out.value.resize(count);
  for (std::size_t j = 0; j < count; ++j) {
    out.value[j] = row[static_cast<std::size_t>(out.index[j])];
    if (!std::isfinite(out.value[j])) return false;  // NaN or +inf: the dense path's rules
  }
  return true;
}

float SurvivorExponentials(const Survivors& survivors, std::vector<float>& e) {
  const float m = CanonicalMax(survivors.value);  // = CanonicalMax(row): only -inf left out
  e.resize(survivors.value.size());
  math::ExpF32CrArray(survivors.value.data(), survivors.value.size(), m, e.data());
  return CanonicalSumAt(survivors.index, e);
}

void FilteredSoftmaxRow(std::span<const float> row, std::span<float> probs) {
  Survivors survivors;
  if (!GatherSurvivors(row, survivors)) return SoftmaxRow(row, probs);
  std::vector<float> e;
  const float s = SurvivorExponentials(survivors, e);
  std::fill(probs.begin(), probs.end(), 0.0f);
  for (std::size_t j = 0; j < e.size(); ++j) probs[static_cast<std::size_t>(survivors.index[j])] = e[j] / s;
}

void DropSurvivors(std::span<float> row, const Survivors& survivors, std::span<const std::uint8_t> keep) {
  for (std::size_t j = 0; j < survivors.index.size(); ++j) {
    if (!keep[j]) row[static_cast<std::size_t>(survivors.index[j])] = -std::numeric_limits<float>::infinity();
  }
}

}  // namespace sampcheck::reference
