// SPDX-License-Identifier: Apache-2.0
// Shared plumbing of the filter stages (reference/filter_rows.h).
#include "reference/filter_rows.h"

#include <algorithm>
#include <cstring>
#include <cmath>
#include <limits>

#include <immintrin.h>

#include "reference/filter_order.h"
#include "reference/profile_rules.h"
#include "reference/math/exp_array.h"
#include "reference/reductions.h"
#include "reference/row_threads.h"
#include "reference/softmax.h"

namespace sampcheck::reference {

Tensor FilterLogits(const StageInputs& in) { return in.Logits(); }

bool HoldsNanOrPosInf(std::span<const float> row) {
  return std::any_of(row.begin(), row.end(),
                     [](float v) { return std::isnan(v) || v == std::numeric_limits<float>::infinity(); });
}

void DegenerateSoftmaxFilterRow(Profile profile, std::span<float> row, bool enabled) {
  if (enabled && NanSoftmaxEmptiesRow(profile)) std::fill(row.begin(), row.end(), -std::numeric_limits<float>::infinity());
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

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Appends the positions of x[i, n) that are not -inf to idx[*count...]; false as soon as more
// than `limit` are found.
bool GatherTail(const float* x, std::size_t i, std::size_t n, std::size_t limit, std::int32_t* idx, std::size_t* count) {
  std::size_t c = *count;
  for (; i < n; ++i) {
    if (x[i] != kNegInf) idx[c++] = static_cast<std::int32_t>(i);
  }
  *count = c;
  return c <= limit;
}

// The same on blocks of 64: one 64-lane test (the common, all -inf block) and the rare hits
// picked out one by one. Intrinsics, not vector extensions: GCC 12 turns 16-lane compares of
// vector extensions into scalar code on AVX-512F without AVX-512DQ. idx has capacity limit + 64.
__attribute__((target("avx512f"))) bool GatherAvx512(const float* x, std::size_t n, std::size_t limit,
                                                    std::int32_t* idx, std::size_t* count) {
  const __m512 neg_inf = _mm512_set1_ps(kNegInf);
  std::size_t c = 0, i = 0;
  for (; i + 64 <= n; i += 64) {
    const __mmask16 hit = _mm512_cmp_ps_mask(_mm512_loadu_ps(x + i), neg_inf, _CMP_NEQ_UQ) |
                          _mm512_cmp_ps_mask(_mm512_loadu_ps(x + i + 16), neg_inf, _CMP_NEQ_UQ) |
                          _mm512_cmp_ps_mask(_mm512_loadu_ps(x + i + 32), neg_inf, _CMP_NEQ_UQ) |
                          _mm512_cmp_ps_mask(_mm512_loadu_ps(x + i + 48), neg_inf, _CMP_NEQ_UQ);
    if (hit == 0) continue;
    for (std::size_t j = i; j < i + 64; ++j) {
      if (x[j] != kNegInf) idx[c++] = static_cast<std::int32_t>(j);
    }
    if (c > limit) return false;
  }
  *count = c;
  return GatherTail(x, i, n, limit, idx, count);
}

__attribute__((target("avx2"))) bool GatherAvx2(const float* x, std::size_t n, std::size_t limit, std::int32_t* idx,
                                               std::size_t* count) {
  const __m256 neg_inf = _mm256_set1_ps(kNegInf);
  std::size_t c = 0, i = 0;
  for (; i + 64 <= n; i += 64) {
    __m256 hit = _mm256_setzero_ps();
    for (std::size_t j = 0; j < 64; j += 8) hit = _mm256_or_ps(hit, _mm256_cmp_ps(_mm256_loadu_ps(x + i + j), neg_inf, _CMP_NEQ_UQ));
    if (_mm256_movemask_ps(hit) == 0) continue;
    for (std::size_t j = i; j < i + 64; ++j) {
      if (x[j] != kNegInf) idx[c++] = static_cast<std::int32_t>(j);
    }
    if (c > limit) return false;
  }
  *count = c;
  return GatherTail(x, i, n, limit, idx, count);
}

bool GatherScalar(const float* x, std::size_t n, std::size_t limit, std::int32_t* idx, std::size_t* count) {
  *count = 0;
  for (std::size_t i = 0; i < n; i += 64) {
    if (!GatherTail(x, i, std::min(n, i + 64), limit, idx, count)) return false;
  }
  return true;
}

bool GatherNotNegInf(const float* x, std::size_t n, std::size_t limit, std::int32_t* idx, std::size_t* count) {
  static const auto gather = __builtin_cpu_supports("avx512f") ? GatherAvx512
                             : __builtin_cpu_supports("avx2")  ? GatherAvx2
                                                               : GatherScalar;
  return gather(x, n, limit, idx, count);
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
  SurvivorSoftmaxRow(survivors, probs);
}

void SurvivorSoftmaxRow(const Survivors& survivors, std::span<float> probs) {
  std::vector<float> e;
  const float s = SurvivorExponentials(survivors, e);
  std::fill(probs.begin(), probs.end(), 0.0f);
  for (std::size_t j = 0; j < e.size(); ++j) probs[static_cast<std::size_t>(survivors.index[j])] = e[j] / s;
}

void KeepLiveSurvivors(std::span<const float> row, Survivors& survivors) {
  std::size_t n = 0;
  for (std::size_t j = 0; j < survivors.index.size(); ++j) {
    if (row[static_cast<std::size_t>(survivors.index[j])] == -std::numeric_limits<float>::infinity()) continue;
    survivors.index[n] = survivors.index[j];
    survivors.value[n] = survivors.value[j];
    ++n;
  }
  survivors.index.resize(n);
  survivors.value.resize(n);
}

void DropSurvivors(std::span<float> row, const Survivors& survivors, std::span<const std::uint8_t> keep) {
  for (std::size_t j = 0; j < survivors.index.size(); ++j) {
    if (!keep[j]) row[static_cast<std::size_t>(survivors.index[j])] = -std::numeric_limits<float>::infinity();
  }
}

}  // namespace sampcheck::reference
