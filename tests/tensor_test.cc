// SPDX-License-Identifier: Apache-2.0
// Unit tests of core/tensor.h: checked element counts, zero fill, dtype-checked access,
// 0-d and empty tensors, BitwiseEqual. Expected values are hand calculations noted inline.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/tensor.h"
#include "tests/support/test_support.h"

namespace sampcheck {
namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

TEST(CheckedNumElements, MultipliesExtents) {
  const Shape shape{2, 3, 4};
  EXPECT_EQ(CheckedNumElements(shape), 24);     // 2 * 3 * 4
  EXPECT_EQ(CheckedNumElements(shape, 8), 24);  // the byte size 192 fits; the count is returned
}

TEST(CheckedNumElements, EmptyShapeIsOneElement) {
  EXPECT_EQ(CheckedNumElements(Shape{}), 1);  // 0-d: the empty product
}

TEST(CheckedNumElements, ZeroExtentGivesZero) {
  EXPECT_EQ(CheckedNumElements(Shape{3, 0, 5}), 0);
  EXPECT_EQ(CheckedNumElements(Shape{0}), 0);
}

TEST(CheckedNumElements, RejectsNegativeExtent) {
  EXPECT_EQ(CheckedNumElements(Shape{2, -1}), std::nullopt);
  EXPECT_EQ(CheckedNumElements(Shape{-1}), std::nullopt);
}

TEST(CheckedNumElements, RejectsElementCountOverflow) {
  // 2^32 * 2^32 = 2^64 > 2^63 - 1.
  EXPECT_EQ(CheckedNumElements(Shape{std::int64_t{1} << 32, std::int64_t{1} << 32}),
            std::nullopt);
  // 2^31 * 2^32 = 2^63 > 2^63 - 1 (one past the limit).
  EXPECT_EQ(CheckedNumElements(Shape{std::int64_t{1} << 31, std::int64_t{1} << 32}),
            std::nullopt);
  // 2^62 * 1 fits.
  EXPECT_EQ(CheckedNumElements(Shape{std::int64_t{1} << 62, 1}), std::int64_t{1} << 62);
  EXPECT_EQ(CheckedNumElements(Shape{kInt64Max}), kInt64Max);
}

TEST(CheckedNumElements, RejectsByteSizeOverflow) {
  // 2^61 elements fit; times 4 bytes = 2^63 does not, times 2 = 2^62 does.
  const Shape shape{std::int64_t{1} << 61};
  EXPECT_EQ(CheckedNumElements(shape, 4), std::nullopt);
  EXPECT_EQ(CheckedNumElements(shape, 2), std::int64_t{1} << 61);
}

TEST(ShapeString, FormatsExtents) {
  EXPECT_EQ(ShapeString(Shape{2, 3}), "[2, 3]");
  EXPECT_EQ(ShapeString(Shape{}), "[]");
}

TEST(Tensor, IsZeroFilled) {
  Tensor t(DType::kF32, {2, 3});
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 24u);  // 6 * 4 bytes
  for (float x : t.data<float>()) EXPECT_EQ(testing::Bits(x), 0u);  // +0.0, not -0.0
  Tensor i(DType::kI64, {5});
  for (std::int64_t v : i.data<std::int64_t>()) EXPECT_EQ(v, 0);
}

TEST(Tensor, HasDTypeSizedStorage) {
  // Bytes per element from the safetensors format: F32 4, F16 2, BF16 2, F64 8, I32 4, I64 8,
  // U8 1, BOOL 1.
  const std::pair<DType, std::size_t> sizes[] = {{DType::kF32, 4}, {DType::kF16, 2}, {DType::kBF16, 2},
                                                 {DType::kF64, 8}, {DType::kI32, 4}, {DType::kI64, 8},
                                                 {DType::kU8, 1},  {DType::kBool, 1}};
  static_assert(std::size(sizes) == std::size(kAllDTypes));
  for (const auto& [dtype, size] : sizes) {
    Tensor t(dtype, {3});
    EXPECT_EQ(t.nbytes(), 3 * size) << DTypeName(dtype);
  }
}

TEST(Tensor, RowMajorExample) {
  // core/tensor.h's worked example: element (1, 1) of a 2x3 tensor is at index 1 * 3 + 1.
  Tensor t(DType::kF32, {2, 3});
  t.data<float>()[4] = 1.5f;
  EXPECT_EQ(t.view().dim(1), 3);
  EXPECT_EQ(t.view().data<float>()[4], 1.5f);
}

TEST(Tensor, MismatchedAccessThrows) {
  Tensor f16(DType::kF16, {2});
  EXPECT_THROW(f16.data<float>(), std::logic_error);
  EXPECT_NO_THROW(f16.data<std::uint16_t>());
  const Tensor& cf16 = f16;
  EXPECT_THROW(cf16.data<std::int32_t>(), std::logic_error);
  EXPECT_THROW(f16.view().data<std::uint8_t>(), std::logic_error);
  Tensor b(DType::kBool, {2});
  EXPECT_NO_THROW(b.data<std::uint8_t>());  // bool is accessed as bytes
  EXPECT_THROW(b.data<std::uint16_t>(), std::logic_error);
}

TEST(Tensor, RejectsNegativeOrOverflowingShape) {
  EXPECT_THROW(Tensor(DType::kF32, {-1}), std::invalid_argument);
  EXPECT_THROW(Tensor(DType::kF32, {std::int64_t{1} << 40, std::int64_t{1} << 40}),
               std::invalid_argument);
  // 2^62 f32 elements: the count fits, the byte size 2^64 does not; throws before allocating.
  EXPECT_THROW(Tensor(DType::kF32, {std::int64_t{1} << 62}), std::invalid_argument);
}

TEST(Tensor, ZeroDimensionalHoldsOneElement) {
  Tensor t(DType::kI32, {});
  EXPECT_EQ(t.rank(), 0);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_EQ(t.nbytes(), 4u);
  t.data<std::int32_t>()[0] = -7;
  EXPECT_EQ(t.view().data<std::int32_t>()[0], -7);
}

TEST(Tensor, EmptyTensorHasNoBytes) {
  Tensor t(DType::kBF16, {4, 0});
  EXPECT_EQ(t.rank(), 2);
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(t.nbytes(), 0u);
  EXPECT_TRUE(t.data<std::uint16_t>().empty());
  Tensor d;  // default: f32 of shape [0]
  EXPECT_EQ(d.dtype(), DType::kF32);
  EXPECT_EQ(d.shape(), Shape{0});
  EXPECT_EQ(d.numel(), 0);
}

TEST(Tensor, FromValuesChecksCount) {
  const Tensor t = Tensor::FromValues<std::int32_t>(DType::kI32, {2}, {5, -6});
  EXPECT_EQ(t.data<std::int32_t>()[1], -6);
  EXPECT_THROW(Tensor::FromValues<std::int32_t>(DType::kI32, {3}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(Tensor::FromValues<float>(DType::kI32, {1}, {1.0f}), std::logic_error);
}

TEST(BitwiseEqual, ComparesDTypeShapeAndBytes) {
  const Tensor a = Tensor::FromValues<float>(DType::kF32, {2}, {1.0f, 0.0f});
  Tensor b = Tensor::FromValues<float>(DType::kF32, {2}, {1.0f, 0.0f});
  EXPECT_TRUE(BitwiseEqual(a.view(), b.view()));
  b.data<float>()[1] = -0.0f;  // equal as floats, different bits
  EXPECT_FALSE(BitwiseEqual(a.view(), b.view()));
  const Tensor c = Tensor::FromValues<float>(DType::kF32, {1, 2}, {1.0f, 0.0f});
  EXPECT_FALSE(BitwiseEqual(a.view(), c.view()));  // same bytes, different shape
  const Tensor i = Tensor::FromValues<std::int32_t>(DType::kI32, {2}, {0x3F800000, 0});
  EXPECT_FALSE(BitwiseEqual(a.view(), i.view()));  // same bytes (1.0f), different dtype
}

TEST(BitwiseEqual, NaNEqualsItselfBitwise) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor a = Tensor::FromValues<float>(DType::kF32, {1}, {nan});
  const Tensor b = Tensor::FromValues<float>(DType::kF32, {1}, {nan});
  EXPECT_TRUE(BitwiseEqual(a.view(), b.view()));
}

TEST(BitwiseEqual, EmptyTensorsOfSameShapeAreEqual) {
  const Tensor a(DType::kU8, {0, 3});
  const Tensor b(DType::kU8, {0, 3});
  const Tensor c(DType::kU8, {3, 0});
  EXPECT_TRUE(BitwiseEqual(a.view(), b.view()));
  EXPECT_FALSE(BitwiseEqual(a.view(), c.view()));
}

}  // namespace
}  // namespace sampcheck
