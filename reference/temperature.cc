// SPDX-License-Identifier: Apache-2.0
// temperature (reference/temperature.h, docs/spec/temperature.md).
#include "reference/temperature.h"

#include <cmath>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {
// vLLM: _SAMPLING_EPS = 1e-5 and _MAX_TEMP = 1e-2 (vllm/sampling_params.py).
constexpr double kVllmEps = 1e-5;
constexpr double kVllmMinTemperature = 1e-2;
// SGLang: _SAMPLING_EPS = 1e-6 (python/sglang/srt/sampling/sampling_params.py).
constexpr double kSglangEps = 1e-6;
// canonical follows vLLM's epsilon without the raise to 0.01.
constexpr double kCanonicalEps = 1e-5;
}  // namespace

TensorMap RunTemperature(const Case& c, Profile profile) {
  StageInputs in(c, "temperature");
  Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0);
  const Tensor& temp = in.Required("temperature", DType::kF32, 1);
  in.ExpectDim("temperature", temp, 0, rows);
  Tensor greedy(DType::kBool, {rows});
  auto is_greedy = greedy.data<std::uint8_t>();

  LogitsMap x = AsArray(logits);
  for (std::int64_t b = 0; b < rows; ++b) {
    float t = temp.data<float>()[static_cast<std::size_t>(b)];
    if (!std::isfinite(t) || t < 0.0f) {
      in.Fail("temperature[" + std::to_string(b) + "] = " + FormatFloat(t) +
              " must be finite and >= 0");
    }
    double eps = kCanonicalEps;
    if (profile == Profile::kVllm) {
      if (t > 0.0f && static_cast<double>(t) < kVllmMinTemperature) {
        t = static_cast<float>(kVllmMinTemperature);
      }
      eps = kVllmEps;
    } else if (profile == Profile::kSglang) {
      eps = kSglangEps;
    }
    const bool g = static_cast<double>(t) < eps;
    is_greedy[static_cast<std::size_t>(b)] = g ? 1 : 0;
    x.row(b) /= g ? 1.0f : t;
  }
  TensorMap out = Outputs("logits", std::move(logits));
  out.emplace("is_greedy", std::move(greedy));
  return out;
}

SAMPCHECK_REFERENCE_STAGE(temperature, RunTemperature);

}  // namespace sampcheck::reference
