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

namespace {

// The peers' temperature constants, as reference/temperature.cc uses them: vLLM _SAMPLING_EPS
// 1e-5 and _MAX_TEMP 1e-2 (vllm/sampling_params.py), SGLang _SAMPLING_EPS 1e-6
// (python/sglang/srt/sampling/sampling_params.py); canonical takes vLLM's epsilon, no raise.
constexpr double kVllmEps = 1e-5;
constexpr double kVllmMinTemperature = 1e-2;
constexpr double kSglangEps = 1e-6;
constexpr double kCanonicalEps = 1e-5;

}  // namespace

RowTemperature LogprobsEffectiveTemperature(Profile profile, float t) {
  double eps = kCanonicalEps;
  if (profile == Profile::kVllm) {
    if (t > 0.0f && static_cast<double>(t) < kVllmMinTemperature) t = static_cast<float>(kVllmMinTemperature);
    eps = kVllmEps;
  } else if (profile == Profile::kSglang) {
    eps = kSglangEps;
  }
  if (static_cast<double>(t) < eps) return {1.0f, true};
  return {t, false};
}

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

TensorMap RunLogprobs(const Case& c, Profile profile) {
  StageInputs in(c, "logprobs");
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  const LogprobsMode mode = ParseLogprobsMode(in, c, profile);
  const bool raw = mode == LogprobsMode::kRawLogprobs || mode == LogprobsMode::kRawLogits;
  Tensor raw_logits = c.inputs.count("raw_logits") ? in.FloatRows("raw_logits", rows, vocab) : logits;

  const Tensor& token = in.Required("token", DType::kI64, 1);
  in.ExpectDim("token", token, 0, rows);
  const Tensor* temp = in.Optional("temperature", DType::kF32, 1);
  if (temp) in.ExpectDim("temperature", *temp, 0, rows);
  const Tensor* top_k = in.Optional("top_k", DType::kI32, 1);
  if (top_k) in.ExpectDim("top_k", *top_k, 0, rows);
  const float* top_p = RowParams(in, "top_p", rows);
  const float* min_p = RowParams(in, "min_p", rows);
  const Tensor* ids = in.Optional("token_ids", DType::kI32, 2);
  if (ids) {
    in.ExpectDim("token_ids", *ids, 0, rows);
    in.ExpectIdsOrPadding("token_ids", *ids, vocab);
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
  const bool vllm_ids = profile == Profile::kVllm && ids != nullptr;
  const LogprobsMode row_mode = vllm_ids ? LogprobsMode::kProcessedLogprobs : mode;
  const std::int64_t n = vllm_ids ? 0 : asked;

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
    const std::int64_t tok = token.data<std::int64_t>()[i];
    if (tok < 0 || tok >= vocab) {
      in.Fail("token[" + std::to_string(b) + "] = " + std::to_string(tok) + " must be in [0, V = " + std::to_string(vocab) + ")");
    }
    const float t = temp ? temp->data<float>()[i] : 1.0f;
    if (!std::isfinite(t) || t < 0.0f) in.Fail("temperature[" + std::to_string(b) + "] = " + FormatFloat(t) + " must be finite and >= 0");
    const RowTemperature rt = LogprobsEffectiveTemperature(profile, t);
    const auto src = (raw && !vllm_ids ? raw_logits : logits).data<float>().subspan(i * uv, uv);
    std::vector<float> y;  // the processed logits (processed modes)
    switch (row_mode) {
      case LogprobsMode::kRawLogits:
        std::copy(src.begin(), src.end(), x.begin());
        break;
      case LogprobsMode::kRawLogprobs:
      case LogprobsMode::kSglangOriginal:
        LogSoftmaxRow(src, x);
        break;
      case LogprobsMode::kSglangTemperature: {
        std::vector<float> y(uv);
        for (std::size_t j = 0; j < uv; ++j) y[j] = src[j] / rt.divisor;
        SoftmaxRow(y, x);
        for (float& v : x) v = math::LogF32Cr(v);  // torch.log(probs): log(+0) = -inf
        break;
      }
      case LogprobsMode::kProcessedLogits:
      case LogprobsMode::kProcessedLogprobs: {
        y.assign(src.begin(), src.end());
        if (!rt.greedy) {
          for (float& v : y) v = v / rt.divisor;
          FilterParams f;
          if (top_k) f.top_k = top_k->data<std::int32_t>()[i];
          if (top_p) f.top_p = top_p[i];
          if (min_p) f.min_p = min_p[i];
          const bool active = (f.top_k > 0 && f.top_k < vocab) || f.top_p < 1.0f || f.min_p > 0.0f;
          if (active) {
            for (float v : y) {
              if (std::isnan(v) || v == std::numeric_limits<float>::infinity()) {
                in.Fail("row " + std::to_string(b) + ": processed modes with an active filter need logits without NaN or +inf");
              }
            }
            SamplingFiltersRow(profile, y, f);
          }
        }
        if (row_mode == LogprobsMode::kProcessedLogits) {
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
  TensorMap out = Outputs("top_ids", std::move(top_ids));
  out.emplace("top_values", std::move(top_values));
  out.emplace("token_logprob", std::move(token_logprob));
  if (profile != Profile::kSglang) {
    out.emplace("top_ranks", std::move(top_ranks));
    out.emplace("token_rank", std::move(token_rank));
  }
  if (ids) out.emplace("token_ids_logprobs", std::move(ids_values));
  return out;
}

SAMPCHECK_REFERENCE_STAGE(logprobs, RunLogprobs);

}  // namespace sampcheck::reference
