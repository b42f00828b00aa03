// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: golden case files (core/case.h, docs/spec/golden.md "Case files"): the
// safetensors container plus the "sampcheck.case" metadata, then the expected output shapes an
// exec response is checked against (backends/output_shapes.h). Oracle: parsed, or refused with
// InputError; anything else is a finding (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <span>

#include "backends/output_shapes.h"
#include "core/case_bytes.h"
#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sampcheck;
  try {
    const GoldenCase g = ParseCase(std::as_bytes(std::span(data, size)), "fuzz.safetensors");
    for (const auto& [name, shape] : backends::ExpectedOutputShapes(g.input)) {
      if (shape) (void)backends::ExpectedShapeString(*shape);
    }
    (void)SerializeCase(g);
  } catch (const InputError&) {
  }
  return 0;
}
