// SPDX-License-Identifier: Apache-2.0
#pragma once
// temperature: divide each row by its temperature; rows below the profile's epsilon are
// greedy rows (docs/spec/temperature.md).
//
// Contract:
// - Inputs: logits [B, V] (upcast to f32); temperature [B] f32, finite and >= 0.
//   Outputs: logits [B, V] f32; is_greedy [B] bool.
// - Comparisons are made on the f32 temperature widened to double against the peer's Python
//   constant (a double), as the peers decide in Python before building the f32 tensor.
//   canonical: greedy iff t < 1e-5.
//   vllm (sampling_params.py, sampler.py): 0 < t < 0.01 is first raised to 0.01f; greedy iff
//     t < 1e-5 (after the raise: t == 0).
//   sglang (sampling_params.py): greedy iff t < 1e-6.
// - Greedy rows are divided by 1.0f (vLLM's `where(temp < eps, 1.0, temp)`; SGLang sets the
//   temperature to 1.0): their logits come out bit-identical. Other rows: x / t, one IEEE f32
//   division per entry (never a multiplication by 1/t).
// - Exact tier, no randomness.
// Example: logits {1, 2}, t = 0.5 -> {2, 4}; t = 0 -> {1, 2}, is_greedy = true.

#include <cstdint>

#include "core/case.h"
#include "core/profile.h"
#include "reference/profile_rules.h"
#include "reference/stage_io.h"

namespace sampcheck::reference {

// The stage's inputs after every check above (in the contract's order, one message each) and
// the profile's rule: what the reference below and the gpu glue (gpu/backend/gpu_backend.cc)
// compute from. `temperature` points into the case, which must outlive the arguments.
struct TemperatureArgs {
  Tensor logits;                           // [B, V], upcast to f32
  const Tensor* temperature = nullptr;     // [B] f32, each finite and >= 0
  TemperatureRule rule{};                  // TemperatureRuleFor(profile)
};
TemperatureArgs ParseTemperature(const Case& c, Profile profile);

// Fails through `in` ("temperature[b] = ... must be finite and >= 0") unless t is finite and
// >= 0: the check of this stage, and of logprobs' optional temperature.
void CheckTemperature(const StageInputs& in, std::int64_t b, float t);

// A checked temperature under a profile's rule: the divisor of the row (1.0f for a greedy
// row) and whether the row is greedy.
struct RowTemperature {
  float divisor;
  bool greedy;
};
RowTemperature EffectiveTemperature(const TemperatureRule& rule, float t);

TensorMap RunTemperature(const Case& c, Profile profile);

}  // namespace sampcheck::reference
