// SPDX-License-Identifier: Apache-2.0
#pragma once
// Comparison rules between an expected and an actual output tensor (docs/architecture.md "The stage
// model", docs/spec/golden.md "Comparison rules").
//
// - exact: same dtype, same shape, same bits in every element — except that for floating
//   dtypes any NaN matches any NaN (a GPU's canonical NaN 0x7fffffff and x86's 0x7fc00000 are
//   both "NaN" in every peer's contract); +0.0 and -0.0 do NOT match.
// - ulp(n): floating tensors; elements match when both are NaN, or have equal bits, or are
//   both finite and at most n steps apart on the line of representable values, where -0.0
//   and +0.0 are one step apart (so the distance across zero counts every subnormal on both
//   sides). Infinities must match exactly. Integer tensors compare exactly.
// - distribution: judged by the statistical harness, never element-wise; Compare refuses it.
// A report lists the first mismatching flat index, its row/column where the tensor is 2-D,
// expected and actual values with their bit patterns, and the number of mismatches.

#include <cstdint>
#include <string>

#include "core/tensor.h"

namespace sampcheck {

struct ComparisonRule {
  enum class Kind { kExact, kUlp, kDistribution };
  Kind kind = Kind::kExact;
  std::int64_t ulps = 0;
  std::string ToString() const;  // "exact", "ulp(2)", "distribution"
  // Parses the strings ToString writes; throws InputError otherwise.
  static ComparisonRule Parse(const std::string& text);
};

struct ComparisonResult {
  bool match = true;
  std::int64_t mismatches = 0;
  std::int64_t first_index = -1;  // flat index of the first mismatch
  std::string detail;             // empty when match; otherwise a human-readable explanation
};

ComparisonResult Compare(const TensorView& expected, const TensorView& actual,
                         const ComparisonRule& rule);

}  // namespace sampcheck
