// SPDX-License-Identifier: Apache-2.0
// logprobs (reference/logprobs.h, docs/spec/logprobs.md).
#include "reference/logprobs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "reference/filter_rows.h"
#include "reference/math/log.h"
#include "reference/sampling_filters.h"
#include "reference/softmax.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

LogprobsMode ParseLogprobsMode(const StageInputs& in, const Case& c, Profile profile) {
  const bool sglang = profile == Profile::kSglang;
  std::string name = sglang ? "temperature" : "raw_logprobs";
  if (c.params.contains("mode")) {
    if (!c.params["mode"].is_string()) in.Fail("parameter mode must be a string");
    name = c.params["mode"].get<std::string>();
  }
  if (sglang) {
    if (name == "temperature") return LogprobsMode::kSglangTemperature;
    if (name == "original") return LogprobsMode::kSglangOriginal;
    in.Fail("mode '" + name + "' is not a mode of profile sglang; valid: temperature, original");
  }
  if (name == "raw_logprobs") return LogprobsMode::kRawLogprobs;
  if (name == "raw_logits") return LogprobsMode::kRawLogits;
  if (name == "processed_logits") return LogprobsMode::kProcessedLogits;
  if (name == "processed_logprobs") return LogprobsMode::kProcessedLogprobs;
  in.Fail("mode '" + name + "' is not a mode of profile " + std::string(ProfileName(profile)) +
          "; valid: raw_logprobs, raw_logits, processed_logprobs, processed_logits");
}

namespace {

// Strict "comes before" of the top-n order: NaN first, larger value first, lower index first.
bool Before(std::span<const float> row, std::int32_t a, std::int32_t b) {
  const float va = row[static_cast<std::size_t>(a)], vb = row[static_cast<std::size_t>(b)];
  const bool na = std::isnan(va), nb = std::isnan(vb);
  if (na != nb) return na;
  if (!na && va != vb) return va > vb;
  return a < b;
}

}  // namespace

std::vector<std::int32_t> TopLogprobIndices(std::span<const float> row, std::int64_t n) {
  std::vector<std::int32_t> ids(row.size());
  std::iota(ids.begin(), ids.end(), 0);
  const auto count = static_cast<std::ptrdiff_t>(n);
  // A strict total order (indices are distinct), so the partial sort's result is unique.
  std::partial_sort(ids.begin(), ids.begin() + count, ids.end(),
                    [&](std::int32_t a, std::int32_t b) { return Before(row, a, b); });
  ids.resize(static_cast<std::size_t>(n));
  return ids;
}

std::vector<std::int64_t> TopLogprobRanks(Profile profile, std::span<const float> row,
                                          std::span<const std::int32_t> order) {
  std::vector<std::int64_t> ranks(order.size());
  std::int64_t numbers = 0;  // non-NaN entries listed before position p
  for (std::size_t p = 0; p < order.size(); ++p) {
    const float v = row[static_cast<std::size_t>(order[p])];
    if (profile == Profile::kVllm) {
      ranks[p] = static_cast<std::int64_t>(p) + 1;  // topk_ranks = range(1, num_logprobs + 1)
    } else if (std::isnan(v)) {
      ranks[p] = 1;  // no x_j > NaN
    } else {
      // The numbers listed before p are >= v (larger first); those equal to v end just before
      // p, so the run's first entry holds 1 + #{x_j > v}.
      const float prev = p == 0 ? v : row[static_cast<std::size_t>(order[p - 1])];
      const bool same_run = p > 0 && !std::isnan(prev) && prev == v;
      ranks[p] = same_run ? ranks[p - 1] : 1 + numbers;
    }
    if (!std::isnan(v)) ++numbers;
  }
  return ranks;
}

std::int64_t LogprobRank(Profile profile, std::span<const float> row, std::int64_t token) {
  const float v = row[static_cast<std::size_t>(token)];
  std::int64_t count = 0;
  if (profile == Profile::kVllm) {
    for (float x : row) count += x >= v ? 1 : 0;  // (x >= values).sum(-1): ties and itself
    return count;
  }
  for (float x : row) count += x > v ? 1 : 0;
  return 1 + count;
}

std::int64_t TokenIdsRank(std::span<const float> processed_logits, std::int64_t token) {
  // gather_specific_token_logprobs: (logits > sampled_logits).sum(dim=-1), no + 1.
  const float v = processed_logits[static_cast<std::size_t>(token)];
  std::int64_t count = 0;
  for (float x : processed_logits) count += x > v ? 1 : 0;
  return count;
}

bool IsRawLogprobsMode(LogprobsMode mode) {
  return mode == LogprobsMode::kRawLogprobs || mode == LogprobsMode::kRawLogits;
}

bool IsProcessedLogprobsMode(LogprobsMode mode) {
  return mode == LogprobsMode::kProcessedLogits || mode == LogprobsMode::kProcessedLogprobs;
}

LogprobsArgs ParseLogprobs(const Case& c, Profile profile) {
  StageInputs in(c, "logprobs");
  LogprobsArgs a;
  a.profile = profile;
  a.logits = in.Logits();
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  const LogprobsMode asked_mode = ParseLogprobsMode(in, c, profile);
  a.raw_logits = c.inputs.count("raw_logits") ? in.FloatRows("raw_logits", rows, vocab) : a.logits;

  a.token = &in.Required("token");
  in.ExpectDim("token", *a.token, 0, rows);
  const Tensor* temp = in.Optional("temperature");
  if (temp) in.ExpectDim("temperature", *temp, 0, rows);
  const Tensor* top_k = in.Optional("top_k");
  if (top_k) in.ExpectDim("top_k", *top_k, 0, rows);
  const float* top_p = RowParams(in, "top_p", rows);
  const float* min_p = RowParams(in, "min_p", rows);
  a.token_ids = in.Optional("token_ids");
  if (a.token_ids) {
    in.ExpectDim("token_ids", *a.token_ids, 0, rows);
    in.ExpectIdsOrPadding("token_ids", *a.token_ids, vocab);
  }
  const std::int64_t asked = IntParam(in, c, "num_logprobs", 0);
  if (asked < 0 || asked > vocab) {
    // torch.topk raises for k > V ("selected index k out of range"); vLLM's -1 (the whole
    // row) is the log_softmax stage, not this one.
    in.Fail("num_logprobs = " + std::to_string(asked) + " must be in [0, V = " + std::to_string(vocab) + "]");
  }
  // vLLM's SamplingParams.logprob_token_ids (vllm/v1/sample/sampler.py @9aaf83ef,
  // Sampler.forward -> gather_specific_token_logprobs): log_softmax of the logits that
  // Sampler.sample has divided and filtered in place, whatever the logprobs mode; when top-n is
  // asked too, the token-ids result replaces it, so no top-n is returned.
  a.vllm_token_ids = profile == Profile::kVllm && a.token_ids != nullptr;
  a.mode = a.vllm_token_ids ? LogprobsMode::kProcessedLogprobs : asked_mode;
  a.n = a.vllm_token_ids ? 0 : asked;

  const bool processed = IsProcessedLogprobsMode(a.mode);
  const TemperatureRule rule = TemperatureRuleFor(profile);
  const auto r = static_cast<std::size_t>(rows);
  a.temperature.resize(r);
  a.top_k.assign(r, 0);
  a.top_p.assign(r, 1.0f);
  a.min_p.assign(r, 0.0f);
  a.filtered.assign(r, 0);
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const std::int64_t tok = a.token->data<std::int64_t>()[i];
    if (tok < 0 || tok >= vocab) {
      in.Fail("token[" + std::to_string(b) + "] = " + std::to_string(tok) + " must be in [0, V = " + std::to_string(vocab) + ")");
    }
    const float t = temp ? temp->data<float>()[i] : 1.0f;
    CheckTemperature(in, b, t);
    a.temperature[i] = EffectiveTemperature(rule, t);
    if (top_k) a.top_k[i] = top_k->data<std::int32_t>()[i];
    if (top_p) a.top_p[i] = top_p[i];
    if (min_p) a.min_p[i] = min_p[i];
    const bool active = (a.top_k[i] > 0 && a.top_k[i] < vocab) || a.top_p[i] < 1.0f || a.min_p[i] > 0.0f;
    if (!processed || a.temperature[i].greedy || !active) continue;
    a.filtered[i] = 1;  // a row holding NaN or +inf included: the filters' degenerate-row rules
  }
  return a;
}

TensorMap RunLogprobs(const Case& c, Profile profile) {
  const LogprobsArgs a = ParseLogprobs(c, profile);
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1), n = a.n;
  const bool vllm_ids = a.vllm_token_ids;
  const Tensor* ids = a.token_ids;
  Tensor top_ids(DType::kI64, {rows, n});
  Tensor top_values(DType::kF32, {rows, n});
  Tensor top_ranks(DType::kI64, {rows, n});
  Tensor token_logprob(DType::kF32, {rows});
  Tensor token_rank(DType::kI64, {rows});
  const std::int64_t width = ids ? ids->dim(1) : 0;
  Tensor ids_values(DType::kF32, {rows, width});
  const auto uv = static_cast<std::size_t>(vocab);
  std::vector<float> x(uv);
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const std::int64_t tok = a.token->data<std::int64_t>()[i];
    const RowTemperature rt = a.temperature[i];
    const auto src = (IsRawLogprobsMode(a.mode) ? a.raw_logits : a.logits).data<float>().subspan(i * uv, uv);
    std::vector<float> y;  // the processed logits (processed modes)
    switch (a.mode) {
      case LogprobsMode::kRawLogits:
        std::copy(src.begin(), src.end(), x.begin());
        break;
      case LogprobsMode::kRawLogprobs:
      case LogprobsMode::kSglangOriginal:
        LogSoftmaxRow(src, x);
        break;
      case LogprobsMode::kSglangTemperature: {
        std::vector<float> scaled(uv);
        for (std::size_t j = 0; j < uv; ++j) scaled[j] = src[j] / rt.divisor;
        SoftmaxRow(scaled, x);
        for (float& v : x) v = math::LogF32Cr(v);  // torch.log(probs): log(+0) = -inf
        break;
      }
      case LogprobsMode::kProcessedLogits:
      case LogprobsMode::kProcessedLogprobs: {
        y.assign(src.begin(), src.end());
        if (!rt.greedy) {
          for (float& v : y) v = v / rt.divisor;
          if (a.filtered[i]) {
            FilterParams f;
            f.top_k = a.top_k[i];
            f.top_p = a.top_p[i];
            f.min_p = a.min_p[i];
            if (!SamplingFiltersDegenerateRow(profile, y, f)) SamplingFiltersRow(profile, y, f);
          }
        }
        if (a.mode == LogprobsMode::kProcessedLogits) {
          x = y;
        } else {
          LogSoftmaxRow(y, x);
        }
        break;
      }
    }
    if (profile == Profile::kSglang) {
      // OutputLogprobProcessor.compute_logprobs (python/sglang/srt/layers/logprob_processor.py
      // @d55f1c28): logprobs.clamp_(min=finfo(float32).min) before every gather; NaN stays.
      for (float& v : x) {
        if (v == -std::numeric_limits<float>::infinity()) v = std::numeric_limits<float>::lowest();
      }
    }
    const auto order = TopLogprobIndices(x, n);
    const auto ranks = TopLogprobRanks(profile, x, order);
    for (std::int64_t j = 0; j < n; ++j) {
      const auto k = static_cast<std::size_t>(b * n + j);
      top_ids.data<std::int64_t>()[k] = order[static_cast<std::size_t>(j)];
      top_values.data<float>()[k] = x[static_cast<std::size_t>(order[static_cast<std::size_t>(j)])];
      top_ranks.data<std::int64_t>()[k] = ranks[static_cast<std::size_t>(j)];
    }
    token_logprob.data<float>()[i] = x[static_cast<std::size_t>(tok)];
    token_rank.data<std::int64_t>()[i] = vllm_ids ? TokenIdsRank(y, tok) : LogprobRank(profile, x, tok);
    // Padding: vLLM masks its padded columns with -inf (valid_mask); the others have no padding
    // of their own, and sampcheck's -1 gives NaN.
    const float pad = vllm_ids ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
    for (std::int64_t j = 0; j < width; ++j) {
      const std::int32_t id = ids->data<std::int32_t>()[static_cast<std::size_t>(b * width + j)];
      ids_values.data<float>()[static_cast<std::size_t>(b * width + j)] = id < 0 ? pad : x[static_cast<std::size_t>(id)];
    }
  }
  return LogprobsOutputs(a, std::move(top_ids), std::move(top_values), std::move(top_ranks), std::move(token_logprob),
                         std::move(token_rank), std::move(ids_values));
}

TensorMap LogprobsOutputs(const LogprobsArgs& a, Tensor top_ids, Tensor top_values, Tensor top_ranks,
                          Tensor token_logprob, Tensor token_rank, Tensor token_ids_logprobs) {
  TensorMap out = Outputs("top_ids", std::move(top_ids));
  out.emplace("top_values", std::move(top_values));
  out.emplace("token_logprob", std::move(token_logprob));
  if (a.profile != Profile::kSglang) {
    out.emplace("top_ranks", std::move(top_ranks));
    out.emplace("token_rank", std::move(token_rank));
  }
  if (a.token_ids) out.emplace("token_ids_logprobs", std::move(token_ids_logprobs));
  return out;
}

SAMPCHECK_REFERENCE_STAGE(logprobs, RunLogprobs);

}  // namespace sampcheck::reference
