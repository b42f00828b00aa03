// SPDX-License-Identifier: Apache-2.0
#pragma once
// Element types a sampcheck tensor can hold, with their safetensors names and sizes.
//
// Contract: eight dtypes: f32, f16, bf16, f64, i32, i64, u8, bool (docs/architecture.md "Layout"; f64
// carries noise that peers draw in binary64, such as vLLM's rejection-sampling uniforms). All are
// little-endian in files and in memory (the build static_asserts a little-endian host).
// bool is one byte per element holding 0 or 1, as in safetensors and NumPy.
// Example: DTypeFromSafetensorsName("BF16") == DType::kBF16; DTypeSize(DType::kBF16) == 2.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace sampcheck {

static_assert(std::endian::native == std::endian::little,
              "sampcheck reads and writes little-endian tensors in place");

enum class DType : std::uint8_t { kF32, kF16, kBF16, kI32, kI64, kU8, kBool, kF64 };

inline constexpr DType kAllDTypes[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                       DType::kI32, DType::kI64, DType::kU8,   DType::kBool};

// Bytes per element.
std::size_t DTypeSize(DType dtype);
// The safetensors header name: "F32", "F16", "BF16", "F64", "I32", "I64", "U8", "BOOL".
std::string_view SafetensorsName(DType dtype);
// Inverse of SafetensorsName; nullopt for any other string (including valid safetensors
// dtypes sampcheck does not support, such as "U16").
std::optional<DType> DTypeFromSafetensorsName(std::string_view name);
// Short lower-case name used in messages and the CLI: "f32", "f16", "bf16", ...
std::string_view DTypeName(DType dtype);
bool IsFloating(DType dtype);
// f32, f16, bf16: the floating dtypes that widen to f32 exactly (logits and probabilities).
bool WidensToF32(DType dtype);

// Whether C++ element type T may view a tensor of `d`, for the typed accessors of Tensor.
// f16 and bf16 are accessed as raw 16-bit words (core/half.h converts them); bool as bytes.
template <class T>
constexpr bool kDTypeMatches(DType d) {
  if constexpr (std::is_same_v<T, float>) return d == DType::kF32;
  else if constexpr (std::is_same_v<T, double>) return d == DType::kF64;
  else if constexpr (std::is_same_v<T, std::int32_t>) return d == DType::kI32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return d == DType::kI64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return d == DType::kU8 || d == DType::kBool;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return d == DType::kF16 || d == DType::kBF16;
  else return false;
}

}  // namespace sampcheck
