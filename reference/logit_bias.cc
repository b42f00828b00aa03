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

TensorMap RunLogitBias(const Case& c, Profile profile) {
  StageInputs in(c, "logit_bias");
  Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  LogitsMap x = AsArray(logits);

  if (const Tensor* dense = in.Optional("bias", DType::kF32, 2)) {
    in.ExpectDim("bias", *dense, 0, rows);
    in.ExpectDim("bias", *dense, 1, vocab);
    x += Eigen::Map<const LogitsArray>(dense->data<float>().data(), rows, vocab);  // IEEE adds
  }

  const Tensor* sr = in.Optional("bias_rows", DType::kI32, 1);
  const Tensor* si = in.Optional("bias_ids", DType::kI32, 1);
  const Tensor* sv = in.Optional("bias_values", DType::kF32, 1);
  if (!sr && !si && !sv) return Outputs("logits", std::move(logits));
  if (!sr || !si || !sv) in.Fail("sparse bias needs all of bias_rows, bias_ids and bias_values");
  const std::int64_t n = sr->dim(0);
  in.ExpectDim("bias_ids", *si, 0, n);
  in.ExpectDim("bias_values", *sv, 0, n);
  auto r = sr->data<std::int32_t>();
  auto id = si->data<std::int32_t>();
  auto v = sv->data<float>();

  LogitsArray sparse;  // used by the sglang profile only: the dense tensor SGLang builds
  if (profile == Profile::kSglang) sparse = LogitsArray::Zero(rows, vocab);
  std::set<std::pair<std::int32_t, std::int32_t>> seen;
  for (std::int64_t k = 0; k < n; ++k) {
    if (r[k] < 0 || r[k] >= rows) {
      in.Fail("bias_rows[" + std::to_string(k) + "] = " + std::to_string(r[k]) +
              " is outside [0, " + std::to_string(rows) + ")");
    }
    if (id[k] < 0 || id[k] >= vocab) {
      in.Fail("bias_ids[" + std::to_string(k) + "] = " + std::to_string(id[k]) +
              " is outside the vocabulary [0, " + std::to_string(vocab) + ")");
    }
    if (!seen.emplace(r[k], id[k]).second) {
      in.Fail("bias entry (row " + std::to_string(r[k]) + ", token " + std::to_string(id[k]) +
              ") is listed twice");
    }
    switch (profile) {
      case Profile::kVllm:
        x(r[k], id[k]) += VllmClampBias(v[k]);
        break;
      case Profile::kSglang:
        sparse(r[k], id[k]) = v[k];
        break;
      default:
        x(r[k], id[k]) += v[k];
    }
  }
  if (profile == Profile::kSglang) x += sparse;
  return Outputs("logits", std::move(logits));
}

SAMPCHECK_REFERENCE_STAGE(logit_bias, RunLogitBias);

}  // namespace sampcheck::reference
