// SPDX-License-Identifier: Apache-2.0
// exponential_race (reference/exponential_race.h, docs/spec/draws.md#exponential_race).
#include "reference/exponential_race.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "reference/draw_rows.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

std::int64_t ExponentialRaceRow(std::span<const float> probs, std::span<const float> q, bool all_tokens) {
  std::int64_t best = -1;
  float best_value = 0.0f;
  bool any_drawable = false;
  for (std::size_t i = 0; i < probs.size(); ++i) {
    const bool drawable = probs[i] > 0.0f || std::isnan(probs[i]);  // NaN races (and wins)
    any_drawable |= drawable;
    if (!all_tokens && !drawable) continue;
    const float r = probs[i] / q[i];  // NaN for a NaN probability, +inf for +inf
    if (best < 0 || DrawArgmaxAbove(r, best_value)) best = static_cast<std::int64_t>(i), best_value = r;
  }
  return any_drawable ? best : -1;
}

ExponentialRaceArgs ParseExponentialRace(const Case& c, Profile profile) {
  StageInputs in(c, "exponential_race");
  ExponentialRaceArgs a;
  // NaN and +inf probabilities are values a model's row can carry: they race
  // (docs/spec/draws.md "Degenerate rows"); a negative one is not a probability.
  a.probs = in.FloatRows("probs");
  for (float p : a.probs.data<float>()) {
    if (p < 0.0f) in.Fail("'probs' holds " + FormatFloat(p) + "; probabilities must be >= 0 (or NaN or +inf)");
  }
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  a.q = in.FloatRows("q", rows, vocab);
  for (float v : a.q.data<float>()) {
    if (!std::isfinite(v) || !(v > 0.0f)) in.Fail("'q' holds " + FormatFloat(v) + "; Exp(1) noise must be finite and > 0");
  }
  a.all_tokens = profile == Profile::kVllm;
  return a;
}

TensorMap RunExponentialRace(const Case& c, Profile profile) {
  const ExponentialRaceArgs a = ParseExponentialRace(c, profile);
  const std::int64_t rows = a.probs.dim(0), vocab = a.probs.dim(1);
  Tensor token(DType::kI64, {rows});
  const auto p = a.probs.data<float>();
  const auto e = a.q.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto at = static_cast<std::size_t>(b * vocab), n = static_cast<std::size_t>(vocab);
    const std::int64_t drawn = ExponentialRaceRow(p.subspan(at, n), e.subspan(at, n), a.all_tokens);
    StoreToken(token, b, drawn < 0 ? kNoDrawToken : drawn);  // nothing positive or NaN: token 0
  }
  return Outputs("token", std::move(token));
}

SAMPCHECK_REFERENCE_STAGE(exponential_race, RunExponentialRace);

}  // namespace sampcheck::reference
