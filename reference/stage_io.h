// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading a case's tensors at the reference's public boundary: presence, dtype and shape
// checks with messages that name the stage, the tensor and what was expected
// (std::invalid_argument, docs/contributing.md "Errors"), and the f16/bf16 -> f32 upcast every logits
// stage starts with (docs/spec/dtypes.md).

#include <cstdint>
#include <span>
#include <string>

#include <Eigen/Core>

#include "core/case.h"
#include "core/stage_catalogue.h"
#include "core/tensor.h"

namespace sampcheck::reference {

using LogitsArray = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using LogitsMap = Eigen::Map<LogitsArray>;

// Row-major [B, V] view of an f32 rank-2 tensor.
LogitsMap AsArray(Tensor& logits);

// A stage's outputs. Built by emplace: a braced initializer list would copy every tensor.
TensorMap Outputs(std::string name, Tensor t);

// Exact f32 copy of a rank-2 f32/f16/bf16 tensor. When `nan_or_pos_inf` is given, it is set
// to whether the copy holds a NaN or +inf, found in the same pass (the filters' input check
// without a second read of the tensor).
Tensor UpcastToF32(const Tensor& t, const std::string& what, bool* nan_or_pos_inf = nullptr);

class StageInputs {
 public:
  StageInputs(const Case& c, std::string stage) : case_(c), stage_(std::move(stage)) {}

  // "logits" upcast to f32, rank 2 with V >= 1; `nan_or_pos_inf` as UpcastToF32's.
  Tensor Logits(bool* nan_or_pos_inf = nullptr) const;
  // "logits" with Logits()'s checks, in its own dtype (f32, f16 or bf16): for a stage that
  // upcasts one row at a time, so a [B, V] input above 2^31 elements is never held twice in
  // f32 (docs/spec/input_classes.md "Large indices").
  const Tensor& CheckedLogits() const;
  // Input `name` (f32/f16/bf16) upcast to f32; must be [B, V] with V >= 1, or exactly
  // [rows, vocab] when those are given (>= 0).
  Tensor FloatRows(const std::string& name, std::int64_t rows = -1, std::int64_t vocab = -1) const;
  // "probs" as FloatRows, every entry finite and >= 0.
  Tensor Probabilities() const;
  // Input `name` with the one dtype and rank the stage's catalogue entry lists for it
  // (core/stage_catalogue.h): the catalogue is the single statement of a tensor's type.
  const Tensor& Required(const std::string& name) const;
  // nullptr when absent; checked like Required when present.
  const Tensor* Optional(const std::string& name) const;
  // The same for an input whose catalogue entry lists several dtypes or ranks (one per profile,
  // say): `dtype` and `rank` must be among the listed ones.
  const Tensor& Required(const std::string& name, DType dtype, int rank) const;
  const Tensor* Optional(const std::string& name, DType dtype, int rank) const;
  // Throws unless dim(i) of tensor `name` equals `extent`.
  void ExpectDim(const std::string& name, const Tensor& t, int i, std::int64_t extent) const;
  // Every entry is -1 (padding) or a token id in [0, vocab).
  void ExpectIdsOrPadding(const std::string& name, const Tensor& ids, std::int64_t vocab) const;
  [[noreturn]] void Fail(const std::string& what) const;
  const std::string& stage() const { return stage_; }

 private:
  // The catalogue entry of input `name` of stage_. Reading an input the entry does not list, or
  // as a dtype or rank it does not list, is a defect of the parse function: std::logic_error.
  const TensorSpec& CatalogueInput(const std::string& name) const;
  void ExpectListed(const std::string& name, DType dtype, int rank) const;

  const Case& case_;
  std::string stage_;
};

// "1e-10 (0x1.b7cdfep-34)": a float for error messages, decimal and exact hex.
std::string FormatFloat(float v);

// token[b] = index, for the draw stages' [B] i64 output.
void StoreToken(Tensor& token, std::int64_t b, std::int64_t index);

// Row b of a rank-2 i32 tensor.
std::span<const std::int32_t> Row(const Tensor& t, std::int64_t b);

}  // namespace sampcheck::reference
