// SPDX-License-Identifier: Apache-2.0
// decode_steps (reference/decode_steps.h, docs/spec/decode_steps.md).
#include "reference/decode_steps.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "reference/pipeline.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

// Row-major slice [:, t, :] of a rank-3 tensor, same dtype (bytes copied, no conversion).
Tensor StepSlice(const Tensor& t, std::int64_t step) {
  const std::int64_t rows = t.dim(0), steps = t.dim(1), vocab = t.dim(2);
  Tensor out = Tensor::Uninitialized(t.dtype(), {rows, vocab});
  const std::size_t row_bytes = static_cast<std::size_t>(vocab) * DTypeSize(t.dtype());
  for (std::int64_t b = 0; b < rows; ++b) {
    std::memcpy(out.bytes().data() + static_cast<std::size_t>(b) * row_bytes,
                t.bytes().data() + static_cast<std::size_t>(b * steps + step) * row_bytes, row_bytes);
  }
  return out;
}

}  // namespace

TensorMap RunDecodeSteps(const Case& c, Profile profile) { return RunDecodeStepsWith(c, profile, {}); }

TensorMap RunDecodeStepsWith(const Case& c, Profile profile, const DecodeStepsRules& rules) {
  return RunDecodeStepsOn(c, profile, rules, [profile](const Case& step) { return RunPipeline(step, profile); });
}

TensorMap RunDecodeStepsOn(const Case& c, Profile profile, const DecodeStepsRules& rules,
                           const DecodeStepPipeline& pipeline) {
  StageInputs in(c, "decode_steps");
  auto it = c.inputs.find("logits");
  if (it == c.inputs.end()) in.Fail("missing input 'logits' [B, N, V]");
  const Tensor& logits = it->second;
  if (logits.rank() != 3 || logits.dtype() == DType::kI32 || logits.dtype() == DType::kI64 ||
      logits.dtype() == DType::kU8 || logits.dtype() == DType::kBool || logits.dtype() == DType::kF64) {
    in.Fail("'logits' must be f32, f16 or bf16 of rank 3 [B, N, V]");
  }
  const std::int64_t rows = logits.dim(0), steps = logits.dim(1), vocab = logits.dim(2);
  if (steps < 1 || vocab < 1) in.Fail("'logits' needs N >= 1 steps and V >= 1 tokens");
  if (c.inputs.count("output_len")) in.Fail("'output_len' is derived per step; give the history in output_ids");
  const Tensor* q = nullptr;
  if (profile == Profile::kVllm) {
    q = &in.Required("q");
    if (q->dim(0) != rows || q->dim(1) != steps || q->dim(2) != vocab) in.Fail("'q' must be [B, N, V] like 'logits'");
  }
  const Tensor* positions = nullptr;
  // vllm reads positions only with `seeded`: the steps each request's generator drew before
  // step 0, advanced as the position is (pipeline.h, "vLLM's per-request generators").
  if ((profile != Profile::kVllm || c.inputs.count("seeded")) && c.inputs.count("positions")) {
    positions = &in.Required("positions");
    in.ExpectDim("positions", *positions, 0, rows);
  }
  const Tensor* history = in.Optional("output_ids");
  if (history) {
    in.ExpectDim("output_ids", *history, 0, rows);
    in.ExpectIdsOrPadding("output_ids", *history, vocab);
  }
  const bool has_min_tokens = c.inputs.count("stop_ids") != 0;

  // The ids of each row's history, padding dropped.
  std::vector<std::vector<std::int32_t>> ids(static_cast<std::size_t>(rows));
  if (history) {
    for (std::int64_t b = 0; b < rows; ++b) {
      for (std::int32_t x : Row(*history, b)) {
        if (x >= 0) ids[static_cast<std::size_t>(b)].push_back(x);
      }
    }
  }
  const std::vector<std::size_t> history_len = [&] {
    std::vector<std::size_t> n;
    for (const auto& v : ids) n.push_back(v.size());
    return n;
  }();

  Tensor tokens(DType::kI64, {rows, steps});
  for (std::int64_t t = 0; t < steps; ++t) {
    Case step = c;
    step.id = c.id + " > step " + std::to_string(t);
    step.stage = "pipeline";
    step.inputs.erase("logits");
    step.inputs.emplace("logits", StepSlice(logits, t));
    if (q) {
      step.inputs.erase("q");
      step.inputs.emplace("q", StepSlice(*q, t * rules.offset_stride));
    }
    if (positions) {
      Tensor p(DType::kI64, {rows});
      for (std::int64_t b = 0; b < rows; ++b) {
        p.data<std::int64_t>()[static_cast<std::size_t>(b)] =
            positions->data<std::int64_t>()[static_cast<std::size_t>(b)] + rules.offset_stride * t;
      }
      step.inputs.erase("positions");
      step.inputs.emplace("positions", std::move(p));
    }
    if (history) {
      std::size_t width = 0;
      for (const auto& v : ids) width = std::max(width, v.size());
      Tensor h(DType::kI32, {rows, static_cast<std::int64_t>(width)});
      auto d = h.data<std::int32_t>();
      std::fill(d.begin(), d.end(), -1);
      for (std::int64_t b = 0; b < rows; ++b) {
        const auto& v = ids[static_cast<std::size_t>(b)];
        std::copy(v.begin(), v.end(), d.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(b) * width));
      }
      step.inputs.erase("output_ids");
      step.inputs.emplace("output_ids", std::move(h));
    }
    if (has_min_tokens) {
      Tensor len(DType::kI32, {rows});
      for (std::int64_t b = 0; b < rows; ++b) {
        const auto i = static_cast<std::size_t>(b);
        len.data<std::int32_t>()[i] = static_cast<std::int32_t>(history_len[i] + (rules.append_history ? static_cast<std::size_t>(t) : 0));
      }
      step.inputs.emplace("output_len", std::move(len));
    }
    const TensorMap out = pipeline(step);
    const auto drawn = out.at("token").data<std::int64_t>();
    for (std::int64_t b = 0; b < rows; ++b) {
      const auto i = static_cast<std::size_t>(b);
      tokens.data<std::int64_t>()[static_cast<std::size_t>(b * steps + t)] = drawn[i];
      if (rules.append_history && history) ids[i].push_back(static_cast<std::int32_t>(drawn[i]));
    }
  }
  return Outputs("tokens", std::move(tokens));
}

SAMPCHECK_REFERENCE_STAGE(decode_steps, RunDecodeSteps);

}  // namespace sampcheck::reference
