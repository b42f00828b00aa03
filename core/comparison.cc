// SPDX-License-Identifier: Apache-2.0
// Comparison rules (core/comparison.h).
#include "core/comparison.h"

#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <regex>

#include "core/error.h"
#include "core/half.h"

namespace sampcheck {

std::string ComparisonRule::ToString() const {
  switch (kind) {
    case Kind::kExact: return "exact";
    case Kind::kUlp: return "ulp(" + std::to_string(ulps) + ")";
    case Kind::kDistribution: return "distribution";
  }
  return "?";
}

ComparisonRule ComparisonRule::Parse(const std::string& text) {
  if (text == "exact") return {Kind::kExact, 0};
  if (text == "distribution") return {Kind::kDistribution, 0};
  static const std::regex kUlp(R"(ulp\(([0-9]{1,9})\))");
  std::smatch m;
  if (std::regex_match(text, m, kUlp)) return {Kind::kUlp, std::stoll(m[1].str())};
  throw InputError("unknown comparison rule '" + text +
                   "'; expected exact, ulp(N) or distribution");
}

namespace {

// Value of element i as a double (exact for every supported dtype but i64 beyond 2^53,
// which is only used for printing) and its raw bits.
struct Element {
  double value;
  std::uint64_t bits;
};

Element Load(const TensorView& t, std::int64_t i) {
  const std::byte* p = t.bytes().data() + i * static_cast<std::int64_t>(DTypeSize(t.dtype()));
  switch (t.dtype()) {
    case DType::kF32: {
      std::uint32_t b;
      std::memcpy(&b, p, 4);
      return {std::bit_cast<float>(b), b};
    }
    case DType::kF16:
    case DType::kBF16: {
      std::uint16_t b;
      std::memcpy(&b, p, 2);
      float v = t.dtype() == DType::kF16 ? F16BitsToF32(b) : BF16BitsToF32(b);
      return {v, b};
    }
    case DType::kF64: {
      double v;
      std::memcpy(&v, p, 8);
      std::uint64_t b;
      std::memcpy(&b, p, 8);
      return {v, b};
    }
    case DType::kI32: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      return {static_cast<double>(v), static_cast<std::uint32_t>(v)};
    }
    case DType::kI64: {
      std::int64_t v;
      std::memcpy(&v, p, 8);
      return {static_cast<double>(v), static_cast<std::uint64_t>(v)};
    }
    case DType::kU8:
    case DType::kBool: {
      std::uint8_t v;
      std::memcpy(&v, p, 1);
      return {static_cast<double>(v), v};
    }
  }
  return {0, 0};
}

// Ordered integer key for a float's bits: consecutive floats get consecutive keys; -0.0 maps
// to -1 and +0.0 to 0, so ulp(n) counts the two zeros one unit apart.
std::int64_t OrderedKey(std::uint64_t bits, int width) {
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  const std::int64_t magnitude = static_cast<std::int64_t>(bits & (sign - 1));
  return (bits & sign) ? -magnitude - 1 : magnitude;
}

bool ElementsMatch(const TensorView& t, const Element& e, const Element& a,
                   const ComparisonRule& rule) {
  if (!IsFloating(t.dtype())) return e.bits == a.bits;
  if (std::isnan(e.value) || std::isnan(a.value)) return std::isnan(e.value) && std::isnan(a.value);
  if (e.bits == a.bits) return true;
  if (rule.kind != ComparisonRule::Kind::kUlp) return false;
  if (std::isinf(e.value) || std::isinf(a.value)) return false;
  const int width = static_cast<int>(DTypeSize(t.dtype())) * 8;
  const std::int64_t d = OrderedKey(e.bits, width) - OrderedKey(a.bits, width);
  return (d < 0 ? -d : d) <= rule.ulps;
}

std::string FormatElement(const TensorView& t, const Element& e) {
  char buf[96];
  switch (t.dtype()) {
    case DType::kF32:
      std::snprintf(buf, sizeof buf, "%.9g (%a, bits 0x%08" PRIx64 ")", e.value, e.value, e.bits);
      break;
    case DType::kF16:
    case DType::kBF16:
      std::snprintf(buf, sizeof buf, "%.6g (%a, bits 0x%04" PRIx64 ")", e.value, e.value, e.bits);
      break;
    default:
      std::snprintf(buf, sizeof buf, "%.17g (bits 0x%" PRIx64 ")", e.value, e.bits);
  }
  return buf;
}

std::string Position(const TensorView& t, std::int64_t i) {
  std::string s = "index " + std::to_string(i);
  if (t.rank() == 2 && t.dim(1) > 0) {
    s += " (row " + std::to_string(i / t.dim(1)) + ", column " + std::to_string(i % t.dim(1)) + ")";
  }
  return s;
}

}  // namespace

ComparisonResult Compare(const TensorView& expected, const TensorView& actual,
                         const ComparisonRule& rule) {
  ComparisonResult r;
  if (rule.kind == ComparisonRule::Kind::kDistribution) {
    throw InputError("comparison rule 'distribution' is judged statistically, not element-wise");
  }
  if (expected.dtype() != actual.dtype() || expected.shape() != actual.shape()) {
    r.match = false;
    r.mismatches = expected.numel();
    r.detail = "expected " + std::string(DTypeName(expected.dtype())) +
               ShapeString(expected.shape()) + ", got " + std::string(DTypeName(actual.dtype())) +
               ShapeString(actual.shape());
    return r;
  }
  for (std::int64_t i = 0; i < expected.numel(); ++i) {
    const Element e = Load(expected, i);
    const Element a = Load(actual, i);
    if (ElementsMatch(expected, e, a, rule)) continue;
    if (r.mismatches++ == 0) {
      r.first_index = i;
      r.detail = "first mismatch at " + Position(expected, i) + ": expected " +
                 FormatElement(expected, e) + ", actual " + FormatElement(actual, a);
    }
  }
  if (r.mismatches > 0) {
    r.match = false;
    r.detail += "; " + std::to_string(r.mismatches) + " of " + std::to_string(expected.numel()) +
                " elements differ under rule " + rule.ToString();
  }
  return r;
}

}  // namespace sampcheck
