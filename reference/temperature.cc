// SPDX-License-Identifier: Apache-2.0
// temperature (reference/temperature.h, docs/spec/temperature.md).
#include "reference/temperature.h"

#include <cmath>

#include "reference/stage_registry.h"

namespace sampcheck::reference {

void CheckTemperature(const StageInputs& in, std::int64_t b, float t) {
  if (!std::isfinite(t) || t < 0.0f) {
    in.Fail("temperature[" + std::to_string(b) + "] = " + FormatFloat(t) + " must be finite and >= 0");
  }
}

RowTemperature EffectiveTemperature(const TemperatureRule& rule, float t) {
  // min_temp is 0 except under vllm, where 0 < t < 0.01 is raised to 0.01f.
  if (t > 0.0f && static_cast<double>(t) < rule.min_temp) t = static_cast<float>(rule.min_temp);
  if (static_cast<double>(t) < rule.eps) return {1.0f, true};
  return {t, false};
}

TemperatureArgs ParseTemperature(const Case& c, Profile profile) {
  StageInputs in(c, "temperature");
  TemperatureArgs a;
  a.logits = in.Logits();
  const std::int64_t rows = a.logits.dim(0);
  a.temperature = &in.Required("temperature");
  in.ExpectDim("temperature", *a.temperature, 0, rows);
  for (std::int64_t b = 0; b < rows; ++b) CheckTemperature(in, b, a.temperature->data<float>()[static_cast<std::size_t>(b)]);
  a.rule = TemperatureRuleFor(profile);
  return a;
}

TensorMap RunTemperature(const Case& c, Profile profile) {
  TemperatureArgs a = ParseTemperature(c, profile);
  const std::int64_t rows = a.logits.dim(0);
  Tensor greedy(DType::kBool, {rows});
  auto is_greedy = greedy.data<std::uint8_t>();
  LogitsMap x = AsArray(a.logits);
  for (std::int64_t b = 0; b < rows; ++b) {
    const RowTemperature rt = EffectiveTemperature(a.rule, a.temperature->data<float>()[static_cast<std::size_t>(b)]);
    is_greedy[static_cast<std::size_t>(b)] = rt.greedy ? 1 : 0;
    x.row(b) /= rt.divisor;
  }
  TensorMap out = Outputs("logits", std::move(a.logits));
  out.emplace("is_greedy", std::move(greedy));
  return out;
}

SAMPCHECK_REFERENCE_STAGE(temperature, RunTemperature);

}  // namespace sampcheck::reference
