// SPDX-License-Identifier: Apache-2.0
// Tensor and TensorView (core/tensor.h).
#include "core/tensor.h"

#include <cstring>
#include <limits>

namespace sampcheck {

std::optional<std::int64_t> CheckedNumElements(std::span<const std::int64_t> shape,
                                               std::size_t element_size) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) return std::nullopt;
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(n, static_cast<std::int64_t>(element_size), &bytes)) {
    return std::nullopt;
  }
  return n;
}

std::string ShapeString(std::span<const std::int64_t> shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

namespace {
std::int64_t NumElementsOrThrow(const Shape& shape, DType dtype) {
  auto n = CheckedNumElements(shape, DTypeSize(dtype));
  if (!n) {
    throw std::invalid_argument("Tensor: shape " + ShapeString(shape) + " of " +
                                std::string(DTypeName(dtype)) +
                                " has a negative extent or an overflowing size");
  }
  return *n;
}
}  // namespace

TensorView::TensorView(DType dtype, Shape shape, const std::byte* data)
    : dtype_(dtype), shape_(std::move(shape)), numel_(NumElementsOrThrow(shape_, dtype)),
      data_(data) {}

void TensorView::ThrowDTypeMismatch() const {
  throw std::logic_error("tensor of dtype " + std::string(DTypeName(dtype_)) +
                         " accessed with a mismatched element type");
}

Tensor::Tensor(DType dtype, Shape shape) : Tensor(Uninitialized(dtype, std::move(shape))) {
  if (!bytes_.empty()) std::memset(bytes_.data(), 0, bytes_.size());
}

Tensor Tensor::Uninitialized(DType dtype, Shape shape) {
  Tensor t(0);
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = NumElementsOrThrow(t.shape_, dtype);
  t.bytes_.resize(static_cast<std::size_t>(t.numel_) * DTypeSize(dtype));
  return t;
}

bool BitwiseEqual(const TensorView& a, const TensorView& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  auto x = a.bytes();
  auto y = b.bytes();
  return x.empty() || std::memcmp(x.data(), y.data(), x.size()) == 0;
}

}  // namespace sampcheck
