// SPDX-License-Identifier: Apache-2.0
// qsample (reference/qsample.h, docs/spec/draws.md#qsample).
#include "reference/qsample.h"

#include <cmath>
#include <string>

#include "reference/ascend_top_k_top_p_sample_v2.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

TensorMap RunQSample(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "qsample");
  const Tensor probs = in.Probabilities();
  const std::int64_t rows = probs.dim(0), vocab = probs.dim(1);
  const Tensor q = in.FloatRows("q", rows, vocab);
  for (float v : q.data<float>()) {
    if (!std::isfinite(v)) in.Fail("'q' holds " + FormatFloat(v) + "; QSample noise must be finite");
  }
  const float eps = AscendEpsParam(in, c);
  Tensor token(DType::kI64, {rows});
  const auto p = probs.data<float>();
  const auto noise = q.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto at = static_cast<std::size_t>(b * vocab), n = static_cast<std::size_t>(vocab);
    AscendSampleRow row;
    row.probs.assign(p.begin() + static_cast<std::ptrdiff_t>(at), p.begin() + static_cast<std::ptrdiff_t>(at + n));
    bool any_positive = false;
    for (float x : row.probs) any_positive |= x > 0.0f;
    if (!any_positive) in.Fail("row " + std::to_string(b) + " has no positive probability: nothing can be drawn");
    StoreToken(token, b, static_cast<std::int64_t>(AscendSamplePosition(row, noise.subspan(at, n), eps)));
  }
  return Outputs("token", std::move(token));
}

SAMPCHECK_REFERENCE_STAGE(qsample, RunQSample);

}  // namespace sampcheck::reference
