// SPDX-License-Identifier: Apache-2.0
#pragma once
// The hex text form of a small golden case (docs/contributing.md "Golden vectors": small goldens get a
// readable form so that review diffs show which values changed). Written by the generator
// next to "<case>.safetensors" as "<case>.txt" when every tensor of the case has at most
// kTextFormMaxElements elements; never read back — the safetensors file is normative.
//
// Layout: header lines (id, stage, profile, comparison, params as JSON), then per tensor a
// line "in.NAME dtype [shape]" followed by one line per innermost row, each element as
// "value/0xBITS" (%.9g for f32, %.5g for f16/bf16 after exact widening, decimal for integers).
// Example line: "  [0, :] 1/0x3f800000 -inf/0xff800000 nan/0x7fc00000"

#include <cstdint>
#include <string>

#include "core/case.h"

namespace sampcheck::golden {

inline constexpr std::int64_t kTextFormMaxElements = 64;

bool HasTextForm(const GoldenCase& g);
std::string CaseText(const GoldenCase& g);

}  // namespace sampcheck::golden
