// SPDX-License-Identifier: Apache-2.0
// gumbel_max (reference/gumbel_max.h, docs/spec/draws.md#gumbel_max).
#include "reference/gumbel_max.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

TensorMap RunGumbelMax(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "gumbel_max");
  const Tensor scores = in.FloatRows("logprobs");
  const std::int64_t rows = scores.dim(0), vocab = scores.dim(1);
  const Tensor noise = in.FloatRows("gumbel", rows, vocab);
  Tensor token(DType::kI64, {rows});
  const float* x = scores.data<float>().data();
  const float* g = noise.data<float>().data();
  for (std::int64_t b = 0; b < rows; ++b) {
    std::int64_t best = -1;
    float best_value = 0.0f;
    for (std::int64_t i = 0; i < vocab; ++i) {
      const float s = x[b * vocab + i], n = g[b * vocab + i];
      if (std::isnan(s) || std::isinf(n) || std::isnan(n)) in.Fail("row " + std::to_string(b) + " holds a NaN score or non-finite Gumbel noise");
      if (s == -std::numeric_limits<float>::infinity()) continue;  // probability zero: never drawn
      const float v = s + n;
      if (best < 0 || v > best_value) best = i, best_value = v;  // strict: ties keep the lower index
    }
    if (best < 0) in.Fail("row " + std::to_string(b) + " has no finite score: nothing can be drawn");
    StoreToken(token, b, best);
  }
  return Outputs("token", std::move(token));
}

SAMPCHECK_REFERENCE_STAGE(gumbel_max, RunGumbelMax);

}  // namespace sampcheck::reference
