// SPDX-License-Identifier: Apache-2.0
// pipeline (reference/pipeline.h, docs/spec/pipeline.md). ComposePipeline runs each step as the
// single stage on a sub-case, so the pipeline is by construction the composition the spec
// states; RunPipeline draws from it.
#include "reference/pipeline.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "reference/exponential_race.h"
#include "reference/profile_rules.h"
#include "reference/rng/vllm_generator.h"
#include "reference/seeded_gumbel.h"
#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {

// The logits flowing through the steps, and the sub-cases that advance them; each step is the
// single stage of that name, run by the caller's runner (the reference's or a gpu backend's).
class Steps {
 public:
  Steps(const Case& c, Profile profile, const PipelineStageRunner& run, Tensor logits)
      : case_(c), profile_(profile), run_(run), logits_(std::move(logits)) {}

  bool Has(const std::string& name) const { return case_.inputs.count(name) != 0; }

  // Runs `stage` when its trigger input is present, on the current logits plus `names`
  // (those present), and keeps its output logits. Returns the stage's outputs.
  TensorMap Apply(const std::string& stage, const std::vector<std::string>& names,
                  nlohmann::json params = nlohmann::json::object()) {
    if (!Has(names.front())) return {};
    TensorMap out = Run(stage, names, std::move(params));
    logits_ = out.at("logits");
    return out;
  }

  // Runs `stage` on the current logits without replacing them.
  TensorMap Run(const std::string& stage, const std::vector<std::string>& names,
                nlohmann::json params = nlohmann::json::object()) const {
    return RunOn(stage, logits_, names, std::move(params));
  }

  // Runs `stage` on `logits` plus `names`.
  TensorMap RunOn(const std::string& stage, const Tensor& logits, const std::vector<std::string>& names,
                  nlohmann::json params = nlohmann::json::object()) const {
    Case sub;
    sub.id = case_.id + " > " + stage;
    sub.stage = stage;
    sub.profile = profile_;
    sub.params = std::move(params);
    sub.inputs.emplace("logits", logits);
    for (const auto& name : names) {
      if (auto it = case_.inputs.find(name); it != case_.inputs.end()) sub.inputs.emplace(name, it->second);
    }
    return run_(stage, sub);
  }

  const Tensor& logits() const { return logits_; }

 private:
  const Case& case_;
  Profile profile_;
  const PipelineStageRunner& run_;
  Tensor logits_;
};

const std::vector<std::string> kPenalties = {"output_ids", "prompt_ids", "repetition_penalty", "frequency_penalty", "presence_penalty"};
const std::vector<std::string> kMinNewTokens = {"stop_ids", "output_len", "min_tokens"};
const std::vector<std::string> kBitmask = {"bitmask"};
const std::vector<std::string> kBias = {"bias"};
const std::vector<std::string> kFilters = {"top_k", "top_p", "min_p"};

// The steps before temperature, in the profile's order (contract block).
void ApplyLogitSteps(Steps& steps, Profile profile) {
  if (profile == Profile::kVllm) {
    steps.Apply("token_bitmask", kBitmask);
    steps.Apply("min_new_tokens", kMinNewTokens);
    steps.Apply("logit_bias", kBias);
    steps.Apply("penalties", kPenalties);
  } else {
    steps.Apply("penalties", kPenalties);
    steps.Apply("min_new_tokens", kMinNewTokens);
    steps.Apply("token_bitmask", kBitmask);
    steps.Apply("logit_bias", kBias);
  }
}

void CheckNoSparseBias(const StageInputs& in, const Case& c) {
  if (c.inputs.count("bias_rows") || c.inputs.count("bias_ids") || c.inputs.count("bias_values")) {
    in.Fail("sparse logit bias lists are not per row; give the pipeline a dense 'bias' [B, V]");
  }
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

// Returns true when the greedy rows are SGLang's top_k = 1 rows of its sorted path (the mixed
// path), false on its all-greedy argmax path and under every other profile.
bool SglangResolveGreedyRows(const StageInputs& in, const Case& c, Profile profile, std::vector<std::uint8_t>& is_greedy) {
  if (profile != Profile::kSglang) {
    if (c.params.contains("greedy_path")) in.Fail("parameter greedy_path is read by the sglang profile only");
    return false;
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
  // A stated sampling_path ("sorted" or "unfiltered") is the server batch's seeded draw, so
  // that batch holds a random request and is not all-greedy: its greedy rows are on the mixed
  // path whatever the case's own rows are. Without this a greedy row's token would change
  // with the rows it is batched with (alone: the argmax path) although the case states its
  // server batch, which batch invariance flags on a degenerate greedy row (argmax path: its
  // first NaN; sorted path: 0).
  const bool stated_batch = c.params.contains("sampling_path") && c.params["sampling_path"].is_string() &&
                            c.params["sampling_path"].get<std::string>() != "auto";
  if (path == "argmax" && stated_batch) {
    in.Fail("parameter greedy_path = 'argmax' with sampling_path = '" + c.params["sampling_path"].get<std::string>() +
            "': a batch that takes a seeded draw holds a random request, so SGLang does not take the argmax path");
  }
  if (path == "auto" && stated_batch) path = "sorted";
  if (path == "argmax" || (path == "auto" && all_greedy)) {
    // Sampler.forward, is_all_greedy: torch.argmax(logits) for every row, no temperature.
    std::fill(is_greedy.begin(), is_greedy.end(), std::uint8_t{1});
    return false;
  }
  // A mixed batch: a greedy row is a top_k = 1 row at temperature 1 on the sorted path
  // (top_k_top_p_min_p_sampling_from_probs_torch): the first id of the descending sort of its
  // probabilities, which is its argmax when some logit is finite and none is +inf or NaN (equal
  // probabilities are ordered as the pipeline orders them: higher logit, then lower id).
  // Otherwise its probabilities are NaN everywhere and its token is the random rows'
  // degenerate token (ComposePipeline). The row stays greedy for the batch's path choice: its
  // values never change which path its neighbours are drawn on.
  return true;
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

std::string VllmTopKOneRule(const Case& c) {
  if (!c.params.contains("top_k_one") || !c.params["top_k_one"].is_string()) return "filter";
  return c.params["top_k_one"].get<std::string>();
}

// True when row b of a vllm pipeline case takes the greedy token although its temperature is
// random: param top_k_one = "greedy" and top_k[b] == 1 (contract block).
bool PipelineTopKOneIsGreedy(const Case& c, Profile profile, std::int64_t b) {
  if (profile != Profile::kVllm || VllmTopKOneRule(c) != "greedy") return false;
  auto it = c.inputs.find("top_k");
  if (it == c.inputs.end() || it->second.dtype() != DType::kI32 || it->second.rank() != 1 || b >= it->second.dim(0)) {
    return false;  // absent, or malformed (the filters report it)
  }
  return it->second.data<std::int32_t>()[static_cast<std::size_t>(b)] == 1;
}

}  // namespace

PipelineStageRunner ReferencePipelineStages() {
  return [](const std::string& stage, const Case& sub) { return ReferenceStages().at(stage)(sub, sub.profile); };
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
  // canonical: the draws' order (reference/draw_rows.h): the first NaN, else the first +inf.
  return first_nan >= 0 ? first_nan : first_inf >= 0 ? first_inf : kNoDrawToken;
}

PipelineDistribution ComposePipeline(const Case& c, Profile profile, const PipelineStageRunner& run) {
  StageInputs in(c, "pipeline");
  if (profile != Profile::kCanonical && profile != Profile::kVllm && profile != Profile::kSglang) {
    in.Fail("profile " + std::string(ProfileName(profile)) + " has no pipeline (canonical, vllm, sglang)");
  }
  for (const auto& [name, t] : c.inputs) {
    if (t.rank() == 0) in.Fail("input '" + name + "' is a scalar; every pipeline input is per row [B, ...]");
  }
  CheckNoSparseBias(in, c);
  PipelineDistribution d;
  Steps steps(c, profile, run, in.Logits());
  ApplyLogitSteps(steps, profile);
  d.processed = steps.logits();
  d.greedy = steps.Run("greedy", {}).at("token");
  if (!steps.Has("temperature")) in.Fail("missing input tensor 'temperature' (f32 [B])");
  const TensorMap scaled = steps.Apply("temperature", {"temperature"});
  d.scaled = scaled.at("logits");
  const std::int64_t rows = d.rows();
  // Greedy by temperature, or (vllm) by top_k = 1, or (sglang) by its greedy path.
  const auto flags = scaled.at("is_greedy").data<std::uint8_t>();
  d.is_greedy.assign(flags.begin(), flags.end());
  for (std::int64_t b = 0; b < rows; ++b) {
    if (PipelineTopKOneIsGreedy(c, profile, b)) d.is_greedy[static_cast<std::size_t>(b)] = 1;
  }
  const bool sorted_greedy = SglangResolveGreedyRows(in, c, profile, d.is_greedy);

  // Degenerate rows (contract block) take their token here and enter the filters as rows of
  // -inf, which every filter returns unchanged: the filters' input checks and the other rows
  // never see their NaN or +inf. A greedy row keeps its greedy token (the argmax of its
  // logits, greedy.h), except as a top_k = 1 row of SGLang's sorted path, where it is drawn.
  Tensor filter_input = d.scaled;
  const auto x = filter_input.data<float>();
  const auto greedy_token = d.greedy.data<std::int64_t>();
  d.pinned.assign(static_cast<std::size_t>(rows), -1);
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto row = x.subspan(static_cast<std::size_t>(b * d.vocab()), static_cast<std::size_t>(d.vocab()));
    const std::int64_t degenerate = PipelineDegenerateToken(row, profile);
    if (degenerate >= 0) std::fill(row.begin(), row.end(), -std::numeric_limits<float>::infinity());
    const bool greedy = d.is_greedy[static_cast<std::size_t>(b)] != 0;
    d.pinned[static_cast<std::size_t>(b)] =
        greedy && !(sorted_greedy && degenerate >= 0) ? greedy_token[static_cast<std::size_t>(b)] : degenerate;
  }

  nlohmann::json filter_params = nlohmann::json::object();
  if (c.params.contains("order")) filter_params["order"] = c.params["order"];
  const bool any_filter = steps.Has("top_k") || steps.Has("top_p") || steps.Has("min_p");
  TensorMap filtered =
      steps.RunOn("sampling_filters", filter_input, any_filter ? kFilters : std::vector<std::string>{"top_k"}, filter_params);
  d.masked = std::move(filtered.at("logits"));
  d.probs = std::move(filtered.at("probs"));

  d.any_random = std::any_of(d.is_greedy.begin(), d.is_greedy.end(), [](std::uint8_t g) { return g == 0; });
  if (profile != Profile::kSglang && c.params.contains("sampling_path")) {
    in.Fail("parameter sampling_path is read by the sglang profile only");
  }
  CheckVllmTopKOne(in, c, profile);
  // The tensor-parallel rank the call runs on (docs/spec/tp_consensus.md "Per-rank draws"):
  // checked, read by no rule, since every rank must draw the same token.
  if (c.params.contains("tp_rank") &&
      (!c.params["tp_rank"].is_number_integer() || c.params["tp_rank"].get<std::int64_t>() < 0)) {
    in.Fail("parameter tp_rank = " + c.params["tp_rank"].dump() + " must be an integer >= 0");
  }
  d.sglang_unfiltered = profile == Profile::kSglang && SglangPipelineDrawsUnfiltered(in, c, d.is_greedy);
  if (profile == Profile::kSglang && d.any_random) {
    // Both SGLang paths draw from the full softmax of the scaled logits; on the unfiltered path
    // no filter ran.
    d.full = steps.RunOn("softmax", d.scaled, {}).at("probs");
    if (d.sglang_unfiltered) d.probs = d.full;
  }
  return d;
}

std::vector<std::int32_t> SglangSortedOrder(std::span<const float> full, std::span<const float> scaled,
                                            std::span<const float> masked) {
  // SGLang samples the rank r of the descending-sorted probabilities; the sorted row holds the
  // surviving probabilities of the full softmax (not renormalised). torch.sort is not stable:
  // ties in probability are ordered here by the higher logit, then the lower id (spec).
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
  return kept;
}

std::int64_t SglangSortedDraw(std::span<const float> full, std::span<const float> scaled,
                              std::span<const float> masked, std::uint64_t seed, std::uint32_t position) {
  const std::vector<std::int32_t> kept = SglangSortedOrder(full, scaled, masked);
  std::vector<float> sorted(kept.size());
  for (std::size_t r = 0; r < kept.size(); ++r) sorted[r] = full[static_cast<std::size_t>(kept[r])];
  const std::int64_t rank = SeededGumbelColumn(sorted, seed, position);
  return rank < 0 ? -1 : kept[static_cast<std::size_t>(rank)];
}

PipelineNoise ParsePipelineNoise(const StageInputs& in, const PipelineDistribution& d, Profile profile) {
  PipelineNoise noise;
  if (d.any_random && profile == Profile::kVllm) {
    noise.q = in.FloatRows("q", d.rows(), d.vocab());
    // vLLM's per-request generators (contract block "Noise"): a seeded random row's q is its
    // generator's, whatever the given q holds (random_sample overwrites the global fill).
    if (const Tensor* seeded = in.Optional("seeded")) {
      in.ExpectDim("seeded", *seeded, 0, d.rows());
      noise.seed = &in.Required("seed");
      noise.positions = &in.Required("positions");
      in.ExpectDim("seed", *noise.seed, 0, d.rows());
      in.ExpectDim("positions", *noise.positions, 0, d.rows());
      auto q = noise.q.data<float>();
      for (std::int64_t b = 0; b < d.rows(); ++b) {
        const auto i = static_cast<std::size_t>(b);
        if (seeded->data<std::uint8_t>()[i] == 0 || d.Pinned(b) >= 0) continue;
        const std::int64_t step = noise.positions->data<std::int64_t>()[i];
        if (step < 0 || step > 0xffffffffLL) {
          in.Fail("row " + std::to_string(b) + ": positions = " + std::to_string(step) +
                  " (the steps its generator drew before) must be in [0, 2^32)");
        }
        const auto s = std::bit_cast<std::uint64_t>(noise.seed->data<std::int64_t>()[i]);
        for (std::int64_t t = 0; t < d.vocab(); ++t) {
          q[i * static_cast<std::size_t>(d.vocab()) + static_cast<std::size_t>(t)] =
              rng::VllmGeneratorExponentialF32(s, static_cast<std::uint32_t>(step), static_cast<std::uint32_t>(t));
        }
      }
    }
  } else if (d.any_random) {
    noise.seed = &in.Required("seed");
    noise.positions = &in.Required("positions");
    in.ExpectDim("seed", *noise.seed, 0, d.rows());
    in.ExpectDim("positions", *noise.positions, 0, d.rows());
  }
  return noise;
}

void PipelineNoise::CheckRow(const StageInputs& in, std::int64_t b) const {
  const std::string row = "row " + std::to_string(b);
  if (q.numel() > 0) {
    const auto vocab = static_cast<std::size_t>(q.dim(1));
    for (float v : q.data<float>().subspan(static_cast<std::size_t>(b) * vocab, vocab)) {
      if (!std::isfinite(v) || !(v > 0.0f)) in.Fail(row + ": 'q' holds " + FormatFloat(v) + "; Exp(1) noise must be finite and > 0");
    }
  } else if (positions != nullptr) {
    const std::int64_t pos = positions->data<std::int64_t>()[static_cast<std::size_t>(b)];
    if (pos < 0 || pos > 0xffffffffLL) in.Fail(row + ": positions = " + std::to_string(pos) + " must be in [0, 2^32)");
  }
}

void FailNoToken(const StageInputs& in, std::int64_t b) {
  in.Fail("row " + std::to_string(b) + " has no token of positive probability after the filters");
}

TensorMap RunPipeline(const Case& c, Profile profile) {
  const PipelineDistribution d = ComposePipeline(c, profile, ReferencePipelineStages());
  StageInputs in(c, "pipeline");
  const std::int64_t rows = d.rows(), vocab = d.vocab();
  const PipelineNoise noise = ParsePipelineNoise(in, d, profile);
  const auto probs = d.probs.data<float>();

  Tensor token(DType::kI64, {rows});
  for (std::int64_t b = 0; b < rows; ++b) {
    if (const std::int64_t pinned = d.Pinned(b); pinned >= 0) {
      StoreToken(token, b, pinned);
      continue;
    }
    noise.CheckRow(in, b);
    const auto at = static_cast<std::size_t>(b * vocab), n = static_cast<std::size_t>(vocab);
    std::int64_t drawn = -1;
    if (profile == Profile::kVllm) {
      drawn = ExponentialRaceRow(probs.subspan(at, n), noise.q.data<float>().subspan(at, n), true);
    } else {
      const auto s = std::bit_cast<std::uint64_t>(noise.seed->data<std::int64_t>()[b]);
      const auto p32 = static_cast<std::uint32_t>(noise.positions->data<std::int64_t>()[b]);
      // SGLang's unfiltered path (sampling_from_probs_torch) keys the full softmax by token id,
      // as the canonical draw does; its sorted path keys by rank.
      if (profile == Profile::kSglang && !d.sglang_unfiltered) {
        drawn = SglangSortedDraw(d.full.data<float>().subspan(at, n), d.scaled.data<float>().subspan(at, n),
                                 d.masked.data<float>().subspan(at, n), s, p32);
      } else {
        drawn = SeededGumbelColumn(probs.subspan(at, n), s, p32);
      }
    }
    if (drawn < 0) FailNoToken(in, b);
    StoreToken(token, b, drawn);
  }
  return Outputs("token", std::move(token));
}

Tensor PipelineLogitsBeforeTemperature(const Case& c, Profile profile) {
  StageInputs in(c, "pipeline");
  CheckNoSparseBias(in, c);
  const PipelineStageRunner run = ReferencePipelineStages();
  Steps steps(c, profile, run, in.Logits());
  ApplyLogitSteps(steps, profile);
  return steps.logits();
}

SAMPCHECK_REFERENCE_STAGE(pipeline, RunPipeline);

}  // namespace sampcheck::reference
