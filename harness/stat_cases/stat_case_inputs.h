// SPDX-License-Identifier: Apache-2.0
#pragma once
// Input rows the statistical case families share (docs/spec/harness.md "Families";
// docs/spec/input_classes.md for the half-precision class).
//
// Contract:
// - ProbsCase: a one-row canonical case of `stage` with its input `input` f32 [1, V] = row.
// - ToHalf: the case's input `name` rounded to f16 or bf16; its values must be exact there
//   (the families use multiples of 2^-3 and -inf).
// - MaskedRow33: V = 33 with four survivors, at 0, 7, 20 and V - 1 (logits 0, -0.5, -1,
//   -1.5), the rest -inf: the structural check (L1) sees any draw of a masked token, L2/L3 the
//   law over the four.
// - Linear(v, slope): logits -slope * i, i = 0 .. v - 1.
// - Deterministic: fixed numbers.
// Example: Linear(3, 0.5f) == {0, -0.5, -1}.
#include <string>
#include <vector>

#include "core/case.h"

namespace sampcheck::statistical {

Case ProbsCase(const std::string& id, const std::string& stage, const std::string& input, std::vector<float> row);
void ToHalf(Case& c, const std::string& name, DType dtype);
std::vector<float> MaskedRow33();
std::vector<float> Linear(int v, float slope);

}  // namespace sampcheck::statistical
