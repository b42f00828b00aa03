// SPDX-License-Identifier: Apache-2.0
// inverse_cdf (reference/inverse_cdf.h, docs/spec/draws.md#inverse_cdf).
#include "reference/inverse_cdf.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "reference/positive_rows.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

InverseCdfArgs ParseInverseCdf(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "inverse_cdf");
  InverseCdfArgs a;
  a.probs = in.Probabilities();
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  a.u = &in.Required("u");
  in.ExpectDim("u", *a.u, 0, rows);
  for (std::int64_t b = 0; b < rows; ++b) {
    const float ub = a.u->data<float>()[static_cast<std::size_t>(b)];
    if (!(ub >= 0.0f && ub < 1.0f)) in.Fail("u[" + std::to_string(b) + "] = " + FormatFloat(ub) + " must be in [0, 1)");
    ExpectPositiveRow(in, a.probs.data<float>(), vocab, b);
  }
  return a;
}

TensorMap RunInverseCdf(const Case& c, Profile profile) {
  const InverseCdfArgs a = ParseInverseCdf(c, profile);
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  Tensor token(DType::kI64, {rows});
  const float* p = a.probs.data<float>().data();
  std::vector<float> cdf(static_cast<std::size_t>(vocab));
  for (std::int64_t b = 0; b < rows; ++b) {
    const float ub = a.u->data<float>()[static_cast<std::size_t>(b)];
    float running = 0.0f;
    std::int64_t last_positive = -1;  // >= 0 after the loop: the parse found a positive entry
    for (std::int64_t i = 0; i < vocab; ++i) {
      running = running + p[b * vocab + i];
      cdf[static_cast<std::size_t>(i)] = running;
      if (p[b * vocab + i] > 0.0f) last_positive = i;
    }
    const float t = ub * running;
    std::int64_t chosen = last_positive;
    for (std::int64_t i = 0; i < vocab; ++i) {
      if (p[b * vocab + i] > 0.0f && t < cdf[static_cast<std::size_t>(i)]) {
        chosen = i;
        break;
      }
    }
    StoreToken(token, b, chosen);
  }
  return Outputs("token", std::move(token));
}

SAMPCHECK_REFERENCE_STAGE(inverse_cdf, RunInverseCdf);

}  // namespace sampcheck::reference
