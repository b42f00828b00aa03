// SPDX-License-Identifier: Apache-2.0
// Case tensor access for the reference stages (reference/stage_io.h).
#include "reference/stage_io.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <vector>

#include <immintrin.h>

#include "core/half.h"
#include "reference/row_threads.h"

namespace sampcheck::reference {

LogitsMap AsArray(Tensor& logits) {
  auto d = logits.data<float>();
  return LogitsMap(d.data(), logits.dim(0), logits.dim(1));
}

TensorMap Outputs(std::string name, Tensor t) {
  TensorMap out;
  out.emplace(std::move(name), std::move(t));
  return out;
}

namespace {

bool IsNaNOrPosInf(float x) { return x != x || x == std::numeric_limits<float>::infinity(); }

// dst = src[0, n), returning whether it holds a NaN or +inf: lanes copied and tested in
// registers, so the check costs no second read. Intrinsics, not vector extensions: GCC 12
// turns 16-lane compares of vector extensions into scalar code on AVX-512F without AVX-512DQ.
__attribute__((target("avx512f"))) bool CopyFindingAvx512(const float* src, float* dst, std::size_t n) {
  const __m512 inf = _mm512_set1_ps(std::numeric_limits<float>::infinity());
  __mmask16 bad = 0;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(src + i);
    _mm512_storeu_ps(dst + i, v);
    bad |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(v, inf, _CMP_EQ_OQ);
  }
  bool any = bad != 0;
  for (; i < n; ++i) any |= IsNaNOrPosInf(dst[i] = src[i]);
  return any;
}

__attribute__((target("avx2"))) bool CopyFindingAvx2(const float* src, float* dst, std::size_t n) {
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  __m256 bad = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(src + i);
    _mm256_storeu_ps(dst + i, v);
    bad = _mm256_or_ps(bad, _mm256_or_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q), _mm256_cmp_ps(v, inf, _CMP_EQ_OQ)));
  }
  bool any = _mm256_movemask_ps(bad) != 0;
  for (; i < n; ++i) any |= IsNaNOrPosInf(dst[i] = src[i]);
  return any;
}

bool CopyFindingScalar(const float* src, float* dst, std::size_t n) {
  bool any = false;
  for (std::size_t i = 0; i < n; ++i) any |= IsNaNOrPosInf(dst[i] = src[i]);
  return any;
}

bool CopyFindingNaNOrPosInf(const float* src, float* dst, std::size_t n) {
  static const auto copy = __builtin_cpu_supports("avx512f") ? CopyFindingAvx512
                           : __builtin_cpu_supports("avx2")  ? CopyFindingAvx2
                                                             : CopyFindingScalar;
  return copy(src, dst, n);
}

}  // namespace

Tensor UpcastToF32(const Tensor& t, const std::string& what, bool* nan_or_pos_inf) {
  Tensor out = Tensor::Uninitialized(DType::kF32, t.shape());
  auto o = out.data<float>();
  switch (t.dtype()) {
    case DType::kF32: {
      auto s = t.data<float>();
      if (nan_or_pos_inf) {
        // Row by row under --threads (reference/row_threads.h): the copy is a full pass over
        // fresh memory, and a serial one would cap two threads' speed-up well below 2.
        const std::int64_t rows = t.rank() == 2 ? t.dim(0) : 1;
        const auto width = static_cast<std::size_t>(rows > 0 ? t.numel() / rows : 0);
        std::vector<std::uint8_t> bad(static_cast<std::size_t>(rows), 0);
        ParallelRows(rows, [&](std::int64_t b) {
          const std::size_t at = static_cast<std::size_t>(b) * width;
          bad[static_cast<std::size_t>(b)] = CopyFindingNaNOrPosInf(s.data() + at, o.data() + at, width) ? 1 : 0;
        });
        *nan_or_pos_inf = std::any_of(bad.begin(), bad.end(), [](std::uint8_t x) { return x != 0; });
        return out;
      }
      std::copy(s.begin(), s.end(), o.begin());
      break;
    }
    case DType::kF16:
    case DType::kBF16: {
      auto s = t.data<std::uint16_t>();
      const bool f16 = t.dtype() == DType::kF16;
      for (std::size_t i = 0; i < s.size(); ++i) o[i] = f16 ? F16BitsToF32(s[i]) : BF16BitsToF32(s[i]);
      break;
    }
    default:
      throw std::invalid_argument(what + ": expected f32, f16 or bf16, got " +
                                  std::string(DTypeName(t.dtype())));
  }
  if (nan_or_pos_inf) *nan_or_pos_inf = std::any_of(o.begin(), o.end(), IsNaNOrPosInf);
  return out;
}

void StageInputs::Fail(const std::string& what) const {
  throw std::invalid_argument(stage_ + " (case '" + case_.id + "'): " + what);
}

Tensor StageInputs::Logits(bool* nan_or_pos_inf) const {
  return UpcastToF32(CheckedLogits(), stage_ + ": 'logits'", nan_or_pos_inf);
}

const Tensor& StageInputs::CheckedLogits() const {
  auto it = case_.inputs.find("logits");
  if (it == case_.inputs.end()) Fail("missing input tensor 'logits'");
  const Tensor& t = it->second;
  if (t.rank() != 2) Fail("'logits' must be [B, V], got shape " + ShapeString(t.shape()));
  if (t.dim(1) < 1) Fail("'logits' must have V >= 1 columns");
  if (!WidensToF32(t.dtype())) {
    Fail("'logits' must be f32, f16 or bf16, got " + std::string(DTypeName(t.dtype())));
  }
  return t;
}

Tensor StageInputs::FloatRows(const std::string& name, std::int64_t rows, std::int64_t vocab) const {
  auto it = case_.inputs.find(name);
  if (it == case_.inputs.end()) Fail("missing input tensor '" + name + "'");
  const Tensor& t = it->second;
  if (t.rank() != 2 || t.dim(1) < 1 || (rows >= 0 && t.dim(0) != rows) || (vocab >= 0 && t.dim(1) != vocab)) {
    std::string expected = "[B, V] with V >= 1";
    if (rows >= 0) expected = ShapeString(Shape{rows, vocab});
    std::string message = "'";
    message.append(name).append("' must be ").append(expected).append(", got shape ").append(ShapeString(t.shape()));
    Fail(message);
  }
  if (!WidensToF32(t.dtype())) Fail("'" + name + "' must be f32, f16 or bf16, got " + std::string(DTypeName(t.dtype())));
  return UpcastToF32(t, stage_ + ": '" + name + "'");
}

Tensor StageInputs::Probabilities() const {
  Tensor probs = FloatRows("probs");
  for (float p : probs.data<float>()) {
    if (!std::isfinite(p) || p < 0.0f) Fail("'probs' holds " + FormatFloat(p) + "; probabilities must be finite and >= 0");
  }
  return probs;
}

const TensorSpec& StageInputs::CatalogueInput(const std::string& name) const {
  const StageInfo* stage = FindStage(stage_);
  if (stage == nullptr) throw std::logic_error("parse of '" + stage_ + "': no such stage in the catalogue");
  const TensorSpec* spec = stage->Input(name);
  if (spec == nullptr) {
    throw std::logic_error("parse of '" + stage_ + "' reads input '" + name + "', which its catalogue entry does not list");
  }
  return *spec;
}

void StageInputs::ExpectListed(const std::string& name, DType dtype, int rank) const {
  const TensorSpec& spec = CatalogueInput(name);
  const std::vector<DType> dtypes = spec.ListedDTypes();
  const std::vector<int> ranks = spec.ListedRanks();
  if (std::find(dtypes.begin(), dtypes.end(), dtype) == dtypes.end() ||
      std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) {
    throw std::logic_error("parse of '" + stage_ + "' reads input '" + name + "' as " + std::string(DTypeName(dtype)) +
                           " of rank " + std::to_string(rank) + "; its catalogue entry lists " + spec.dtypes + " " +
                           spec.shape);
  }
}

const Tensor* StageInputs::Optional(const std::string& name) const {
  const TensorSpec& spec = CatalogueInput(name);
  const std::vector<DType> dtypes = spec.ListedDTypes();
  std::vector<int> ranks = spec.ListedRanks();
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (dtypes.size() != 1 || ranks.size() != 1) {
    throw std::logic_error("parse of '" + stage_ + "' reads input '" + name + "' with its catalogue type, but the entry lists " +
                           spec.dtypes + " " + spec.shape + ": name the one this read expects");
  }
  return Optional(name, dtypes.front(), ranks.front());
}

const Tensor& StageInputs::Required(const std::string& name) const {
  const Tensor* t = Optional(name);
  if (!t) Fail("missing input tensor '" + name + "'");
  return *t;
}

const Tensor* StageInputs::Optional(const std::string& name, DType dtype, int rank) const {
  ExpectListed(name, dtype, rank);
  auto it = case_.inputs.find(name);
  if (it == case_.inputs.end()) return nullptr;
  const Tensor& t = it->second;
  if (t.dtype() != dtype) {
    Fail("'" + name + "' must be " + std::string(DTypeName(dtype)) + ", got " +
         std::string(DTypeName(t.dtype())));
  }
  if (t.rank() != rank) {
    Fail("'" + name + "' must have rank " + std::to_string(rank) + ", got shape " +
         ShapeString(t.shape()));
  }
  return &t;
}

const Tensor& StageInputs::Required(const std::string& name, DType dtype, int rank) const {
  const Tensor* t = Optional(name, dtype, rank);
  if (!t) Fail("missing input tensor '" + name + "'");
  return *t;
}

void StageInputs::ExpectDim(const std::string& name, const Tensor& t, int i,
                            std::int64_t extent) const {
  if (t.dim(i) != extent) {
    Fail("'" + name + "' dimension " + std::to_string(i) + " must be " + std::to_string(extent) +
         ", got shape " + ShapeString(t.shape()));
  }
}

void StageInputs::ExpectIdsOrPadding(const std::string& name, const Tensor& ids,
                                     std::int64_t vocab) const {
  auto d = ids.data<std::int32_t>();
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] == -1) continue;
    if (d[i] < 0 || d[i] >= vocab) {
      Fail("'" + name + "' entry " + std::to_string(i) + " is token id " + std::to_string(d[i]) +
           ", outside the vocabulary [0, " + std::to_string(vocab) + ") (-1 is padding)");
    }
  }
}

std::string FormatFloat(float v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g (%a)", static_cast<double>(v), static_cast<double>(v));
  return buf;
}

void StoreToken(Tensor& token, std::int64_t b, std::int64_t index) {
  token.data<std::int64_t>()[static_cast<std::size_t>(b)] = index;
}

std::span<const std::int32_t> Row(const Tensor& t, std::int64_t b) {
  const auto n = static_cast<std::size_t>(t.dim(1));
  return t.data<std::int32_t>().subspan(static_cast<std::size_t>(b) * n, n);
}

}  // namespace sampcheck::reference
