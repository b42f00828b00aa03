// SPDX-License-Identifier: Apache-2.0
// The pipeline's degenerate rows planted wrong (docs/spec/pipeline.md "Degenerate rows"):
// rejected by golden cases.
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - pipeline_inf_softmax_token_zero  a random row whose logits hold a +inf (and no NaN)
//                                returns token 0, as when the softmax turns +inf into NaN and
//                                the argmax falls back to the first entry
//                                -> pipeline/degenerate_rows_v33/canonical
// - pipeline_degenerate_row_aborts_batch  a row holding a NaN or a +inf, or no finite logit,
//                                makes the whole batch an error (a device assert)
//                                -> pipeline/degenerate_rows_v33/
// Each registers itself with SAMPCHECK_WRONG_SAMPLER (harness/wrong/wrong_samplers.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/half.h"
#include "core/profile.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "harness/wrong/wrong_backend.h"
#include "harness/wrong/wrong_samplers.h"
#include "reference/decode_steps.h"
#include "reference/pipeline.h"
#include "reference/reference_backend.h"
#include "reference/spec_step.h"
#include "reference/stage_io.h"

namespace sampcheck::statistical {
namespace {

// The rows of a pipeline case (f32 `logits` [B, V] beside `temperature` [B]), or null.
const Tensor* PipelineLogits(const Case& c) {
  auto logits = c.inputs.find("logits");
  auto temp = c.inputs.find("temperature");
  if (logits == c.inputs.end() || temp == c.inputs.end() || logits->second.rank() != 2 ||
      logits->second.dtype() != DType::kF32 || temp->second.rank() != 1) {
    return nullptr;
  }
  return &logits->second;
}

class PipelineInfSoftmaxTokenZero final : public ExactFaultBackend {
 public:
  PipelineInfSoftmaxTokenZero() : ExactFaultBackend("pipeline_inf_softmax_token_zero") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    const Tensor* logits = PipelineLogits(c);
    auto token = out.find("token");
    if (!logits || token == out.end()) return out;
    const std::int64_t rows = logits->dim(0), vocab = logits->dim(1);
    const auto x = logits->data<float>();
    const auto temp = c.inputs.at("temperature").data<float>();
    for (std::int64_t b = 0; b < rows; ++b) {
      if (!(temp[static_cast<std::size_t>(b)] >= 1e-5f)) continue;  // greedy rows take the argmax
      bool inf = false, nan = false;
      for (std::int64_t i = 0; i < vocab; ++i) {
        const float v = x[static_cast<std::size_t>(b * vocab + i)];
        inf = inf || v == std::numeric_limits<float>::infinity();
        nan = nan || std::isnan(v);
      }
      if (inf && !nan) token->second.data<std::int64_t>()[static_cast<std::size_t>(b)] = 0;  // the NaN softmax's argmax
    }
    return out;
  }
};

class PipelineDegenerateRowAbortsBatch final : public ExactFaultBackend {
 public:
  PipelineDegenerateRowAbortsBatch() : ExactFaultBackend("pipeline_degenerate_row_aborts_batch") {}

 protected:
  Case Transform(const Case& c) override {
    const Tensor* logits = PipelineLogits(c);
    if (!logits) return c;
    const std::int64_t rows = logits->dim(0), vocab = logits->dim(1);
    for (std::int64_t b = 0; b < rows; ++b) {
      bool finite = false, bad = false;
      for (std::int64_t i = 0; i < vocab; ++i) {
        const float v = logits->data<float>()[static_cast<std::size_t>(b * vocab + i)];
        finite = finite || std::isfinite(v);
        bad = bad || std::isnan(v) || v == std::numeric_limits<float>::infinity();
      }
      if (bad || !finite) throw InputError("row " + std::to_string(b) + " is degenerate: device-side assert, the batch is lost");
    }
    return c;
  }
};

std::unique_ptr<Backend> MakePipelineInfSoftmaxTokenZero() { return std::make_unique<PipelineInfSoftmaxTokenZero>(); }

std::unique_ptr<Backend> MakePipelineDegenerateRowAbortsBatch() {
  return std::make_unique<PipelineDegenerateRowAbortsBatch>();
}

}  // namespace

SAMPCHECK_WRONG_SAMPLER(PipelineInfSoftmaxTokenZero, {{"pipeline_inf_softmax_token_zero", "the pipeline's softmax turns a +inf into NaN and the draw falls back to token 0",
        "pipeline/degenerate_rows_v33/canonical", "golden"},
       MakePipelineInfSoftmaxTokenZero});
SAMPCHECK_WRONG_SAMPLER(PipelineDegenerateRowAbortsBatch, {{"pipeline_degenerate_row_aborts_batch", "a degenerate row makes the whole pipeline batch an error",
        "pipeline/degenerate_rows_v33/", "golden"},
       MakePipelineDegenerateRowAbortsBatch});

}  // namespace sampcheck::statistical
