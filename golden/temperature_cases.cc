// SPDX-License-Identifier: Apache-2.0
// Golden case family for temperature (docs/spec/temperature.md).
#include <limits>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

void AddTemperatureCases(CaseList& list) {
  // Temperatures on every profile boundary: 0; below SGLang's 1e-6; between 1e-6 and 1e-5
  // (greedy for canonical, sampled for sglang, raised to 0.01 by vllm); the f32 roundings of
  // 1e-6 and 1e-5 themselves; inside vLLM's (0, 0.01) raise; 0.01; non-dyadic 0.7; 1; 2.
  const std::vector<float> temps = {0.0f, 5e-7f, 5e-6f, 1e-6f, 1e-5f, 0.005f, 0.01f, 0.7f, 1.0f, 2.0f};
  const auto rows = static_cast<std::int64_t>(temps.size());
  for (std::int64_t vocab : {1, 33, 1000}) {
    const std::string name = "boundaries_v" + std::to_string(vocab);
    auto rng = list.Rng("temperature", name);
    list.Add("temperature", name,
             {{"logits", RandomLogits(rng, rows, vocab, DType::kF32)}, {"temperature", F32({rows}, temps)}});
  }
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Division of extremes: overflow to inf at small t, underflow to subnormals at large t.
  list.Add("temperature", "extremes",
           {{"logits", Logits(2, 6, {3e38f, -3e38f, 1e-45f, kInf, nan, -0.0f,  //
                                     3e38f, -3e38f, 1e-45f, -kInf, nan, 0.0f})},
            {"temperature", F32({2}, {0.02f, 1000.0f})}});
  auto rng = list.Rng("temperature", "f16_input");
  list.Add("temperature", "f16_input",
           {{"logits", RandomLogits(rng, 2, 31, DType::kF16)}, {"temperature", F32({2}, {0.3f, 1.5f})}});
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeTemperatureInputs(const std::string& /*stage*/, SplitMix64& /*rng*/, std::int64_t /*vocab*/) {
  return {{"temperature", F32({1}, {0.7f})}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(Temperature, {.stages = {"temperature"}, .add = AddTemperatureCases, .large_inputs = LargeTemperatureInputs});

}  // namespace sampcheck::golden
