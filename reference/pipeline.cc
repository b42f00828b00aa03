// SPDX-License-Identifier: Apache-2.0
// pipeline (reference/pipeline.h, docs/spec/pipeline.md). Each step runs the single stage on a
// sub-case, so the pipeline is by construction the composition the spec states.
#include "reference/pipeline.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "reference/draw_rows.h"
#include "reference/exponential_race.h"
#include "reference/greedy.h"
#include "reference/logit_bias.h"
#include "reference/min_new_tokens.h"
#include "reference/penalties.h"
#include "reference/sampling_filters.h"
#include "reference/seeded_gumbel.h"
#include "reference/softmax.h"
#include "reference/stage_io.h"
#include "reference/temperature.h"
#include "reference/token_bitmask.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

using StageFn = TensorMap (*)(const Case&, Profile);

// The logits flowing through the steps, and the sub-cases that advance them.
class Steps {
 public:
  Steps(const Case& c, Profile profile, Tensor logits) : case_(c), profile_(profile), logits_(std::move(logits)) {}

  bool Has(const std::string& name) const { return case_.inputs.count(name) != 0; }

  // Runs `stage` when its trigger input is present, on the current logits plus `names`
  // (those present), and keeps its output logits. Returns the stage's outputs.
  TensorMap Apply(const std::string& stage, StageFn fn, const std::vector<std::string>& names,
                  nlohmann::json params = nlohmann::json::object()) {
    if (!Has(names.front())) return {};
    TensorMap out = Run(stage, fn, names, std::move(params));
    logits_ = out.at("logits");
    return out;
  }

  // Runs `stage` on the current logits without replacing them.
  TensorMap Run(const std::string& stage, StageFn fn, const std::vector<std::string>& names,
                nlohmann::json params = nlohmann::json::object()) const {
    Case sub;
    sub.id = case_.id + " > " + stage;
    sub.stage = stage;
    sub.profile = profile_;
    sub.params = std::move(params);
    sub.inputs.emplace("logits", logits_);
    for (const auto& name : names) {
      if (auto it = case_.inputs.find(name); it != case_.inputs.end()) sub.inputs.emplace(name, it->second);
    }
    return fn(sub, profile_);
  }

  const Tensor& logits() const { return logits_; }
  void SetLogits(Tensor logits) { logits_ = std::move(logits); }

 private:
  const Case& case_;
  Profile profile_;
  Tensor logits_;
};

const std::vector<std::string> kPenalties = {"output_ids", "prompt_ids", "repetition_penalty", "frequency_penalty", "presence_penalty"};
const std::vector<std::string> kMinNewTokens = {"stop_ids", "output_len", "min_tokens"};
const std::vector<std::string> kBitmask = {"bitmask"};
const std::vector<std::string> kBias = {"bias"};
const std::vector<std::string> kFilters = {"top_k", "top_p", "min_p"};

void ApplyPenalties(Steps& s) { s.Apply("penalties", RunPenalties, kPenalties); }
void ApplyMinNewTokens(Steps& s) { s.Apply("min_new_tokens", RunMinNewTokens, kMinNewTokens); }
void ApplyBitmask(Steps& s) { s.Apply("token_bitmask", RunTokenBitmask, kBitmask); }
void ApplyBias(Steps& s) { s.Apply("logit_bias", RunLogitBias, kBias); }

// The steps before temperature, in the profile's order (contract block).
void ApplyLogitSteps(Steps& steps, Profile profile) {
  if (profile == Profile::kVllm) {
    ApplyBitmask(steps);
    ApplyMinNewTokens(steps);
    ApplyBias(steps);
    ApplyPenalties(steps);
  } else {
    ApplyPenalties(steps);
    ApplyMinNewTokens(steps);
    ApplyBitmask(steps);
    ApplyBias(steps);
  }
}

// SGLang samples the rank r of the descending-sorted probabilities; the sorted row holds the
// surviving probabilities of the full softmax (not renormalised). torch.sort is not stable:
// ties in probability are ordered here by the higher logit, then the lower id (spec).
std::int64_t SglangSeededDraw(std::span<const float> scaled, std::span<const float> masked, std::uint64_t seed,
                              std::uint32_t position) {
  std::vector<float> full(scaled.size());
  SoftmaxRow(scaled, full);
  std::vector<std::int32_t> kept;
  for (std::size_t i = 0; i < masked.size(); ++i) {
    if (masked[i] != -std::numeric_limits<float>::infinity()) kept.push_back(static_cast<std::int32_t>(i));
  }
  std::sort(kept.begin(), kept.end(), [&](std::int32_t a, std::int32_t b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (full[ua] != full[ub]) return full[ua] > full[ub];
    if (scaled[ua] != scaled[ub]) return scaled[ua] > scaled[ub];
    return a < b;
  });
  std::vector<float> sorted(kept.size());
  for (std::size_t r = 0; r < kept.size(); ++r) sorted[r] = full[static_cast<std::size_t>(kept[r])];
  const std::int64_t rank = SeededGumbelColumn(sorted, seed, position);
  return rank < 0 ? -1 : kept[static_cast<std::size_t>(rank)];
}

// SGLang's choice between its two seeded draws, a property of the whole batch
// (layers/sampler.py, Sampler.forward: `simple_sampling_case`; sampling_batch_info.py:
// need_top_k_sampling = any top_k != TOP_K_ALL, need_top_p_sampling = any top_p != 1.0,
// need_min_p_sampling = any min_p > 0; a greedy row is SGLang's top_k = 1). Param
// `sampling_path`: "auto" (default) derives it from the case's rows; "sorted" or "unfiltered"
// state the server batch's path (a batch with other requests). True: the unfiltered path.
bool SglangUnfilteredPath(const StageInputs& in, const Case& c, std::span<const std::uint8_t> is_greedy,
                          bool any_random) {
  bool needs_sorted = std::any_of(is_greedy.begin(), is_greedy.end(), [](std::uint8_t g) { return g != 0; });
  if (const Tensor* k = in.Optional("top_k", DType::kI32, 1)) {
    // k <= 0 is the disabled value (SGLang's -1, stored as TOP_K_ALL); any k >= 1, k >= V
    // included, is a value other than TOP_K_ALL.
    for (std::int32_t v : k->data<std::int32_t>()) needs_sorted |= v >= 1;
  }
  for (const char* name : {"top_p", "min_p"}) {
    if (c.inputs.count(name) == 0) continue;
    const Tensor f = UpcastToF32(c.inputs.at(name), name);
    for (float v : f.data<float>()) needs_sorted |= std::string(name) == "top_p" ? v != 1.0f : v > 0.0f;
  }
  std::string path = "auto";
  if (c.params.contains("sampling_path")) {
    if (!c.params["sampling_path"].is_string()) in.Fail("parameter sampling_path must be a string");
    path = c.params["sampling_path"].get<std::string>();
  }
  if (path == "auto") return any_random && !needs_sorted;
  if (path == "sorted") return false;
  if (path == "unfiltered") {
    if (needs_sorted) {
      in.Fail("parameter sampling_path = 'unfiltered' but a row is greedy or filters (top_k >= 1, top_p != 1 or "
              "min_p > 0): SGLang takes the sorted path for such a batch");
    }
    return true;
  }
  in.Fail("parameter sampling_path = '" + path + "'; valid: auto, sorted, unfiltered");
}

}  // namespace

TensorMap RunPipeline(const Case& c, Profile profile) {
  StageInputs in(c, "pipeline");
  if (profile != Profile::kCanonical && profile != Profile::kVllm && profile != Profile::kSglang) {
    in.Fail("profile " + std::string(ProfileName(profile)) + " has no pipeline (canonical, vllm, sglang)");
  }
  for (const auto& [name, t] : c.inputs) {
    if (t.rank() == 0) in.Fail("input '" + name + "' is a scalar; every pipeline input is per row [B, ...]");
  }
  if (c.inputs.count("bias_rows") || c.inputs.count("bias_ids") || c.inputs.count("bias_values")) {
    in.Fail("sparse logit bias lists are not per row; give the pipeline a dense 'bias' [B, V]");
  }
  const Tensor logits = in.Logits();
  const std::int64_t rows = logits.dim(0), vocab = logits.dim(1);
  Steps steps(c, profile, logits);
  ApplyLogitSteps(steps, profile);
  const TensorMap greedy = steps.Run("greedy", RunGreedy, {});
  if (!steps.Has("temperature")) in.Fail("missing input tensor 'temperature' (f32 [B])");
  const TensorMap scaled = steps.Apply("temperature", RunTemperature, {"temperature"});
  // Greedy by temperature, or (vllm) by top_k = 1.
  std::vector<std::uint8_t> is_greedy(scaled.at("is_greedy").data<std::uint8_t>().begin(),
                                      scaled.at("is_greedy").data<std::uint8_t>().end());
  for (std::int64_t b = 0; b < rows; ++b) {
    if (PipelineTopKOneIsGreedy(c, profile, b)) is_greedy[static_cast<std::size_t>(b)] = 1;
  }
  SglangResolveGreedyRows(in, c, profile, is_greedy, scaled.at("logits"));

  // Degenerate rows take their token without filters or a draw (docs/spec/pipeline.md
  // "Degenerate rows"); they enter the filters as rows of -inf.
  std::vector<std::int64_t> degenerate(static_cast<std::size_t>(rows));
  for (std::int64_t b = 0; b < rows; ++b) {
    degenerate[static_cast<std::size_t>(b)] = PipelineDegenerateToken(
        scaled.at("logits").data<float>().subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab)),
        profile);
  }
  steps.SetLogits(PipelineFilterInput(steps.logits(), profile));

  nlohmann::json filter_params = nlohmann::json::object();
  if (c.params.contains("order")) filter_params["order"] = c.params["order"];
  const bool any_filter = steps.Has("top_k") || steps.Has("top_p") || steps.Has("min_p");
  const TensorMap filtered = steps.Run("sampling_filters", RunSamplingFilters,
                                       any_filter ? kFilters : std::vector<std::string>{"top_k"}, filter_params);
  const auto masked = filtered.at("logits").data<float>();
  const auto probs = filtered.at("probs").data<float>();
  const auto scaled_logits = scaled.at("logits").data<float>();

  const Tensor* seed = nullptr;
  const Tensor* positions = nullptr;
  Tensor q;
  const bool any_random = std::any_of(is_greedy.begin(), is_greedy.end(), [](std::uint8_t g) { return g == 0; });
  if (profile != Profile::kSglang && c.params.contains("sampling_path")) {
    in.Fail("parameter sampling_path is read by the sglang profile only");
  }
  CheckVllmTopKOne(in, c, profile);
  const bool sglang_unfiltered = profile == Profile::kSglang && SglangPipelineDrawsUnfiltered(in, c, is_greedy);
  if (any_random && profile == Profile::kVllm) {
    q = in.FloatRows("q", rows, vocab);
  } else if (any_random) {
    seed = &in.Required("seed", DType::kI64, 1);
    positions = &in.Required("positions", DType::kI64, 1);
    in.ExpectDim("seed", *seed, 0, rows);
    in.ExpectDim("positions", *positions, 0, rows);
  }

  Tensor token(DType::kI64, {rows});
  for (std::int64_t b = 0; b < rows; ++b) {
    const std::string row = "row " + std::to_string(b);
    if (is_greedy[static_cast<std::size_t>(b)] != 0) {
      StoreToken(token, b, greedy.at("token").data<std::int64_t>()[b]);
      continue;
    }
    const auto at = static_cast<std::size_t>(b * vocab), n = static_cast<std::size_t>(vocab);
    std::int64_t drawn = -1;
    if (degenerate[static_cast<std::size_t>(b)] >= 0) {
      StoreToken(token, b, degenerate[static_cast<std::size_t>(b)]);
      continue;
    }
    if (profile == Profile::kVllm) {
      const auto qrow = q.data<float>().subspan(at, n);
      for (float v : qrow) {
        if (!std::isfinite(v) || !(v > 0.0f)) in.Fail(row + ": 'q' holds " + FormatFloat(v) + "; Exp(1) noise must be finite and > 0");
      }
      drawn = ExponentialRaceRow(probs.subspan(at, n), qrow, true);
    } else {
      const std::int64_t pos = positions->data<std::int64_t>()[b];
      if (pos < 0 || pos > 0xffffffffLL) in.Fail(row + ": positions = " + std::to_string(pos) + " must be in [0, 2^32)");
      const auto s = std::bit_cast<std::uint64_t>(seed->data<std::int64_t>()[b]);
      const auto p32 = static_cast<std::uint32_t>(pos);
      // SGLang's unfiltered path (sampling_from_probs_torch) keys the full softmax by token id,
      // as the canonical draw does; its sorted path keys by rank.
      if (sglang_unfiltered) {
        std::vector<float> full(n);  // no filter ran in SGLang: the full softmax
        SoftmaxRow(scaled_logits.subspan(at, n), full);
        drawn = SeededGumbelColumn(full, s, p32);
      } else {
        drawn = profile == Profile::kSglang ? SglangSeededDraw(scaled_logits.subspan(at, n), masked.subspan(at, n), s, p32)
                                            : SeededGumbelColumn(probs.subspan(at, n), s, p32);
      }
    }
    if (drawn < 0) in.Fail(row + " has no token of positive probability after the filters");
    StoreToken(token, b, drawn);
  }
  return Outputs("token", std::move(token));
}

void SglangResolveGreedyRows(const StageInputs& in, const Case& c, Profile profile, std::vector<std::uint8_t>& is_greedy,
                             const Tensor& scaled) {
  if (profile != Profile::kSglang) {
    if (c.params.contains("greedy_path")) in.Fail("parameter greedy_path is read by the sglang profile only");
    return;
  }
  std::string path = "auto";
  if (c.params.contains("greedy_path")) {
    if (!c.params["greedy_path"].is_string()) in.Fail("parameter greedy_path must be a string");
    path = c.params["greedy_path"].get<std::string>();
  }
  if (path != "auto" && path != "argmax" && path != "sorted") {
    in.Fail("parameter greedy_path = '" + path + "'; valid: auto, argmax, sorted");
  }
  // SGLang stores a row with temperature < 1e-6 as temperature 1, top_k 1
  // (sampling/sampling_params.py SamplingParams.__init__), and the batch is all-greedy iff
  // every request has top_k <= 1 (sampling_batch_info.py: is_all_greedy); sampcheck's top_k 0
  // is SGLang's -1 (TOP_K_ALL), so only top_k = 1 joins the greedy rows.
  const Tensor* k = in.Optional("top_k", DType::kI32, 1);
  const auto rows = static_cast<std::int64_t>(is_greedy.size());
  bool all_greedy = true;
  for (std::int64_t b = 0; b < rows; ++b) {
    const bool top_k_one = k != nullptr && b < k->dim(0) && k->data<std::int32_t>()[static_cast<std::size_t>(b)] == 1;
    all_greedy = all_greedy && (is_greedy[static_cast<std::size_t>(b)] != 0 || top_k_one);
  }
  if (path == "argmax" && !all_greedy) {
    in.Fail("parameter greedy_path = 'argmax' but a row is random with top_k != 1: SGLang takes the argmax only "
            "when every request of the batch is greedy or has top_k = 1");
  }
  if (path == "argmax" || (path == "auto" && all_greedy)) {
    // Sampler.forward, is_all_greedy: torch.argmax(logits) for every row, no temperature.
    std::fill(is_greedy.begin(), is_greedy.end(), std::uint8_t{1});
    return;
  }
  // A mixed batch: a greedy row is a top_k = 1 row at temperature 1 on the sorted path
  // (top_k_top_p_min_p_sampling_from_probs_torch): the first id of the descending sort of its
  // probabilities, which is its argmax when some logit is finite and none is +inf or NaN (equal
  // probabilities are ordered as the pipeline orders them: higher logit, then lower id).
  // Otherwise its probabilities are NaN everywhere and the sort puts id 0 first: the random
  // rows' degenerate token (PipelineDegenerateToken), so the row is drawn as one.
  const std::int64_t vocab = scaled.dim(1);
  const auto x = scaled.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    if (is_greedy[static_cast<std::size_t>(b)] == 0) continue;
    const auto row = x.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
    if (PipelineDegenerateToken(row, profile) >= 0) is_greedy[static_cast<std::size_t>(b)] = 0;
  }
}

std::int64_t PipelineDegenerateToken(std::span<const float> scaled_row, Profile profile) {
  std::int64_t first_nan = -1, first_inf = -1;
  bool finite = false;
  for (std::size_t i = 0; i < scaled_row.size(); ++i) {
    const float v = scaled_row[i];
    if (std::isnan(v) && first_nan < 0) first_nan = static_cast<std::int64_t>(i);
    if (v == std::numeric_limits<float>::infinity() && first_inf < 0) first_inf = static_cast<std::int64_t>(i);
    finite = finite || std::isfinite(v);
  }
  if (first_nan < 0 && first_inf < 0 && finite) return -1;  // the filters and the draw take it
  if (profile != Profile::kCanonical) return kNoDrawToken;  // vllm, sglang: a NaN softmax, index 0
  return first_nan >= 0 ? first_nan : first_inf >= 0 ? first_inf : kNoDrawToken;
}

Tensor PipelineFilterInput(const Tensor& scaled, Profile profile) {
  Tensor out = scaled;
  const std::int64_t rows = out.dim(0), vocab = out.dim(1);
  auto x = out.data<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto row = x.subspan(static_cast<std::size_t>(b * vocab), static_cast<std::size_t>(vocab));
    if (PipelineDegenerateToken(row, profile) >= 0) std::fill(row.begin(), row.end(), -std::numeric_limits<float>::infinity());
  }
  return out;
}

void CheckVllmTopKOne(const StageInputs& in, const Case& c, Profile profile) {
  if (!c.params.contains("top_k_one")) return;
  if (profile != Profile::kVllm) in.Fail("parameter top_k_one is read by the vllm profile only");
  if (!c.params["top_k_one"].is_string()) in.Fail("parameter top_k_one must be a string");
  const std::string rule = c.params["top_k_one"].get<std::string>();
  if (rule != "filter" && rule != "greedy") in.Fail("parameter top_k_one = '" + rule + "'; valid: filter, greedy");
}

bool SglangPipelineDrawsUnfiltered(const StageInputs& in, const Case& c, std::span<const std::uint8_t> is_greedy) {
  const bool any_random = std::any_of(is_greedy.begin(), is_greedy.end(), [](std::uint8_t g) { return g == 0; });
  // SGLang asserts `sampling_seed is None` when any request of the batch uses min-p
  // (top_k_top_p_min_p_sampling_from_probs_torch: "With sampling seed, multinomial_with_seed
  // will provide wrong results"); the flashinfer backend refuses every seeded filtered batch.
  if (any_random && c.inputs.count("min_p") != 0) {
    const Tensor m = UpcastToF32(c.inputs.at("min_p"), "min_p");
    for (float v : m.data<float>()) {
      if (v > 0.0f) {
        in.Fail("SGLang refuses min_p > 0 with a sampling seed (an assert in layers/sampler.py); the sglang "
                "pipeline has no token for a batch with random rows and min_p = " + FormatFloat(v));
      }
    }
  }
  return SglangUnfilteredPath(in, c, is_greedy, any_random);
}

Tensor PipelineLogitsBeforeTemperature(const Case& c, Profile profile) {
  StageInputs in(c, "pipeline");
  if (c.inputs.count("bias_rows") || c.inputs.count("bias_ids") || c.inputs.count("bias_values")) {
    in.Fail("sparse logit bias lists are not per row; give the pipeline a dense 'bias' [B, V]");
  }
  Steps steps(c, profile, in.Logits());
  ApplyLogitSteps(steps, profile);
  return steps.logits();
}

bool PipelineTopKOneIsGreedy(const Case& c, Profile profile, std::int64_t b) {
  if (profile != Profile::kVllm || VllmTopKOneRule(c) != "greedy") return false;
  auto it = c.inputs.find("top_k");
  if (it == c.inputs.end() || it->second.dtype() != DType::kI32 || it->second.rank() != 1 || b >= it->second.dim(0)) {
    return false;  // absent, or malformed (RunPipeline's filters report it)
  }
  return it->second.data<std::int32_t>()[static_cast<std::size_t>(b)] == 1;
}

bool PipelineDrawsUnfiltered(const Case& c, Profile profile) {
  if (profile != Profile::kSglang) return false;
  StageInputs in(c, "pipeline");
  Steps steps(c, profile, PipelineLogitsBeforeTemperature(c, profile));
  if (!steps.Has("temperature")) in.Fail("missing input tensor 'temperature' (f32 [B])");
  const TensorMap scaled = steps.Run("temperature", RunTemperature, {"temperature"});
  const auto is_greedy = scaled.at("is_greedy").data<std::uint8_t>();
  const bool any_random = std::any_of(is_greedy.begin(), is_greedy.end(), [](std::uint8_t g) { return g == 0; });
  return SglangUnfilteredPath(in, c, is_greedy, any_random);
}

std::string VllmTopKOneRule(const Case& c) {
  if (!c.params.contains("top_k_one") || !c.params["top_k_one"].is_string()) return "filter";
  return c.params["top_k_one"].get<std::string>();
}

SAMPCHECK_REFERENCE_STAGE(pipeline, RunPipeline);

}  // namespace sampcheck::reference
