// SPDX-License-Identifier: Apache-2.0
// softmax and log_softmax (reference/softmax.h, docs/spec/softmax.md).
#include "reference/softmax.h"

#include <cmath>
#include <vector>

#include "reference/math/exp_array.h"
#include "reference/math/log.h"
#include "reference/reductions.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

// d_i = x_i - m into `out`, e_i into `e`; returns s.
float Exponentials(std::span<const float> x, std::span<float> d, std::span<float> e) {
  const float m = CanonicalMax(x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    d[i] = x[i] - m;
  }
  math::ExpF32CrArray(x.data(), x.size(), m, e.data());  // ExpF32Cr(d[i]), vectorised
  return CanonicalSum(e);
}

template <void (*Row)(std::span<const float>, std::span<float>)>
TensorMap RunRows(const Case& c, bool log, const char* output) {
  SoftmaxArgs a = ParseSoftmax(c, log);
  if (a.temperature != nullptr) {
    LogitsMap x = AsArray(a.logits);
    for (std::int64_t b = 0; b < a.logits.dim(0); ++b) x.row(b) /= a.temperature[b];  // one division per element
  }
  const auto vocab = static_cast<std::size_t>(a.logits.dim(1));
  Tensor out = Tensor::Uninitialized(DType::kF32, a.logits.shape());
  auto x = a.logits.data<float>();
  auto y = out.data<float>();
  for (std::int64_t b = 0; b < a.logits.dim(0); ++b) {
    const std::size_t off = static_cast<std::size_t>(b) * vocab;
    Row(x.subspan(off, vocab), y.subspan(off, vocab));
  }
  return Outputs(output, std::move(out));
}

}  // namespace

void SoftmaxRow(std::span<const float> logits, std::span<float> probs) {
  // e_i goes straight into probs (d_i is not needed past the exp), then e_i / s in place.
  const float m = CanonicalMax(logits);
  math::ExpF32CrArray(logits.data(), logits.size(), m, probs.data());
  const float s = CanonicalSum(probs);
  for (float& p : probs) p = p / s;
}

void LogSoftmaxRow(std::span<const float> logits, std::span<float> logprobs) {
  std::vector<float> e(logits.size());
  const float s = Exponentials(logits, logprobs, e);
  const float log_s = math::LogF32Cr(s);
  for (float& v : logprobs) v = v - log_s;
}

SoftmaxArgs ParseSoftmax(const Case& c, bool log) {
  StageInputs in(c, log ? "log_softmax" : "softmax");
  SoftmaxArgs a;
  a.logits = in.Logits();
  const Tensor* temp = in.Optional("temperature", DType::kF32, 1);
  if (!temp) return a;
  in.ExpectDim("temperature", *temp, 0, a.logits.dim(0));
  for (std::int64_t b = 0; b < a.logits.dim(0); ++b) {
    const float t = temp->data<float>()[static_cast<std::size_t>(b)];
    if (!std::isfinite(t) || !(t > 0.0f)) {
      in.Fail("temperature[" + std::to_string(b) + "] = " + FormatFloat(t) + " must be finite and > 0");
    }
  }
  a.temperature = temp->data<float>().data();
  return a;
}

TensorMap RunSoftmax(const Case& c, Profile /*profile*/) { return RunRows<SoftmaxRow>(c, false, "probs"); }
TensorMap RunLogSoftmax(const Case& c, Profile /*profile*/) {
  return RunRows<LogSoftmaxRow>(c, true, "logprobs");
}

SAMPCHECK_REFERENCE_STAGE(softmax, RunSoftmax);
SAMPCHECK_REFERENCE_STAGE(log_softmax, RunLogSoftmax);

}  // namespace sampcheck::reference
