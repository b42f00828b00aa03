// SPDX-License-Identifier: Apache-2.0
// penalties (reference/penalties.h, docs/spec/penalties.md). One pass over each row after a
// pass over the row's token ids.
#include "reference/penalties.h"

#include <cmath>
#include <string>
#include <vector>

#include "reference/sglang_penalizer_gate.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

// Per-row coefficient, or `fallback` for every row when the tensor is absent; validated.
std::vector<float> ReadCoefficients(const StageInputs& in, const std::string& name, std::int64_t rows, float fallback,
                                    bool positive) {
  std::vector<float> values(static_cast<std::size_t>(rows), fallback);
  if (const Tensor* t = in.Optional(name, DType::kF32, 1)) {
    in.ExpectDim(name, *t, 0, rows);
    for (std::int64_t b = 0; b < rows; ++b) {
      const float v = t->data<float>()[static_cast<std::size_t>(b)];
      if (!std::isfinite(v) || (positive && !(v > 0.0f))) {
        in.Fail("'" + name + "'[" + std::to_string(b) + "] = " + FormatFloat(v) +
                (positive ? " must be finite and > 0" : " must be finite"));
      }
      values[static_cast<std::size_t>(b)] = v;
    }
  }
  return values;
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

// docs/spec/penalties.md "Prompt ids past the vocabulary": a prompt id t >= V (a token the
// tokenizer has and the model's logits lack) penalises nothing under canonical and sglang
// (SGLang never reads the prompt) and under vllm when t == V, the padding bin of vLLM's
// get_token_bin_counts_and_mask (vllm/model_executor/layers/utils.py @9aaf83ef: V + 1 bins,
// the last dropped). vLLM has no result for t > V (its scatter_add_ into V + 1 bins is out of
// bounds), so that is an input error under vllm. Other negative ids than -1 are errors.
const Tensor* ReadPromptIds(const StageInputs& in, std::int64_t rows, std::int64_t vocab, Profile profile) {
  const Tensor* t = in.Optional("prompt_ids", DType::kI32, 2);
  if (!t) return t;
  in.ExpectDim("prompt_ids", *t, 0, rows);
  const auto d = t->data<std::int32_t>();
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] == -1 || (d[i] >= 0 && d[i] < vocab)) continue;
    if (d[i] < 0) {
      in.Fail("'prompt_ids' entry " + std::to_string(i) + " is token id " + std::to_string(d[i]) +
              ", a negative id other than -1 (padding)");
    }
    if (profile == Profile::kVllm && d[i] > vocab) {
      in.Fail("'prompt_ids' entry " + std::to_string(i) + " is token id " + std::to_string(d[i]) + " > V = " +
              std::to_string(vocab) + ": vLLM counts prompt ids into V + 1 bins (V is its padding id), so its "
              "scatter_add_ is out of bounds; only V itself is ignored");
    }
  }
  return t;
}

}  // namespace

PenaltiesArgs ParsePenalties(const Case& c, Profile profile) {
  StageInputs in(c, "penalties");
  PenaltiesArgs a;
  a.logits = in.Logits();
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  a.prompt_ids = ReadPromptIds(in, rows, vocab, profile);
  a.output_ids = ReadIds(in, "output_ids", rows, vocab);
  a.repetition = ReadCoefficients(in, "repetition_penalty", rows, 1.0f, true);
  a.frequency = ReadCoefficients(in, "frequency_penalty", rows, 0.0f, false);
  a.presence = ReadCoefficients(in, "presence_penalty", rows, 0.0f, false);
  a.sglang = profile == Profile::kSglang;
  if (!a.sglang && c.params.contains("penalizers")) in.Fail("parameter penalizers is read by the sglang profile only");
  if (a.sglang) {
    // SGLang adds its accumulated penalties only when some request of the batch has one
    // (sampling_batch_info.py update_penalties / apply_logits_bias): otherwise every bit stays.
    // BatchedPenalizerOrchestrator.is_required for the batch (param `penalizers`): "auto"
    // derives it from the case's rows as the penalizers' _is_required do (repetition != 1.0,
    // frequency != 0.0, presence != 0.0 in any row; -0.0 counts as 0.0, as in Python).
    bool any = false;
    for (std::size_t b = 0; b < a.repetition.size(); ++b) {
      any |= a.repetition[b] != 1.0f || a.frequency[b] != 0.0f || a.presence[b] != 0.0f;
    }
    a.identity = !SglangPenalizerApplies(in, c, any, "a repetition, frequency or presence penalty");
  }
  return a;
}

TensorMap RunPenalties(const Case& c, Profile profile) {
  PenaltiesArgs a = ParsePenalties(c, profile);
  if (a.identity) return Outputs("logits", std::move(a.logits));
  Tensor& logits = a.logits;
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const Tensor* prompt = a.prompt_ids;
  const Tensor* output = a.output_ids;
  const bool sglang = a.sglang;

  // Per token the order of operations is the contract's; across tokens they are
  // independent, so each row takes a sparse pass over its seen ids (repetition, which only
  // touches seen tokens) and one branch-free, vectorisable pass over the row for the additive
  // terms, which apply to every token (count 0 included: f * 0 can be -0.0 and matters).
  // The scratch arrays are reset through the ids that touched them, not by a pass over V.
  LogitsMap x = AsArray(logits);
  std::vector<std::int32_t> count(static_cast<std::size_t>(vocab), 0);  // output occurrences
  std::vector<float> linear(static_cast<std::size_t>(vocab), 0.0f);  // sglang: running sum of f
  std::vector<std::uint8_t> repeated(static_cast<std::size_t>(vocab), 0);
  std::vector<std::int32_t> seen;  // distinct ids of prompt and output, in first-seen order
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto rb = static_cast<std::size_t>(b);
    const float r = a.repetition[rb], f = a.frequency[rb], p = a.presence[rb];
    float* row = &x(b, 0);
    seen.clear();
    auto note = [&](std::int32_t t) {
      if (!repeated[static_cast<std::size_t>(t)]) repeated[static_cast<std::size_t>(t)] = 1, seen.push_back(t);
    };
    if (output) {
      for (std::int32_t t : Row(*output, b)) {
        if (t < 0) continue;
        ++count[static_cast<std::size_t>(t)];
        if (sglang) linear[static_cast<std::size_t>(t)] += f;  // scatter_add_, one rounding each
        note(t);
      }
    }
    if (prompt && !sglang) {
      for (std::int32_t t : Row(*prompt, b)) {
        if (t >= 0 && t < vocab) note(t);  // -1 padding; an id >= V penalises nothing
      }
    }
    if (!sglang) {
      for (std::int32_t t : seen) row[t] = row[t] > 0.0f ? row[t] / r : row[t] * r;
      // Integer counts and min(count, 1) keep this loop free of selects between floats, which
      // GCC 12 leaves as branches; float(count) is exact below 2^24.
      const std::int32_t* c = count.data();
      for (std::int64_t t = 0; t < vocab; ++t) {
        const std::int32_t seen_output = c[t] < 1 ? c[t] : 1;  // counts are >= 0
        const float v = row[t] - f * static_cast<float>(c[t]);
        row[t] = v - p * static_cast<float>(seen_output);
      }
    } else {
      const std::int32_t* c = count.data();
      const float* sum = linear.data();
      for (std::int64_t t = 0; t < vocab; ++t) {
        // p * 1.0f is p and p * 0.0f is a zero of p's sign; SGLang's presence tensor holds
        // +0.0 for unseen tokens, so the unseen term is +0.0 whatever p's sign.
        const float presence = c[t] > 0 ? p : 0.0f;
        row[t] = row[t] + ((0.0f - sum[t]) - presence);
      }
      for (std::int32_t t : seen) row[t] = row[t] < 0.0f ? row[t] * r : row[t] / r;  // output ids only
    }
    for (std::int32_t t : seen) {
      const auto i = static_cast<std::size_t>(t);
      count[i] = 0, linear[i] = 0.0f, repeated[i] = 0;
    }
  }
  return Outputs("logits", std::move(logits));
}

SAMPCHECK_REFERENCE_STAGE(penalties, RunPenalties);

}  // namespace sampcheck::reference
