// SPDX-License-Identifier: Apache-2.0
// qsample (reference/qsample.h, docs/spec/draws.md#qsample).
#include "reference/qsample.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "reference/ascend_top_k_top_p_sample_v2.h"
#include "reference/positive_rows.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

QSampleArgs ParseQSample(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "qsample");
  QSampleArgs a;
  a.probs = in.Probabilities();
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  a.q = in.FloatRows("q", rows, vocab);
  for (float v : a.q.data<float>()) {
    if (!std::isfinite(v)) in.Fail("'q' holds " + FormatFloat(v) + "; QSample noise must be finite");
  }
  a.eps = AscendEpsParam(in, c);
  for (std::int64_t b = 0; b < rows; ++b) ExpectPositiveRow(in, a.probs.data<float>(), vocab, b);
  return a;
}

TensorMap RunQSample(const Case& c, Profile profile) {
  const QSampleArgs a = ParseQSample(c, profile);
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  Tensor token(DType::kI64, {rows});
  const auto p = a.probs.data<float>();
  const auto noise = a.q.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto at = static_cast<std::size_t>(b * vocab), n = static_cast<std::size_t>(vocab);
    AscendSampleRow row;
    row.probs.assign(p.begin() + static_cast<std::ptrdiff_t>(at), p.begin() + static_cast<std::ptrdiff_t>(at + n));
    StoreToken(token, b, static_cast<std::int64_t>(AscendSamplePosition(row, noise.subspan(at, n), a.eps)));
  }
  return Outputs("token", std::move(token));
}

SAMPCHECK_REFERENCE_STAGE(qsample, RunQSample);

}  // namespace sampcheck::reference
