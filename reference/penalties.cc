// SPDX-License-Identifier: Apache-2.0
// penalties (reference/penalties.h, docs/spec/penalties.md). One pass over each row after a
// pass over the row's token ids.
#include "reference/penalties.h"

#include <cmath>
#include <vector>

#include "reference/stage_io.h"

namespace sampcheck::reference {

namespace {

// Per-row coefficient, or `fallback` when the tensor is absent; validated.
struct Coefficients {
  const float* data = nullptr;
  float fallback;
  float at(std::int64_t b) const { return data ? data[b] : fallback; }
};

Coefficients ReadCoefficients(const StageInputs& in, const std::string& name, std::int64_t rows,
                              float fallback, bool positive) {
  Coefficients c{nullptr, fallback};
  if (const Tensor* t = in.Optional(name, DType::kF32, 1)) {
    in.ExpectDim(name, *t, 0, rows);
    c.data = t->data<float>().data();
    for (std::int64_t b = 0; b < rows; ++b) {
      const float v = c.data[b];
      if (!std::isfinite(v) || (positive && !(v > 0.0f))) {
        in.Fail("'" + name + "'[" + std::to_string(b) + "] = " + FormatFloat(v) +
                (positive ? " must be finite and > 0" : " must be finite"));
      }
    }
  }
  return c;
}

const Tensor* ReadIds(const StageInputs& in, const std::string& name, std::int64_t rows,
                      std::int64_t vocab) {
  const Tensor* t = in.Optional(name, DType::kI32, 2);
  if (t) {
    in.ExpectDim(name, *t, 0, rows);
    in.ExpectIdsOrPadding(name, *t, vocab);
  }
  return t;
}

}  // namespace

TensorMap RunPenalties(const Case& c, Profile profile) {
  StageInputs in(c, "penalties");
  Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const Tensor* prompt = ReadIds(in, "prompt_ids", rows, vocab);
  const Tensor* output = ReadIds(in, "output_ids", rows, vocab);
  const Coefficients rep = ReadCoefficients(in, "repetition_penalty", rows, 1.0f, true);
  const Coefficients freq = ReadCoefficients(in, "frequency_penalty", rows, 0.0f, false);
  const Coefficients pres = ReadCoefficients(in, "presence_penalty", rows, 0.0f, false);
  const bool sglang = profile == Profile::kSglang;

  LogitsMap x = AsArray(logits);
  std::vector<std::int32_t> count(static_cast<std::size_t>(vocab));
  std::vector<float> freq_sum(sglang ? static_cast<std::size_t>(vocab) : 0);
  std::vector<std::uint8_t> in_prompt(static_cast<std::size_t>(vocab));
  for (std::int64_t b = 0; b < rows; ++b) {
    std::fill(count.begin(), count.end(), 0);
    std::fill(in_prompt.begin(), in_prompt.end(), 0);
    std::fill(freq_sum.begin(), freq_sum.end(), 0.0f);
    const float r = rep.at(b), f = freq.at(b), p = pres.at(b);
    if (output) {
      for (std::int32_t t : Row(*output, b)) {
        if (t < 0) continue;
        ++count[static_cast<std::size_t>(t)];
        if (sglang) freq_sum[static_cast<std::size_t>(t)] += f;  // scatter_add_, one per token
      }
    }
    if (prompt) {
      for (std::int32_t t : Row(*prompt, b)) {
        if (t >= 0) in_prompt[static_cast<std::size_t>(t)] = 1;
      }
    }
    for (std::int64_t t = 0; t < vocab; ++t) {
      const auto i = static_cast<std::size_t>(t);
      const bool seen_output = count[i] > 0;
      float v = x(b, t);
      if (!sglang) {
        if (seen_output || in_prompt[i]) v = v > 0.0f ? v / r : v * r;
        v = v - f * static_cast<float>(count[i]);
        v = v - p * (seen_output ? 1.0f : 0.0f);
      } else {
        const float linear = (0.0f - freq_sum[i]) - (seen_output ? p : 0.0f);
        v = v + linear;
        if (seen_output) v = v < 0.0f ? v * r : v / r;
      }
      x(b, t) = v;
    }
  }
  return {{"logits", std::move(logits)}};
}

}  // namespace sampcheck::reference
