// SPDX-License-Identifier: Apache-2.0
// min_new_tokens (reference/min_new_tokens.h, docs/spec/penalties.md#min_new_tokens).
#include "reference/min_new_tokens.h"

#include <limits>
#include <span>
#include <string>

#include "reference/sglang_penalizer_gate.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

// SGLang's BatchedMinNewTokensPenalizer._is_required: any min_new_tokens > 0 in the batch.
bool SglangPenalizerRequired(const StageInputs& in, const Case& c, std::span<const std::int32_t> minimum) {
  bool any = false;
  for (std::int32_t m : minimum) any |= m > 0;
  return SglangPenalizerApplies(in, c, any, "min_tokens > 0");
}

}  // namespace

MinNewTokensArgs ParseMinNewTokens(const Case& c, Profile profile) {
  StageInputs in(c, "min_new_tokens");
  MinNewTokensArgs a;
  a.logits = in.Logits();
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  a.output_len = &in.Required("output_len");
  a.min_tokens = &in.Required("min_tokens");
  a.stop_ids = &in.Required("stop_ids");
  in.ExpectDim("output_len", *a.output_len, 0, rows);
  in.ExpectDim("min_tokens", *a.min_tokens, 0, rows);
  in.ExpectDim("stop_ids", *a.stop_ids, 0, rows);
  in.ExpectIdsOrPadding("stop_ids", *a.stop_ids, vocab);
  auto len = a.output_len->data<std::int32_t>();
  auto minimum = a.min_tokens->data<std::int32_t>();
  a.sglang = profile == Profile::kSglang;
  if (!a.sglang && c.params.contains("penalizers")) in.Fail("parameter penalizers is read by the sglang profile only");
  // Without a min_new_tokens request in the batch (and no other penalizer, param
  // `penalizers`), SGLang adds no penalty tensor at all: every bit stays, -0.0 included.
  a.identity = a.sglang && !SglangPenalizerRequired(in, c, minimum);
  for (std::int64_t b = 0; b < rows; ++b) {
    if (len[b] < 0 || minimum[b] < 0) {
      in.Fail("row " + std::to_string(b) + ": output_len and min_tokens must be >= 0");
    }
  }
  return a;
}

TensorMap RunMinNewTokens(const Case& c, Profile profile) {
  MinNewTokensArgs a = ParseMinNewTokens(c, profile);
  if (a.identity) return Outputs("logits", std::move(a.logits));
  const std::int64_t rows = a.logits.dim(0);
  auto len = a.output_len->data<std::int32_t>();
  auto minimum = a.min_tokens->data<std::int32_t>();
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  LogitsMap x = AsArray(a.logits);
  for (std::int64_t b = 0; b < rows; ++b) {
    const bool active = len[b] < minimum[b];
    if (a.sglang) {
      x.row(b) += 0.0f;  // the +0.0 entries of SGLang's linear-penalty tensor
      if (!active) continue;
      for (std::int32_t t : Row(*a.stop_ids, b)) {
        // A repeated stop id adds -inf again; the result is the same as SGLang's single
        // addition of its scatter-added (-inf + -inf = -inf) penalty.
        if (t >= 0) x(b, t) = x(b, t) + kNegInf;
      }
    } else if (active) {
      for (std::int32_t t : Row(*a.stop_ids, b)) {
        if (t >= 0) x(b, t) = kNegInf;
      }
    }
  }
  return Outputs("logits", std::move(a.logits));
}

SAMPCHECK_REFERENCE_STAGE(min_new_tokens, RunMinNewTokens);

}  // namespace sampcheck::reference
