// SPDX-License-Identifier: Apache-2.0
// exponential_race (reference/exponential_race.h, docs/spec/draws.md#exponential_race).
#include "reference/exponential_race.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "reference/stage_io.h"

namespace sampcheck::reference {

TensorMap RunExponentialRace(const Case& c, Profile profile) {
  StageInputs in(c, "exponential_race");
  const Tensor probs = in.Probabilities();
  const std::int64_t rows = probs.dim(0), vocab = probs.dim(1);
  const Tensor q = in.FloatRows("q", rows, vocab);
  for (float v : q.data<float>()) {
    if (!std::isfinite(v) || !(v > 0.0f)) in.Fail("'q' holds " + FormatFloat(v) + "; Exp(1) noise must be finite and > 0");
  }
  const bool all_tokens = profile == Profile::kVllm;
  Tensor token(DType::kI64, {rows});
  const float* p = probs.data<float>().data();
  const float* e = q.data<float>().data();
  for (std::int64_t b = 0; b < rows; ++b) {
    std::int64_t best = -1;
    float best_value = 0.0f;
    bool any_positive = false;
    for (std::int64_t i = 0; i < vocab; ++i) {
      const float prob = p[b * vocab + i];
      any_positive |= prob > 0.0f;
      if (!all_tokens && !(prob > 0.0f)) continue;
      const float r = prob / e[b * vocab + i];
      if (best < 0 || r > best_value) best = i, best_value = r;
    }
    if (!any_positive) in.Fail("row " + std::to_string(b) + " has no positive probability: nothing can be drawn");
    StoreToken(token, b, best);
  }
  return Outputs("token", std::move(token));
}

}  // namespace sampcheck::reference
