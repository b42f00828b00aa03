// SPDX-License-Identifier: Apache-2.0
// finish_rules (reference/finish_rules.h, docs/spec/finish_rules.md).
#include "reference/finish_rules.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

constexpr std::int32_t kRunning = 0, kStop = 1, kLength = 2;

bool Contains(std::span<const std::int32_t> ids, std::int64_t token) {
  return std::any_of(ids.begin(), ids.end(), [&](std::int32_t x) { return x >= 0 && x == token; });
}

void ExpectIdsOrPadding(const StageInputs& in, const std::string& name, const Tensor& ids) {
  auto d = ids.data<std::int32_t>();
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] < -1) in.Fail("'" + name + "' entry " + std::to_string(i) + " is " + std::to_string(d[i]) + "; ids are >= 0, -1 is padding");
  }
}

}  // namespace

FinishRulesArgs ParseFinishRules(const Case& c) {
  StageInputs in(c, "finish_rules");
  FinishRulesArgs a;
  const Tensor& token = in.Required("token");
  a.token = &token;
  a.rows = token.dim(0);
  a.output_len = &in.Required("output_len");
  a.max_tokens = &in.Required("max_tokens");
  a.min_tokens = &in.Required("min_tokens");
  a.ignore_eos = &in.Required("ignore_eos");
  a.eos_ids = &in.Required("eos_ids");
  a.stop_ids = &in.Required("stop_ids");
  a.keep_stop = in.Optional("keep_stop");
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"output_len", a.output_len}, {"max_tokens", a.max_tokens},
                                {"min_tokens", a.min_tokens}, {"ignore_eos", a.ignore_eos}, {"eos_ids", a.eos_ids},
                                {"stop_ids", a.stop_ids}, {"keep_stop", a.keep_stop}}) {
    if (t) in.ExpectDim(name, *t, 0, a.rows);
  }
  ExpectIdsOrPadding(in, "eos_ids", *a.eos_ids);
  ExpectIdsOrPadding(in, "stop_ids", *a.stop_ids);
  for (std::int64_t b = 0; b < a.rows; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const std::int64_t tok = token.data<std::int64_t>()[i];
    const std::int32_t len = a.output_len->data<std::int32_t>()[i], max = a.max_tokens->data<std::int32_t>()[i],
                       min = a.min_tokens->data<std::int32_t>()[i];
    const std::string row = "row " + std::to_string(b) + ": ";
    if (tok < 0) in.Fail(row + "token " + std::to_string(tok) + " must be >= 0");
    if (len < 1) in.Fail(row + "output_len " + std::to_string(len) + " must be >= 1 (it counts this step's token)");
    if (max < 1) in.Fail(row + "max_tokens " + std::to_string(max) + " must be >= 1");
    // vLLM's SamplingParams._verify_args rejects min_tokens > max_tokens.
    if (min < 0 || min > max) in.Fail(row + "min_tokens " + std::to_string(min) + " must be in [0, max_tokens = " + std::to_string(max) + "]");
  }
  return a;
}

TensorMap RunFinishRules(const Case& c, Profile profile) {
  const FinishRulesArgs a = ParseFinishRules(c);
  const std::int64_t rows = a.rows;
  const Tensor& token = *a.token;
  const Tensor& out_len = *a.output_len;
  const Tensor& max_tok = *a.max_tokens;
  const Tensor& min_tok = *a.min_tokens;
  const Tensor& ignore = *a.ignore_eos;
  const Tensor& eos = *a.eos_ids;
  const Tensor& stop = *a.stop_ids;
  const Tensor* keep = a.keep_stop;
  const std::int64_t width = eos.dim(1) + stop.dim(1);
  Tensor reason(DType::kI32, {rows});
  Tensor stop_reason(DType::kI64, {rows});
  Tensor text_keep(DType::kBool, {rows});
  Tensor banned(DType::kI32, {rows, width});
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const std::int64_t tok = token.data<std::int64_t>()[i];
    const std::int32_t len = out_len.data<std::int32_t>()[i], max = max_tok.data<std::int32_t>()[i],
                       min = min_tok.data<std::int32_t>()[i];
    const bool ignore_eos = ignore.data<std::uint8_t>()[i] != 0;
    const bool keep_stop = keep && keep->data<std::uint8_t>()[i] != 0;
    const auto eos_row = Row(eos, b), stop_row = Row(stop, b);
    const std::int32_t primary = eos_row.empty() ? -1 : eos_row[0];

    std::int32_t r = kRunning;
    std::int64_t matched = -1;
    if (profile == Profile::kSglang) {
      // Req.update_finish_state: _check_token_based_finish (nothing under ignore_eos) before
      // the max_new_tokens check, so a stop id as the last allowed token is a stop.
      if (!ignore_eos && (Contains(stop_row, tok) || Contains(eos_row, tok))) {
        r = kStop;
        matched = tok;
      } else if (len >= max) {
        r = kLength;
      }
    } else if (len >= min) {
      if (!ignore_eos && primary >= 0 && tok == primary) {
        r = kStop;
        matched = profile == Profile::kVllm ? -1 : tok;  // vLLM leaves stop_reason None for EOS
      } else if (Contains(stop_row, tok) || (!ignore_eos && Contains(eos_row.subspan(eos_row.empty() ? 0 : 1), tok))) {
        r = kStop;
        matched = tok;
      } else if (len >= max) {
        r = kLength;
      }
    }
    reason.data<std::int32_t>()[i] = r;
    stop_reason.data<std::int64_t>()[i] = matched;
    bool kept = true;
    if (r == kStop) kept = keep_stop || (profile == Profile::kSglang && tok == 0);
    text_keep.data<std::uint8_t>()[i] = kept ? 1 : 0;

    std::vector<std::int32_t> ban;
    if (len < min) {
      // SGLang's BatchedMinNewTokensPenalizer._prepare bans the stop ids, the tokenizer's EOS
      // and additional stop ids, not req.eos_token_ids: the extras stay allowed.
      const auto banned_eos = profile == Profile::kSglang ? eos_row.first(eos_row.empty() ? 0 : 1) : eos_row;
      for (std::int32_t x : banned_eos) if (x >= 0) ban.push_back(x);
      for (std::int32_t x : stop_row) if (x >= 0) ban.push_back(x);
      std::sort(ban.begin(), ban.end());
      ban.erase(std::unique(ban.begin(), ban.end()), ban.end());
    }
    auto out = banned.data<std::int32_t>().subspan(static_cast<std::size_t>(b * width), static_cast<std::size_t>(width));
    std::fill(out.begin(), out.end(), -1);
    std::copy(ban.begin(), ban.end(), out.begin());
  }
  TensorMap out = Outputs("finish_reason", std::move(reason));
  out.emplace("stop_reason", std::move(stop_reason));
  out.emplace("text_keep", std::move(text_keep));
  out.emplace("next_banned", std::move(banned));
  return out;
}

SAMPCHECK_REFERENCE_STAGE(finish_rules, RunFinishRules);

}  // namespace sampcheck::reference
