// SPDX-License-Identifier: Apache-2.0
// The stage catalogue (core/stage_catalogue.h). Each entry mirrors the contract block of its
// reference header and the spec file it names; keep the three in step.
#include "core/stage_catalogue.h"

#include <stdexcept>

#include "core/error.h"

namespace sampcheck {

std::string_view TierName(Tier t) {
  switch (t) {
    case Tier::kExact: return "exact";
    case Tier::kCanonical: return "canonical";
  }
  return "?";
}

std::string_view RoleName(Role r) {
  switch (r) {
    case Role::kParameter: return "parameter";
    case Role::kLogits: return "logits";
    case Role::kProbs: return "probs";
    case Role::kScores: return "scores";
    case Role::kNoise: return "noise";
    case Role::kSeed: return "seed";
    case Role::kPosition: return "position";
    case Role::kDrafts: return "drafts";
    case Role::kToken: return "token";
  }
  return "?";
}

std::string_view ExactTargetKindName(ExactTargetKind k) {
  switch (k) {
    case ExactTargetKind::kNone: return "none";
    case ExactTargetKind::kNormalisedProbs: return "normalised_probs";
    case ExactTargetKind::kSoftmaxScores: return "softmax_scores";
    case ExactTargetKind::kPipeline: return "pipeline";
    case ExactTargetKind::kSpecFirstToken: return "spec_first_token";
    case ExactTargetKind::kAscendSurvivors: return "ascend_survivors";
    case ExactTargetKind::kFlashinferSurvivors: return "flashinfer_survivors";
  }
  return "?";
}

HarnessNoise DrawInfo::NoiseFor(Profile p) const {
  for (const auto& [profile, noise_law] : noise_by_profile) {
    if (profile == p) return noise_law;
  }
  return noise;
}

bool StageInfo::HasProfile(Profile p) const {
  for (Profile q : profiles) {
    if (q == p) return true;
  }
  return false;
}

const TensorSpec* StageInfo::InputWithRole(Role r) const {
  for (const auto& t : inputs) {
    if (t.role == r) return &t;
  }
  return nullptr;
}

const TensorSpec* StageInfo::OutputWithRole(Role r) const {
  for (const auto& t : outputs) {
    if (t.role == r) return &t;
  }
  return nullptr;
}

const TensorSpec* StageInfo::DistributionInput() const {
  for (Role r : {Role::kProbs, Role::kScores, Role::kLogits}) {
    if (const TensorSpec* t = InputWithRole(r)) return t;
  }
  return nullptr;
}

namespace {

constexpr char kLogitTypes[] = "f32|f16|bf16";
using P = Profile;

TensorSpec Logits() { return {"logits", kLogitTypes, "[B, V]", false, "logits; f16/bf16 are upcast to f32 first", Role::kLogits}; }
TensorSpec LogitsOut() { return {"logits", "f32", "[B, V]", false, "logits after the stage"}; }

TensorSpec TokenOut() { return {"token", "i64", "[B]", false, "drawn token id", Role::kToken}; }

// BuildCatalogue in groups, each appending its stages in catalogue order (the order of
// `sampcheck stages`, of golden generation and of reports).
// Logit processors: bias, penalties, min-new-tokens, masks, NaN handling, temperature.
void AddLogitProcessorStages(std::vector<StageInfo>& c) {
  c.push_back({"logit_bias",
               "add a per-token bias, dense [B, V] and/or sparse (row, token, value) lists",
               {Logits(),
                {"bias", "f32", "[B, V]", true, "dense bias, added to every entry"},
                {"bias_rows", "i32", "[N]", true, "sparse: row of each entry"},
                {"bias_ids", "i32", "[N]", true, "sparse: token id of each entry, in [0, V)"},
                {"bias_values", "f32", "[N]", true, "sparse: bias of each entry"}},
               {LogitsOut()},
               {},
               Tier::kExact, "exact", {P::kCanonical, P::kVllm, P::kSglang},
               "docs/spec/logit_bias.md"});
  c.push_back({"penalties",
               "repetition (prompt and output), frequency and presence (output) penalties",
               {Logits(),
                {"prompt_ids", "i32", "[B, Lp]", true, "prompt token ids, -1 padded"},
                {"output_ids", "i32", "[B, Lo]", true, "output token ids, -1 padded"},
                {"repetition_penalty", "f32", "[B]", true, "> 0; 1 disables"},
                {"frequency_penalty", "f32", "[B]", true, "0 disables"},
                {"presence_penalty", "f32", "[B]", true, "0 disables"}},
               {LogitsOut()},
               {{"penalizers", "string", "auto", "sglang only: auto | required | not_required (SGLang adds its penalty tensor only when the batch needs one)"}},
               Tier::kExact, "exact", {P::kCanonical, P::kVllm, P::kSglang},
               "docs/spec/penalties.md"});
  c.push_back({"min_new_tokens",
               "stop tokens get -inf while the output is shorter than the minimum",
               {Logits(),
                {"output_len", "i32", "[B]", false, "tokens generated so far"},
                {"min_tokens", "i32", "[B]", false, "minimum output length"},
                {"stop_ids", "i32", "[B, S]", false, "stop token ids (eos included), -1 padded"}},
               {LogitsOut()},
               {{"penalizers", "string", "auto", "sglang only: auto | required | not_required (SGLang adds its penalty tensor only when the batch needs one)"}},
               Tier::kExact, "exact", {P::kCanonical, P::kVllm, P::kSglang},
               "docs/spec/penalties.md#min_new_tokens"});
  c.push_back({"token_bitmask",
               "xgrammar apply_token_bitmask_inplace: bit 0 -> -inf",
               {Logits(),
                {"bitmask", "i32", "[Bm, W]", false, "bit t%32 of word t/32, LSB first; 1 = allowed"},
                {"indices", "i32", "[N]", true, "rows to mask (same row of logits and bitmask)"}},
               {LogitsOut()},
               {{"vocab_size", "int", "min(V, 32 W)", "columns [0, vocab_size) are masked"}},
               Tier::kExact, "exact", {P::kCanonical},
               "docs/spec/masks.md#token_bitmask"});
  // The grammar side of the bitmask: filling it, testing an id, the stop-token rule.
  c.push_back({"token_bitmask_fill",
               "fill a batch bitmask from allowed-id lists (xgrammar's layout, tail bits 1) in vLLM's row order",
               {{"allowed_ids", "i32", "[G, A]", false, "allowed ids of each compacted grammar row, -1 padded"},
                {"spec_tokens", "i32", "[R]", false, "speculative tokens scheduled per request, batch order"},
                {"structured", "i32", "[S]", false, "batch index of each structured request, compacted order"},
                {"buffer", "i32", "[L, words]", true, "the reused buffer's previous contents (never shows through)"}},
               {{"bitmask", "i32", "[L, words]", false, "filled rows; unguided rows and bits >= vocab_size all 1"},
                {"indices", "i32", "[G]", false, "logits row of each compacted row (vLLM's out_indices)"}},
               {{"vocab_size", "int", "(required)", "tokens of the grammar's vocabulary, in [1, 2^31 - 1]"},
                {"words", "int", "ceil(vocab_size / 32)", "row stride of the buffer in i32 words"}},
               Tier::kExact, "exact", {P::kCanonical},
               "docs/spec/token_bitmask_fill.md"});
  c.push_back({"token_bitmask_allowed",
               "is each int64 token id allowed by its bitmask row (out of range: no)",
               {{"bitmask", "i32", "[B, W]", false, "bit t%32 of word t/32, LSB first; 1 = allowed"},
                {"token_ids", "i64", "[B, N]", false, "ids to test, any int64 value"}},
               {{"allowed", "bool", "[B, N]", false, "0 <= id < vocab_size and its bit is 1"}},
               {{"vocab_size", "int", "32 W", "ids at or above it are not allowed"}},
               Tier::kExact, "exact", {P::kCanonical},
               "docs/spec/token_bitmask_allowed.md"});
  c.push_back({"token_bitmask_stop_tokens",
               "stop-token bits set where the grammar can end, cleared where it cannot",
               {{"bitmask", "i32", "[B, W]", false, "the filled bitmask, stop bits as the buffer left them"},
                {"stop_ids", "i32", "[B, S]", false, "stop token ids, -1 padded"},
                {"can_end", "bool", "[B]", false, "the row's grammar can terminate here"}},
               {{"bitmask", "i32", "[B, W]", false, "stop bits = can_end, other bits unchanged"}},
               {},
               Tier::kExact, "exact", {P::kCanonical},
               "docs/spec/token_bitmask_stop_tokens.md"});
  c.push_back({"allowed_token_ids",
               "every token not in the row's allowed list gets -inf",
               {Logits(),
                {"allowed_ids", "i32", "[B, A]", false, "allowed ids, -1 padded; all -1 = unrestricted"}},
               {LogitsOut()},
               {},
               Tier::kExact, "exact", {P::kCanonical, P::kVllm},
               "docs/spec/masks.md#allowed_token_ids"});
  c.push_back({"bad_words",
               "ban the last token of a bad word whose prefix ends the output",
               {Logits(),
                {"output_ids", "i32", "[B, Lo]", false, "output token ids, -1 padded at the end"},
                {"bad_words", "i32", "[B, Nw, Lw]", false, "words of token ids, -1 padded at the end"}},
               {LogitsOut()},
               {},
               Tier::kExact, "exact", {P::kCanonical, P::kVllm},
               "docs/spec/masks.md#bad_words"});
  c.push_back({"nan_handling",
               "what a profile does with NaN logits before sampling",
               {Logits()},
               {LogitsOut()},
               {{"nan_mode", "string", "keep", "sglang only: keep | sanitize (SGLANG_SANITIZE_NAN_LOGITS) | detect_1e5 (older --enable-nan-detection)"}},
               Tier::kExact, "exact", {P::kCanonical, P::kVllm, P::kSglang},
               "docs/spec/nan_handling.md"});
  c.push_back({"temperature",
               "divide by the temperature; rows below the profile's epsilon are greedy",
               {Logits(), {"temperature", "f32", "[B]", false, ">= 0, finite"}},
               {LogitsOut(), {"is_greedy", "bool", "[B]", false, "row is a greedy row"}},
               {},
               Tier::kExact, "exact", {P::kCanonical, P::kVllm, P::kSglang},
               "docs/spec/temperature.md"});
}

// Greedy, softmax / log-softmax, the filters and Ascend's fused filter-and-sample op.
void AddDistributionAndFilterStages(std::vector<StageInfo>& c) {
  c.push_back({"greedy",
               "argmax per row: first NaN, else the lowest index among equal maxima",
               {Logits()},
               {{"token", "i64", "[B]", false, "chosen token id", Role::kToken}},
               {},
               Tier::kExact, "exact", {P::kCanonical},
               "docs/spec/greedy.md"});
  c.push_back({"softmax",
               "probabilities: max-subtracted owned exp over the canonical sum",
               {Logits(), {"temperature", "f32", "[B]", true, "finite, > 0; logits are divided by it first"}},
               {{"probs", "f32", "[B, V]", false, "softmax of each row"}},
               {},
               Tier::kCanonical, "exact", {P::kCanonical},
               "docs/spec/softmax.md"});
  c.push_back({"log_softmax",
               "log-probabilities: (x - max) - log(canonical sum of exp)",
               {Logits(), {"temperature", "f32", "[B]", true, "finite, > 0; logits are divided by it first"}},
               {{"logprobs", "f32", "[B, V]", false, "log_softmax of each row"}},
               {},
               Tier::kCanonical, "exact", {P::kCanonical},
               "docs/spec/softmax.md"});
  const std::vector<Profile> all_profiles = {P::kCanonical, P::kVllm, P::kSglang, P::kFlashinfer, P::kAscendV2};
  const TensorSpec filter_logits = {"logits", kLogitTypes, "[B, V]", false, "finite or -inf logits (no NaN, no +inf)", Role::kLogits};
  c.push_back({"top_k",
               "keep the k largest logits (exactly k, or with ties at the k-th value, per profile)",
               {filter_logits, {"top_k", "i32", "[B]", false, "k; disabled per profile (k <= 0, k >= V, ...)"}},
               {LogitsOut()},
               {{"ks_max", "int", "1024", "ascend_v2: k above min(V, ks_max rounded up to 8, 1024) keeps all"}},
               Tier::kExact, "exact", all_profiles,
               "docs/spec/filters.md#top_k"});
  c.push_back({"top_p",
               "keep the most probable tokens until their mass reaches p (boundary rule per profile)",
               {filter_logits, {"top_p", "f32", "[B]", false, "p; >= 1 disabled, <= 0 keeps the top token"}},
               {LogitsOut()},
               {},
               Tier::kCanonical, "exact", all_profiles,
               "docs/spec/filters.md#top_p"});
  c.push_back({"min_p",
               "keep tokens with prob >= min_p * max prob",
               {filter_logits, {"min_p", "f32", "[B]", false, "min_p; <= 0 disabled"}},
               {LogitsOut()},
               {},
               Tier::kCanonical, "exact", all_profiles,
               "docs/spec/filters.md#min_p"});
  c.push_back({"sampling_filters",
               "top-k, top-p and min-p in the profile's order; masked logits and renormalised probs",
               {filter_logits,
                {"top_k", "i32", "[B]", true, "absent: disabled"},
                {"top_p", "f32", "[B]", true, "absent: 1 (disabled)"},
                {"min_p", "f32", "[B]", true, "absent: 0 (disabled)"}},
               {LogitsOut(), {"probs", "f32", "[B, V]", false, "softmax of the masked logits"}},
               {{"order", "string", "per profile", "top_k_first | min_p_first | joint (flashinfer: top_k_first or joint)"},
                {"ks_max", "int", "1024", "ascend_v2 top-k limit"}},
               Tier::kCanonical, "exact", all_profiles,
               "docs/spec/filters.md#sampling_filters"});
  c.push_back({"ascend_top_k_top_p_sample_v2",
               "CANN TopKTopPSampleV2: top-k -> top-p -> min-p on the top-k softmax, then argmax or QSample",
               {{"logits", kLogitTypes, "[B, V]", false,
                 "logits (finite or -inf, a finite one per row), or probabilities (finite, >= 0) if !input_is_logits", Role::kLogits},
                {"top_k", "i32", "[B]", false, "k; active iff 1 <= k <= min(V, ks_max rounded up to 8, 1024)"},
                {"top_p", kLogitTypes, "[B]", false, "same dtype as logits; <= 0 keeps the max, >= 1 skips"},
                {"min_p", kLogitTypes, "[B]", true, "same dtype as logits; absent or <= 0 skips, >= 1 keeps the max"},
                {"q", "f32", "[B, V]", true, "QSample divisor, indexed by position in the survivor list", Role::kNoise}},
               {{"logits_select_idx", "i64", "[B]", false, "sampled vocab id (absent when is_need_sample_result)", Role::kToken},
                {"logits_top_kp_select", "f32", "[B, V]", false, "only if is_need_logits: input at survivors, defLogit elsewhere"},
                {"logits_sort_masked", "f32", "[B, V]", false, "only if is_need_sample_result: survivor probs in list order, then 0"},
                {"logits_idx", "i64", "[B, V]", false, "only if is_need_sample_result: survivor vocab ids in list order, then -1"}},
               {{"eps", "float", "1e-8", "QSample: probs / (|q| + eps), eps rounded to f32"},
                {"is_need_logits", "bool", "false", "output logits_top_kp_select"},
                {"top_k_guess", "int", "32", "kernel top-p fast-path size; any int32; never changes results"},
                {"ks_max", "int", "1024", "[1, 1024]; rounded up to a multiple of 8, capped at 1024"},
                {"input_is_logits", "bool", "true", "false: rows are probabilities (no softmax, defLogit 0)"},
                {"is_need_sample_result", "bool", "false", "output logits_sort_masked and logits_idx instead of logits_select_idx (q must be absent)"}},
               Tier::kCanonical, "exact", {P::kAscendV2},
               "docs/spec/ascend_top_k_top_p_sample_v2.md",
               {ExactTargetKind::kAscendSurvivors, HarnessNoise::kExponential}});
}

// Draws given their noise, seeded draws, and the whole pipeline.
void AddDrawStages(std::vector<StageInfo>& c) {
  const TensorSpec token_out = TokenOut();
  c.push_back({"gumbel_max",
               "argmax(score + gumbel) over finite scores, the noise given",
               {{"logprobs", kLogitTypes, "[B, V]", false, "scores (log-probabilities or logits); -inf never drawn", Role::kScores},
                {"gumbel", "f32", "[B, V]", false, "Gumbel noise, finite", Role::kNoise}},
               {token_out}, {},
               Tier::kExact, "exact", {P::kCanonical, P::kSglang},
               "docs/spec/draws.md#gumbel_max",
               {ExactTargetKind::kSoftmaxScores, HarnessNoise::kGumbel, {}, true}});
  c.push_back({"exponential_race",
               "argmax(probs / q), the Exp(1) noise q given",
               {{"probs", kLogitTypes, "[B, V]", false, "probabilities, finite >= 0", Role::kProbs},
                {"q", "f32", "[B, V]", false, "Exp(1) noise, finite > 0", Role::kNoise}},
               {token_out}, {},
               Tier::kExact, "exact", {P::kCanonical, P::kVllm},
               "docs/spec/draws.md#exponential_race",
               {ExactTargetKind::kNormalisedProbs, HarnessNoise::kExponential, {}, true}});
  c.push_back({"inverse_cdf",
               "first token whose running probability sum exceeds u times the total",
               {{"probs", kLogitTypes, "[B, V]", false, "probabilities, finite >= 0, need not sum to 1", Role::kProbs},
                {"u", "f32", "[B]", false, "uniform in [0, 1)", Role::kNoise}},
               {token_out}, {},
               Tier::kCanonical, "exact", {P::kCanonical},
               "docs/spec/draws.md#inverse_cdf",
               {ExactTargetKind::kNormalisedProbs, HarnessNoise::kUniform, {}, true}});
  c.push_back({"qsample",
               "Ascend QSample: argmax(probs / (|q| + eps)), the noise q given",
               {{"probs", kLogitTypes, "[B, V]", false, "probabilities in the op's list order, finite >= 0", Role::kProbs},
                {"q", "f32", "[B, V]", false, "noise indexed by list position, finite (|q| is used)", Role::kNoise}},
               {token_out}, {{"eps", "float", "1e-8", "added to |q|; rounded to f32, finite >= 0"}},
               Tier::kExact, "exact", {P::kAscendV2},
               "docs/spec/draws.md#qsample",
               {ExactTargetKind::kNormalisedProbs, HarnessNoise::kExponential, {}, true}});
  for (const bool token_ids : {false, true}) {
    std::vector<TensorSpec> inputs = {
        {"probs", kLogitTypes, "[B, V]", false, "weights in column order (SGLang: sorted, filtered probs)", Role::kProbs},
        {"seed", "i64", "[B]", false, "per-row sampling seed", Role::kSeed},
        {"positions", "i64", "[B]", false, "token position in its sequence, [0, 2^32)", Role::kPosition}};
    if (token_ids) inputs.push_back({"token_ids", "i32", "[B, V]", false, "hash column of each entry (vocabulary id)"});
    c.push_back({token_ids ? "multinomial_with_seed_token_ids" : "multinomial_with_seed",
                 token_ids ? "seeded Gumbel-max, noise keyed by (seed, position, token id)"
                           : "seeded Gumbel-max, noise keyed by (seed, position, column rank)",
                 std::move(inputs), {token_out}, {},
                 Tier::kCanonical, "exact", {P::kSglang},
                 "docs/spec/draws.md#multinomial_with_seed",
                 {ExactTargetKind::kNormalisedProbs, HarnessNoise::kSeedPosition, {}, true}});
  }
  c.push_back({"pipeline",
               "a framework's whole sampler: penalties, masks, bias, temperature, filters, seeded draw",
               {{"logits", kLogitTypes, "[B, V]", false, "raw logits", Role::kLogits},
                {"temperature", "f32", "[B]", false, "per row; greedy rows by the profile's rule"},
                {"output_ids", "i32", "[B, Lo]", true, "penalties group (with prompt_ids and the three coefficients)"},
                {"prompt_ids", "i32", "[B, Lp]", true, "penalties group"},
                {"repetition_penalty", "f32", "[B]", true, "penalties group"},
                {"frequency_penalty", "f32", "[B]", true, "penalties group"},
                {"presence_penalty", "f32", "[B]", true, "penalties group"},
                {"stop_ids", "i32", "[B, S]", true, "min_new_tokens group (with output_len, min_tokens)"},
                {"output_len", "i32", "[B]", true, "min_new_tokens group"},
                {"min_tokens", "i32", "[B]", true, "min_new_tokens group"},
                {"bitmask", "i32", "[B, W]", true, "xgrammar token bitmask"},
                {"bias", "f32", "[B, V]", true, "dense logit bias"},
                {"top_k", "i32", "[B]", true, "filters"},
                {"top_p", "f32", "[B]", true, "filters"},
                {"min_p", "f32", "[B]", true, "filters"},
                {"seed", "i64", "[B]", true, "canonical, sglang: per-row sampling seed (random rows)", Role::kSeed},
                {"positions", "i64", "[B]", true, "canonical, sglang: token position (random rows)", Role::kPosition},
                {"q", "f32", "[B, V]", true, "vllm: Exp(1) noise (random rows)", Role::kNoise}},
               {token_out}, {{"order", "string", "profile's", "filter order (sampling_filters)"},
                             {"sampling_path", "string", "auto", "sglang only: auto | sorted | unfiltered (SGLang's seeded draw is chosen per batch)"},
                             {"greedy_path", "string", "auto", "sglang only: auto | argmax | sorted (SGLang's greedy rows depend on the batch)"},
                             {"top_k_one", "string", "filter", "vllm only: filter (vLLM 9aaf83ef: top_k = 1 keeps ties) | greedy (a later vLLM)"}},
               Tier::kCanonical, "exact", {P::kCanonical, P::kVllm, P::kSglang},
               "docs/spec/pipeline.md",
               {ExactTargetKind::kPipeline, HarnessNoise::kSeedPosition, {{P::kVllm, HarnessNoise::kExponential}}, true}});
}

// Speculative decoding: greedy and random verification, the whole speculative step.
void AddSpeculativeStages(std::vector<StageInfo>& c) {
  // Speculative decoding (docs/spec/speculative.md). Every tensor is per request ("[B, ..."),
  // so both stages are row-separable for the batch-invariance check.
  const TensorSpec drafts = {"draft_ids", "i32", "[B, K]", false, "draft tokens, K >= 0; trailing -1 padding (a row's draft count)", Role::kDrafts};
  const std::vector<TensorSpec> spec_outputs = {
      {"emitted", "i64", "[B, K + 1]", false, "accepted drafts, then the recovered or bonus token, then -1", Role::kToken},
      {"num_accepted", "i64", "[B]", false, "accepted drafts per row"}};
  c.push_back({"spec_greedy",
               "greedy verification: accept drafts equal to the target argmax; emit the argmax at the first mismatch, or the bonus",
               {drafts, {"target_logits", kLogitTypes, "[B, K + 1, V]", false, "target scores per position (argmax as greedy)", Role::kLogits}},
               spec_outputs, {},
               Tier::kExact, "exact", {P::kCanonical},
               "docs/spec/speculative.md#spec_greedy"});
  c.push_back({"spec_random",
               "rejection sampling of drafts against the target, recovered token from max(p - q, 0), bonus token; noise given",
               {drafts,
                {"target_probs", kLogitTypes, "[B, K + 1, V]", false, "target probabilities per position (after the caller's temperature and filters)", Role::kProbs},
                {"draft_probs", kLogitTypes, "[B, K, V]", true, "draft probabilities; vllm: absent = n-gram (draft prob 1); typical_acceptance: not read"},
                {"u", "f64|f32", "[B, K] | [B, K + 1]", true, "vllm: f64 [B, K] in [0, 1); flashinfer: f32 [B, K + 1] in [0, 1]", Role::kNoise},
                {"q", "f32", "[B, V]", true, "vllm: Exp(1) noise of the recovered token, one vector per request", Role::kNoise},
                {"bonus_q", "f32", "[B, V]", true, "vllm, typical_acceptance: Exp(1) noise of the bonus token", Role::kNoise}},
               spec_outputs,
               {{"posterior_threshold", "float", "0.09", "typical_acceptance: threshold cap, rounded to f32"},
                {"posterior_alpha", "float", "0.3", "typical_acceptance: factor on exp(-entropy), rounded to f32"}},
               Tier::kCanonical, "exact", {P::kVllm, P::kFlashinfer, P::kTypicalAcceptance},
               "docs/spec/speculative.md#spec_random",
               {ExactTargetKind::kSpecFirstToken, HarnessNoise::kSpecDrafts}});
  // The whole speculative step (docs/spec/spec_step.md): logits to kept tokens, the request's
  // min_tokens mask, temperature and filters on target AND draft rows, verification, stops.
  c.push_back({"spec_step",
               "the whole speculative step: min_tokens mask, temperature and filters on target and draft logits, verification (token-wise or block), stop ids",
               {drafts,
                {"target_logits", kLogitTypes, "[B, K + 1, V]", false, "target logits per position (no NaN, no +inf)", Role::kLogits},
                {"draft_logits", kLogitTypes, "[B, K, V]", true, "draft logits per position; absent: n-gram drafts (canonical, vllm)"},
                {"temperature", "f32", "[B]", false, "per request; < 1e-5: greedy row (spec_greedy rule)"},
                {"top_k", "i32", "[B]", true, "filters (sampling_filters canonical), on target and draft rows"},
                {"top_p", "f32", "[B]", true, "filters"},
                {"min_p", "f32", "[B]", true, "filters"},
                {"stop_ids", "i32", "[B, S]", true, "stop ids (EOS included), -1 padded"},
                {"min_tokens", "i32", "[B]", true, ">= 0; stop ids masked while output_len + i < min_tokens"},
                {"output_len", "i32", "[B]", true, "tokens produced before this step; absent 0"},
                {"u", "f64", "[B, K]", true, "random rows: U[0, 1) per draft", Role::kNoise},
                {"q", "f32", "[B, V]", true, "random rows: Exp(1) noise of the recovered token", Role::kNoise},
                {"bonus_q", "f32", "[B, V]", true, "random rows: Exp(1) noise of the bonus token", Role::kNoise},
                {"final_u", "f32", "[B]", true, "sglang random rows: U[0, 1) of the final inverse-CDF draw", Role::kNoise}},
               {{"emitted", "i64", "[B, K + 1]", false, "kept tokens (up to and including a stop), then -1", Role::kToken},
                {"num_accepted", "i64", "[B]", false, "drafts the verifier accepted (before stops)"},
                {"num_emitted", "i64", "[B]", false, "tokens kept"},
                {"finished", "bool", "[B]", false, "a stop id ended the row"}},
               {{"threshold_single", "float", "1", "sglang: accept a draft whose target probability is >= this"},
                {"threshold_acc", "float", "1", "sglang: accept iff u <= p(x) / max(this, 1e-9)"},
                {"draft_sample_method", "string", "greedy", "vllm only: greedy (one-hot drafts) | probabilistic (draft rows read)"}},
               Tier::kCanonical, "exact", {P::kCanonical, P::kBlockVerification, P::kVllm, P::kSglang},
               "docs/spec/spec_step.md",
               // The draw harness counts the first emitted token (target row 0 after the
               // request's filters) with drafts drawn from the filtered draft rows.
               {ExactTargetKind::kSpecFirstToken, HarnessNoise::kSpecDrafts}});
}

// FlashInfer's rejection samplers, logprobs and the finish rules.
void AddSamplerOutputStages(std::vector<StageInfo>& c) {
  const TensorSpec token_out = TokenOut();
  // FlashInfer's rejection samplers from probabilities (docs/spec/flashinfer_sampling_from_probs.md):
  // a stage of its own because it has a valid flag and one uniform per rejection round.
  c.push_back({"flashinfer_sampling_from_probs",
               "FlashInfer's sorting-free rejection sampling (top_k_top_p joint, top_k, top_p, min_p) given its uniforms",
               {{"probs", kLogitTypes, "[B, V]", false, "probabilities (sum 1: top-p compares absolute mass); >= 0 or NaN (never drawn)", Role::kProbs},
                {"top_k", "i32", "[B]", true, "kernels top_k_top_p, top_k: read as uint32 (<= 0: nothing passes; < 0: no limit)"},
                {"top_p", "f32", "[B]", true, "kernels top_k_top_p, top_p: finite"},
                {"min_p", "f32", "[B]", true, "kernel min_p: finite"},
                {"u", "f32", "[B, R]", false, "U(0, 1] per rejection round, R >= 1 (at most distinct probabilities + 1 used)", Role::kNoise}},
               {token_out,
                {"valid", "bool", "[B]", false, "false: no token passed (NaN row, top_k 0, top_p <= 0...); token is then 0"},
                {"rounds", "i32", "[B]", false, "uniforms consumed"}},
               {{"kernel", "string", "top_k_top_p", "top_k_top_p | top_k | top_p | min_p"},
                {"deterministic", "bool", "true", "FlashInfer's block-scan order; no effect on the law or these outputs"},
                {"filter_apply_order", "string", "joint", "kernel top_k_top_p: joint | top_k_first (top_k_renorm_probs, then the top_p kernel)"}},
               Tier::kCanonical, "exact", {P::kFlashinfer},
               "docs/spec/flashinfer_sampling_from_probs.md",
               {ExactTargetKind::kFlashinferSurvivors, HarnessNoise::kUniformRounds}});
  // Logprobs (docs/spec/logprobs.md): exact given the canonical softmax; top_ranks and
  // token_rank are absent under sglang (SGLang returns no rank), token_ids_logprobs only when
  // token_ids is given.
  c.push_back({"logprobs",
               "top-n ids and values, the sampled token's value and rank, requested ids' values, per logprobs mode",
               {Logits(),
                {"raw_logits", kLogitTypes, "[B, V]", true, "the model's row before any processing (raw modes); absent = logits"},
                {"temperature", "f32", "[B]", true, "absent: 1; greedy rows by the profile's epsilon"},
                {"top_k", "i32", "[B]", true, "canonical, vllm processed modes: filters"},
                {"top_p", "f32", "[B]", true, "canonical, vllm processed modes: filters"},
                {"min_p", "f32", "[B]", true, "canonical, vllm processed modes: filters"},
                {"token", "i64", "[B]", false, "sampled token id, in [0, V)"},
                {"token_ids", "i32", "[B, T]", true, "ids whose values are asked (SGLang token_ids_logprob); -1 padded"}},
               {{"top_ids", "i64", "[B, n]", false, "top-n ids: NaN first, larger first, ties by lower index"},
                {"top_values", "f32", "[B, n]", false, "their values"},
                {"top_ranks", "i64", "[B, n]", false, "their ranks: canonical 1 + #greater; vllm position + 1; absent under sglang"},
                {"token_logprob", "f32", "[B]", false, "the sampled token's value"},
                {"token_rank", "i64", "[B]", false, "canonical 1 + #greater; vllm #greater-or-equal; absent under sglang"},
                {"token_ids_logprobs", "f32", "[B, T]", false, "only with token_ids: values of the asked ids, NaN at padding"}},
               {{"num_logprobs", "int", "0", "n, 0 <= n <= V"},
                {"mode", "string", "raw_logprobs | temperature", "canonical, vllm: raw_logprobs, raw_logits, processed_logprobs, processed_logits; sglang: temperature, original"}},
               Tier::kCanonical, "exact", {P::kCanonical, P::kVllm, P::kSglang},
               "docs/spec/logprobs.md"});
  // Finish rules (docs/spec/finish_rules.md): the egress decision after each sampled token.
  c.push_back({"finish_rules",
               "finish reason, stop reason, whether the token reaches the text, and the ids min_tokens bans next step",
               {{"token", "i64", "[B]", false, "this step's sampled id, >= 0"},
                {"output_len", "i32", "[B]", false, "output tokens including this one, >= 1"},
                {"max_tokens", "i32", "[B]", false, ">= 1"},
                {"min_tokens", "i32", "[B]", false, "in [0, max_tokens]"},
                {"ignore_eos", "bool", "[B]", false, "the request's ignore_eos"},
                {"eos_ids", "i32", "[B, E]", false, "model EOS ids, primary first, then generation-config extras; -1 padded"},
                {"stop_ids", "i32", "[B, S]", false, "the request's stop_token_ids; -1 padded"},
                {"keep_stop", "bool", "[B]", true, "vllm include_stop_str_in_output / sglang no_stop_trim; absent: false"}},
               {{"finish_reason", "i32", "[B]", false, "0 running, 1 stop, 2 length"},
                {"stop_reason", "i64", "[B]", false, "matched id or -1 (vllm: -1 for the primary EOS)"},
                {"text_keep", "bool", "[B]", false, "the token reaches the detokenized text"},
                {"next_banned", "i32", "[B, E + S]", false, "ascending ids set to -inf at the next step; -1 padded"}},
               {},
               Tier::kExact, "exact", {P::kCanonical, P::kVllm, P::kSglang},
               "docs/spec/finish_rules.md"});
}

// Decode steps, tensor-parallel consensus and a backend's own noise.
void AddMultiStepAndNoiseStages(std::vector<StageInfo>& c) {
  // Decode steps (docs/spec/decode_steps.md): the pipeline over N steps with the history, the
  // min-tokens count and the noise offset advanced per step; every tensor per row.
  c.push_back({"decode_steps",
               "N pipeline steps on given per-step logits: history, output_len and noise offset advance with each token",
               {{"logits", kLogitTypes, "[B, N, V]", false, "the model's row at each step, N >= 1", Role::kLogits},
                {"temperature", "f32", "[B]", false, "per row, fixed across steps"},
                {"output_ids", "i32", "[B, Lo]", true, "history before step 0 (penalties group); drawn tokens are appended"},
                {"prompt_ids", "i32", "[B, Lp]", true, "penalties group"},
                {"repetition_penalty", "f32", "[B]", true, "penalties group"},
                {"frequency_penalty", "f32", "[B]", true, "penalties group"},
                {"presence_penalty", "f32", "[B]", true, "penalties group"},
                {"stop_ids", "i32", "[B, S]", true, "min_new_tokens group (output_len is derived per step)"},
                {"min_tokens", "i32", "[B]", true, "min_new_tokens group"},
                {"top_k", "i32", "[B]", true, "filters"},
                {"top_p", "f32", "[B]", true, "filters"},
                {"min_p", "f32", "[B]", true, "filters"},
                {"seed", "i64", "[B]", true, "canonical, sglang: per-row seed", Role::kSeed},
                {"positions", "i64", "[B]", true, "canonical, sglang: position of step 0 (step t uses positions + t)", Role::kPosition},
                {"q", "f32", "[B, N, V]", true, "vllm: Exp(1) noise per step", Role::kNoise}},
               {{"tokens", "i64", "[B, N]", false, "the token of each step"}},
               {{"order", "string", "profile's", "filter order (sampling_filters)"},
                {"sampling_path", "string", "auto", "sglang only: auto | sorted | unfiltered (as pipeline; fixed across steps)"}},
               Tier::kCanonical, "exact", {P::kCanonical, P::kVllm, P::kSglang},
               "docs/spec/decode_steps.md"});
  // Tensor-parallel consensus (docs/spec/tp_consensus.md): no vocabulary dimension, ids only.
  c.push_back({"tp_consensus",
               "the id every tensor-parallel rank keeps: MIN over ranks (sglang) or rank 0's (vllm)",
               {{"rank_ids", "i32|i64", "[R, B]", false, "row r: rank r's sampled ids, each >= 0; R >= 1"}},
               {{"token", "i64", "[B]", false, "agreed id", Role::kToken},
                {"unanimous", "bool", "[B]", false, "every rank held the same id before consensus"}},
               {},
               Tier::kExact, "exact", {P::kSglang, P::kVllm},
               "docs/spec/tp_consensus.md"});
  // A backend's own noise (docs/spec/noise.md): no vocabulary; the statistical noise harness
  // runs on every backend that declares this stage.
  c.push_back({"noise",
               "a backend's own uniform, exponential or Gumbel noise at a seed and counter range",
               {{"seed", "i64", "[B]", false, "per-row 64-bit seed", Role::kSeed},
                {"offset", "i64", "[B]", false, "counter of the row's first sample, in [0, 2^62)", Role::kPosition}},
               {{"noise", "f32", "[B, n]", false, "sample i of row b at counter offset[b] + i", Role::kNoise}},
               {{"generator", "string", "philox", "philox (cuRAND stream, subsequence 0) | murmur3 (SGLang key layout)"},
                {"law", "string", "(required)", "uniform | exponential | gumbel"},
                {"n", "int", "1", "samples per row, in [0, 2^24]"}},
               Tier::kCanonical, "exact", {P::kCanonical},
               "docs/spec/noise.md"});
}

std::vector<StageInfo> BuildCatalogue() {
  std::vector<StageInfo> c;
  AddLogitProcessorStages(c);
  AddDistributionAndFilterStages(c);
  AddDrawStages(c);
  AddSpeculativeStages(c);
  AddSamplerOutputStages(c);
  AddMultiStepAndNoiseStages(c);
  return c;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Registered stages are appended; the spare capacity keeps pointers from FindStage valid
// while tests register and unregister stages.
std::vector<StageInfo>& MutableCatalogue() {
  static std::vector<StageInfo> catalogue = [] {
    std::vector<StageInfo> c = BuildCatalogue();
    c.reserve(c.size() + 64);
    return c;
  }();
  return catalogue;
}

}  // namespace

const std::vector<StageInfo>& StageCatalogue() { return MutableCatalogue(); }

ScopedStageRegistration::ScopedStageRegistration(StageInfo stage) : name_(stage.name) {
  std::vector<StageInfo>& c = MutableCatalogue();
  if (FindStage(name_) != nullptr) throw std::logic_error("stage '" + name_ + "' is already in the catalogue");
  if (c.size() == c.capacity()) throw std::logic_error("stage catalogue: too many registered stages");
  c.push_back(std::move(stage));
}

ScopedStageRegistration::~ScopedStageRegistration() {
  std::vector<StageInfo>& c = MutableCatalogue();
  for (auto it = c.begin(); it != c.end(); ++it) {
    if (it->name == name_) {
      c.erase(it);
      return;
    }
  }
}

const StageInfo* FindStage(std::string_view name) {
  for (const auto& s : StageCatalogue()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const StageInfo& RequireStage(std::string_view name) {
  if (const StageInfo* s = FindStage(name)) return *s;
  std::vector<std::string> names;
  for (const auto& s : StageCatalogue()) names.push_back(s.name);
  throw InputError("unknown stage '" + std::string(name) + "'; valid stages: " + Join(names));
}

Profile RequireStageProfile(const StageInfo& stage, std::string_view profile) {
  return RequireStageProfile(stage, ParseProfile(profile));  // unknown names get the list of all profiles
}

Profile RequireStageProfile(const StageInfo& stage, Profile profile) {
  std::vector<std::string> names;
  for (Profile p : stage.profiles) {
    if (p == profile) return profile;
    names.emplace_back(ProfileName(p));
  }
  throw InputError("stage '" + stage.name + "' has no profile '" + std::string(ProfileName(profile)) +
                   "'; its profiles: " + Join(names));
}

}  // namespace sampcheck
