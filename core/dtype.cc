// SPDX-License-Identifier: Apache-2.0
// Dtype names and sizes (core/dtype.h).
#include "core/dtype.h"

namespace sampcheck {

std::size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kF32: return 4;
    case DType::kF16: return 2;
    case DType::kBF16: return 2;
    case DType::kI32: return 4;
    case DType::kI64: return 8;
    case DType::kU8: return 1;
    case DType::kBool: return 1;
    case DType::kF64: return 8;
  }
  return 0;
}

std::string_view SafetensorsName(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "F32";
    case DType::kF16: return "F16";
    case DType::kBF16: return "BF16";
    case DType::kI32: return "I32";
    case DType::kI64: return "I64";
    case DType::kU8: return "U8";
    case DType::kBool: return "BOOL";
    case DType::kF64: return "F64";
  }
  return "?";
}

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "f32";
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
    case DType::kI32: return "i32";
    case DType::kI64: return "i64";
    case DType::kU8: return "u8";
    case DType::kBool: return "bool";
    case DType::kF64: return "f64";
  }
  return "?";
}

std::optional<DType> DTypeFromSafetensorsName(std::string_view name) {
  for (DType d : kAllDTypes) {
    if (SafetensorsName(d) == name) return d;
  }
  return std::nullopt;
}

bool IsFloating(DType dtype) { return WidensToF32(dtype) || dtype == DType::kF64; }

bool WidensToF32(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF16 || dtype == DType::kBF16;
}

}  // namespace sampcheck
