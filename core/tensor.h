// SPDX-License-Identifier: Apache-2.0
#pragma once
// Tensor: a dtype, a shape and contiguous row-major little-endian bytes, in owning (Tensor)
// and non-owning read-only (TensorView) forms.
//
// Contract:
// - Shapes have non-negative extents; a 0-d tensor (empty shape) holds one element.
// - The element count of a shape is checked for int64 overflow (CheckedNumElements), and so is
//   its byte size; a tensor is never allocated from an unchecked shape.
// - Typed access checks the dtype: data<float>() on an f16 tensor throws std::logic_error.
//   f16/bf16 are accessed as raw std::uint16_t words (core/half.h converts them).
// - Storage is zero-initialised, so a tensor built from a shape is all +0.0 / 0 / false.
// Example:
//   Tensor t(DType::kF32, {2, 3});   // 2 rows of 3 floats, all +0.0
//   t.data<float>()[4] = 1.5f;       // row 1, column 1
//   t.view().dim(1) == 3

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace sampcheck {

using Shape = std::vector<std::int64_t>;

// Product of the extents, or nullopt when an extent is negative or the product (or the
// product times element_size) overflows int64.
std::optional<std::int64_t> CheckedNumElements(std::span<const std::int64_t> shape,
                                               std::size_t element_size = 1);
// "[2, 3]"
std::string ShapeString(std::span<const std::int64_t> shape);

class TensorView {
 public:
  TensorView(DType dtype, Shape shape, const std::byte* data);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  std::int64_t dim(int i) const { return shape_.at(static_cast<std::size_t>(i)); }
  std::int64_t numel() const { return numel_; }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel_) * DTypeSize(dtype_); }
  std::span<const std::byte> bytes() const { return {data_, nbytes()}; }

  template <class T>
  std::span<const T> data() const {
    if (!kDTypeMatches<T>(dtype_)) ThrowDTypeMismatch();
    return {reinterpret_cast<const T*>(data_), static_cast<std::size_t>(numel_)};
  }

 private:
  [[noreturn]] void ThrowDTypeMismatch() const;
  DType dtype_;
  Shape shape_;
  std::int64_t numel_;
  const std::byte* data_;
};

namespace detail {
// An allocator whose value-less construct() default-initialises, so a byte vector can be sized
// without writing zeros that the caller is about to overwrite.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
}  // namespace detail

class Tensor {
 public:
  Tensor() : Tensor(DType::kF32, Shape{0}) {}
  // Zero-filled. Throws std::invalid_argument on a negative extent or an overflowing size.
  Tensor(DType dtype, Shape shape);
  // Same checks, contents unspecified: for callers that write every element.
  static Tensor Uninitialized(DType dtype, Shape shape);

  template <class T>
  static Tensor FromValues(DType dtype, Shape shape, const std::vector<T>& values) {
    Tensor t(dtype, std::move(shape));
    auto out = t.data<T>();
    if (out.size() != values.size()) {
      throw std::invalid_argument("Tensor::FromValues: " + std::to_string(values.size()) +
                                  " values for shape " + ShapeString(t.shape()));
    }
    std::copy(values.begin(), values.end(), out.begin());
    return t;
  }

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  std::int64_t dim(int i) const { return shape_.at(static_cast<std::size_t>(i)); }
  std::int64_t numel() const { return numel_; }
  std::size_t nbytes() const { return bytes_.size(); }
  std::span<std::byte> bytes() { return {bytes_.data(), bytes_.size()}; }
  std::span<const std::byte> bytes() const { return {bytes_.data(), bytes_.size()}; }
  TensorView view() const { return TensorView(dtype_, shape_, bytes_.data()); }

  template <class T>
  std::span<T> data() {
    if (!kDTypeMatches<T>(dtype_)) view().data<T>();  // throws the mismatch message
    return {reinterpret_cast<T*>(bytes_.data()), static_cast<std::size_t>(numel_)};
  }
  template <class T>
  std::span<const T> data() const {
    return view().data<T>();
  }

 private:
  explicit Tensor(int /*empty*/) : dtype_(DType::kU8), numel_(0) {}
  DType dtype_;
  Shape shape_;
  std::int64_t numel_;
  std::vector<std::byte, detail::DefaultInitAllocator<std::byte>> bytes_;
};

// Same dtype, same shape and the same bytes.
bool BitwiseEqual(const TensorView& a, const TensorView& b);

// Named tensors, ordered by name (the order files and reports use).
using TensorMap = std::map<std::string, Tensor>;

}  // namespace sampcheck
