// SPDX-License-Identifier: Apache-2.0
#pragma once
// Parsing a case (core/case.h, docs/spec/golden.md "Case files") from bytes already in memory:
// the verifier reads a case file once, checks its SHA-256, and parses the same bytes; the fuzz
// target (fuzz/case_fuzz.cc) feeds arbitrary bytes. Every fault throws InputError starting
// with `where` and naming the tensor or the metadata field. ReadCaseFile reads a regular file
// of at most MaxCaseBytes (core/input_limits.h) and parses it with this.
// Example: ParseCase(bytes, "golden/v1/greedy/edges/canonical.safetensors").input.stage == "greedy"

#include <cstddef>
#include <span>
#include <string>

#include "core/case.h"

namespace sampcheck {

GoldenCase ParseCase(std::span<const std::byte> bytes, const std::string& where);

}  // namespace sampcheck
