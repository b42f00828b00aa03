// SPDX-License-Identifier: Apache-2.0
// gumbel_max (reference/gumbel_max.h, docs/spec/draws.md#gumbel_max).
#include "reference/gumbel_max.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "reference/draw_rows.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

GumbelMaxArgs ParseGumbelMax(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "gumbel_max");
  GumbelMaxArgs a;
  a.scores = in.FloatRows("logprobs");
  const std::int64_t rows = a.scores.dim(0), vocab = a.scores.dim(1);
  a.gumbel = in.FloatRows("gumbel", rows, vocab);
  // Every score is a value a model can emit (NaN, +inf, an all -inf row): each has a result
  // (docs/spec/draws.md "Degenerate rows"). Only the noise has a domain.
  const float* g = a.gumbel.data<float>().data();
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t i = 0; i < vocab; ++i) {
      const float n = g[b * vocab + i];
      if (!std::isfinite(n)) in.Fail("row " + std::to_string(b) + " holds non-finite Gumbel noise");
    }
  }
  return a;
}

TensorMap RunGumbelMax(const Case& c, Profile profile) {
  const GumbelMaxArgs a = ParseGumbelMax(c, profile);
  const std::int64_t rows = a.scores.dim(0), vocab = a.scores.dim(1);
  Tensor token(DType::kI64, {rows});
  const float* x = a.scores.data<float>().data();
  const float* g = a.gumbel.data<float>().data();
  for (std::int64_t b = 0; b < rows; ++b) {
    std::int64_t best = -1;
    float best_value = 0.0f;
    for (std::int64_t i = 0; i < vocab; ++i) {
      const float s = x[b * vocab + i], n = g[b * vocab + i];
      if (s == -std::numeric_limits<float>::infinity()) continue;  // probability zero: never drawn
      const float v = s + n;  // NaN for a NaN score
      if (best < 0 || DrawArgmaxAbove(v, best_value)) best = i, best_value = v;  // ties keep the lower index
    }
    StoreToken(token, b, best < 0 ? kNoDrawToken : best);  // no finite score
  }
  return Outputs("token", std::move(token));
}

SAMPCHECK_REFERENCE_STAGE(gumbel_max, RunGumbelMax);

}  // namespace sampcheck::reference
