// SPDX-License-Identifier: Apache-2.0
// logit_bias (reference/logit_bias.h, docs/spec/logit_bias.md).
#include "reference/logit_bias.h"

#include <set>
#include <utility>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {
// vLLM clamps each bias with Python's `min(100.0, max(-100.0, bias))`
// (vllm/sampling_params.py, SamplingParams.from_optional). Python's max keeps its first argument unless
// the second compares greater, and min unless the second compares less, so a NaN bias
// becomes -100: spelled out here rather than std::clamp, which would keep the NaN.
float VllmClampBias(float bias) {
  const float lower = bias > -100.0f ? bias : -100.0f;
  return lower < 100.0f ? lower : 100.0f;
}
}  // namespace

LogitBiasArgs ParseLogitBias(const Case& c, Profile profile) {
  StageInputs in(c, "logit_bias");
  LogitBiasArgs a;
  a.logits = in.Logits();
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  a.dense = in.Optional("bias");
  if (a.dense) {
    in.ExpectDim("bias", *a.dense, 0, rows);
    in.ExpectDim("bias", *a.dense, 1, vocab);
  }
  const Tensor* sr = in.Optional("bias_rows");
  const Tensor* si = in.Optional("bias_ids");
  const Tensor* sv = in.Optional("bias_values");
  a.sparse = sr || si || sv;
  if (a.sparse) {
    if (!sr || !si || !sv) in.Fail("sparse bias needs all of bias_rows, bias_ids and bias_values");
    a.n = sr->dim(0);
    in.ExpectDim("bias_ids", *si, 0, a.n);
    in.ExpectDim("bias_values", *sv, 0, a.n);
    a.rows = sr->data<std::int32_t>().data();
    a.ids = si->data<std::int32_t>().data();
    a.values = sv->data<float>().data();
    std::set<std::pair<std::int32_t, std::int32_t>> seen;
    for (std::int64_t k = 0; k < a.n; ++k) {
      const std::int32_t r = a.rows[k], id = a.ids[k];
      if (r < 0 || r >= rows) {
        in.Fail("bias_rows[" + std::to_string(k) + "] = " + std::to_string(r) + " is outside [0, " +
                std::to_string(rows) + ")");
      }
      if (id < 0 || id >= vocab) {
        in.Fail("bias_ids[" + std::to_string(k) + "] = " + std::to_string(id) + " is outside the vocabulary [0, " +
                std::to_string(vocab) + ")");
      }
      if (!seen.emplace(r, id).second) {
        in.Fail("bias entry (row " + std::to_string(r) + ", token " + std::to_string(id) + ") is listed twice");
      }
    }
  }
  a.rule = LogitBiasRuleFor(profile, a.sparse);
  return a;
}

TensorMap RunLogitBias(const Case& c, Profile profile) {
  LogitBiasArgs a = ParseLogitBias(c, profile);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  LogitsMap x = AsArray(a.logits);
  if (a.dense) x += Eigen::Map<const LogitsArray>(a.dense->data<float>().data(), rows, vocab);  // IEEE adds
  if (a.rule.densify) {
    // The dense tensor SGLang builds from the lists: +0.0f where none is listed.
    LogitsArray sparse = LogitsArray::Zero(rows, vocab);
    for (std::int64_t k = 0; k < a.n; ++k) sparse(a.rows[k], a.ids[k]) = a.values[k];
    x += sparse;
  } else {
    for (std::int64_t k = 0; k < a.n; ++k) {
      x(a.rows[k], a.ids[k]) += a.rule.clamp ? VllmClampBias(a.values[k]) : a.values[k];
    }
  }
  return Outputs("logits", std::move(a.logits));
}

SAMPCHECK_REFERENCE_STAGE(logit_bias, RunLogitBias);

}  // namespace sampcheck::reference
