// SPDX-License-Identifier: Apache-2.0
// nan_handling (reference/nan_handling.h, docs/spec/nan_handling.md).
#include "reference/nan_handling.h"

#include <cmath>
#include <limits>
#include <string>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

NanHandlingArgs ParseNanHandling(const Case& c, Profile profile) {
  StageInputs in(c, "nan_handling");
  SglangNanMode mode = SglangNanMode::kKeep;
  if (c.params.contains("nan_mode")) {
    if (profile != Profile::kSglang) in.Fail("parameter nan_mode is read by the sglang profile only");
    if (!c.params["nan_mode"].is_string()) in.Fail("parameter nan_mode must be a string");
    const std::string name = c.params["nan_mode"].get<std::string>();
    if (name == "detect_1e5") {
      mode = SglangNanMode::kDetect1e5;
    } else if (name == "sanitize") {
      mode = SglangNanMode::kSanitize;
    } else if (name != "keep") {
      in.Fail("parameter nan_mode = '" + name + "'; valid: keep, sanitize, detect_1e5");
    }
  }
  NanHandlingArgs a;
  a.logits = in.Logits();
  a.rule = NanRuleFor(profile, mode);
  return a;
}

TensorMap RunNanHandling(const Case& c, Profile profile) {
  NanHandlingArgs a = ParseNanHandling(c, profile);
  const NanRule& r = a.rule;
  if (!r.nan && !r.neg_inf && !r.pos_inf) return Outputs("logits", std::move(a.logits));
  for (float& v : a.logits.data<float>()) {
    if (std::isnan(v)) {
      if (r.nan) v = r.nan_value;
    } else if (v == -std::numeric_limits<float>::infinity()) {
      if (r.neg_inf) v = r.neg_inf_value;
    } else if (v == std::numeric_limits<float>::infinity()) {
      if (r.pos_inf) v = r.pos_inf_value;
    }
  }
  return Outputs("logits", std::move(a.logits));
}

SAMPCHECK_REFERENCE_STAGE(nan_handling, RunNanHandling);

}  // namespace sampcheck::reference
