// SPDX-License-Identifier: Apache-2.0
// nan_handling (reference/nan_handling.h, docs/spec/nan_handling.md).
#include "reference/nan_handling.h"

#include <cmath>
#include <limits>
#include <string>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {
// Older SGLang's replacement value, torch.full_like(logits, -1e5) in float32.
constexpr float kSglangDetectReplacement = -1e5f;
static_assert(kSglangDetectReplacement == -100000.0f, "-1e5 is exact in binary32");
// SGLang's sanitizer values, Python floats 1e30 rounded to the f32 logits: 1e30 =
// 1.5777218104420236 * 2^99, fraction 0.5777218104420236 * 2^23 = 4846281.80 -> 4846282
// (0x49f2ca), biased exponent 226 (0xe2): 0x7149f2ca = 1.0000000150474662e30.
constexpr float kSglangSanitizeBig = 1e30f;
static_assert(kSglangSanitizeBig == 1.0000000150474662e30f, "f32(1e30)");
}  // namespace

TensorMap RunNanHandling(const Case& c, Profile profile) {
  StageInputs in(c, "nan_handling");
  std::string mode = "keep";
  if (c.params.contains("nan_mode")) {
    if (profile != Profile::kSglang) in.Fail("parameter nan_mode is read by the sglang profile only");
    if (!c.params["nan_mode"].is_string()) in.Fail("parameter nan_mode must be a string");
    mode = c.params["nan_mode"].get<std::string>();
    if (mode != "keep" && mode != "sanitize" && mode != "detect_1e5") {
      in.Fail("parameter nan_mode = '" + mode + "'; valid: keep, sanitize, detect_1e5");
    }
  }
  Tensor logits = in.Logits();
  if (profile != Profile::kSglang || mode == "keep") return Outputs("logits", std::move(logits));
  for (float& v : logits.data<float>()) {
    if (mode == "detect_1e5") {
      if (std::isnan(v)) v = kSglangDetectReplacement;
    } else if (std::isnan(v) || v == -std::numeric_limits<float>::infinity()) {
      v = -kSglangSanitizeBig;
    } else if (v == std::numeric_limits<float>::infinity()) {
      v = kSglangSanitizeBig;
    }
  }
  return Outputs("logits", std::move(logits));
}

SAMPCHECK_REFERENCE_STAGE(nan_handling, RunNanHandling);

}  // namespace sampcheck::reference
