// SPDX-License-Identifier: Apache-2.0
// The stage catalogue (core/stage_catalogue.h). Each entry states the contract block of its
// reference header and the spec file it names; its dtype and shape strings are the types the
// parse functions read their inputs with (reference/stage_io.h StageInputs) and are checked
// against every case of golden/v1 (tests/golden_test.cc, GoldenSet.EveryTensorHasItsCatalogueDtypeAndRank).
// Entries are written with designated initialisers, so every flag and string says which field
// it is.
#include "core/stage_catalogue.h"

#include <algorithm>
#include <iterator>
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

std::vector<DType> TensorSpec::ListedDTypes() const {
  std::vector<DType> listed;
  for (std::size_t start = 0; start <= dtypes.size();) {
    const std::size_t end = std::min(dtypes.find('|', start), dtypes.size());
    const std::string_view item = std::string_view(dtypes).substr(start, end - start);
    const auto* d = std::find_if(std::begin(kAllDTypes), std::end(kAllDTypes), [&](DType x) { return DTypeName(x) == item; });
    if (d == std::end(kAllDTypes)) {
      throw std::logic_error("stage catalogue: tensor '" + name + "' lists dtypes '" + dtypes + "'; '" +
                             std::string(item) + "' is no dtype");
    }
    listed.push_back(*d);
    start = end + 1;
  }
  return listed;
}

std::vector<int> TensorSpec::ListedRanks() const {
  std::vector<int> ranks;
  for (std::size_t start = 0; start <= shape.size();) {
    const std::size_t end = std::min(shape.find('|', start), shape.size());
    std::string_view alt = std::string_view(shape).substr(start, end - start);
    while (!alt.empty() && alt.front() == ' ') alt.remove_prefix(1);
    while (!alt.empty() && alt.back() == ' ') alt.remove_suffix(1);
    if (alt.size() < 2 || alt.front() != '[' || alt.back() != ']') {
      throw std::logic_error("stage catalogue: tensor '" + name + "' has shape '" + shape +
                             "'; every alternative must be '[...]'");
    }
    const std::string_view inner = alt.substr(1, alt.size() - 2);
    ranks.push_back(inner.empty() ? 0 : 1 + static_cast<int>(std::count(inner.begin(), inner.end(), ',')));
    start = end + 1;
  }
  return ranks;
}

bool StageInfo::HasProfile(Profile p) const {
  for (Profile q : profiles) {
    if (q == p) return true;
  }
  return false;
}

const TensorSpec* StageInfo::Input(std::string_view name) const {
  for (const auto& t : inputs) {
    if (t.name == name) return &t;
  }
  return nullptr;
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

TensorSpec Logits() { return {.name = "logits", .dtypes = kLogitTypes, .shape = "[B, V]", .meaning = "logits; f16/bf16 are upcast to f32 first", .role = Role::kLogits}; }
TensorSpec LogitsOut() { return {.name = "logits", .dtypes = "f32", .shape = "[B, V]", .meaning = "logits after the stage"}; }

TensorSpec TokenOut() { return {.name = "token", .dtypes = "i64", .shape = "[B]", .meaning = "drawn token id", .role = Role::kToken}; }

// BuildCatalogue in groups, each appending its stages in catalogue order (the order of
// `sampcheck stages`, of golden generation and of reports).
// Logit processors: bias, penalties, min-new-tokens, masks, NaN handling, temperature.
void AddLogitProcessorStages(std::vector<StageInfo>& c) {
  c.push_back({.name = "logit_bias",
               .summary = "add a per-token bias, dense [B, V] and/or sparse (row, token, value) lists",
               .inputs = {Logits(),
                {.name = "bias", .dtypes = "f32", .shape = "[B, V]", .optional = true, .meaning = "dense bias, added to every entry"},
                {.name = "bias_rows", .dtypes = "i32", .shape = "[N]", .optional = true, .meaning = "sparse: row of each entry"},
                {.name = "bias_ids", .dtypes = "i32", .shape = "[N]", .optional = true, .meaning = "sparse: token id of each entry, in [0, V)"},
                {.name = "bias_values", .dtypes = "f32", .shape = "[N]", .optional = true, .meaning = "sparse: bias of each entry"}},
               .outputs = {LogitsOut()},
               .params = {},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical, P::kVllm, P::kSglang},
               .spec_section = "docs/spec/logit_bias.md"});
  c.push_back({.name = "penalties",
               .summary = "repetition (prompt and output), frequency and presence (output) penalties",
               .inputs = {Logits(),
                {.name = "prompt_ids", .dtypes = "i32", .shape = "[B, Lp]", .optional = true, .meaning = "prompt token ids, -1 padded"},
                {.name = "output_ids", .dtypes = "i32", .shape = "[B, Lo]", .optional = true, .meaning = "output token ids, -1 padded"},
                {.name = "repetition_penalty", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "> 0; 1 disables"},
                {.name = "frequency_penalty", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "0 disables"},
                {.name = "presence_penalty", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "0 disables"}},
               .outputs = {LogitsOut()},
               .params = {{.name = "penalizers", .type = "string", .default_value = "auto", .meaning = "sglang only: auto | required | not_required (SGLang adds its penalty tensor only when the batch needs one)"}},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical, P::kVllm, P::kSglang},
               .spec_section = "docs/spec/penalties.md"});
  c.push_back({.name = "min_new_tokens",
               .summary = "stop tokens get -inf while the output is shorter than the minimum",
               .inputs = {Logits(),
                {.name = "output_len", .dtypes = "i32", .shape = "[B]", .meaning = "tokens generated so far"},
                {.name = "min_tokens", .dtypes = "i32", .shape = "[B]", .meaning = "minimum output length"},
                {.name = "stop_ids", .dtypes = "i32", .shape = "[B, S]", .meaning = "stop token ids (eos included), -1 padded"}},
               .outputs = {LogitsOut()},
               .params = {{.name = "penalizers", .type = "string", .default_value = "auto", .meaning = "sglang only: auto | required | not_required (SGLang adds its penalty tensor only when the batch needs one)"}},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical, P::kVllm, P::kSglang},
               .spec_section = "docs/spec/penalties.md#min_new_tokens"});
  c.push_back({.name = "token_bitmask",
               .summary = "xgrammar apply_token_bitmask_inplace: bit 0 -> -inf",
               .inputs = {Logits(),
                {.name = "bitmask", .dtypes = "i32", .shape = "[Bm, W]", .meaning = "bit t%32 of word t/32, LSB first; 1 = allowed"},
                {.name = "indices", .dtypes = "i32", .shape = "[N]", .optional = true, .meaning = "rows to mask (same row of logits and bitmask)"}},
               .outputs = {LogitsOut()},
               .params = {{.name = "vocab_size", .type = "int", .default_value = "min(V, 32 W)", .meaning = "columns [0, vocab_size) are masked"}},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical},
               .spec_section = "docs/spec/masks.md#token_bitmask"});
  // The grammar side of the bitmask: filling it, testing an id, the stop-token rule.
  c.push_back({.name = "token_bitmask_fill",
               .summary = "fill a batch bitmask from allowed-id lists (xgrammar's layout, tail bits 1) in vLLM's row order",
               .inputs = {{.name = "allowed_ids", .dtypes = "i32", .shape = "[G, A]", .meaning = "allowed ids of each compacted grammar row, -1 padded"},
                {.name = "spec_tokens", .dtypes = "i32", .shape = "[R]", .meaning = "speculative tokens scheduled per request, batch order"},
                {.name = "structured", .dtypes = "i32", .shape = "[S]", .meaning = "batch index of each structured request, compacted order"},
                {.name = "buffer", .dtypes = "i32", .shape = "[L, words]", .optional = true, .meaning = "the reused buffer's previous contents (never shows through)"}},
               .outputs = {{.name = "bitmask", .dtypes = "i32", .shape = "[L, words]", .meaning = "filled rows; unguided rows and bits >= vocab_size all 1"},
                {.name = "indices", .dtypes = "i32", .shape = "[G]", .meaning = "logits row of each compacted row (vLLM's out_indices)"}},
               .params = {{.name = "vocab_size", .type = "int", .default_value = "(required)", .meaning = "tokens of the grammar's vocabulary, in [1, 2^31 - 1]"},
                {.name = "words", .type = "int", .default_value = "ceil(vocab_size / 32)", .meaning = "row stride of the buffer in i32 words"}},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical},
               .spec_section = "docs/spec/token_bitmask_fill.md"});
  c.push_back({.name = "token_bitmask_allowed",
               .summary = "is each int64 token id allowed by its bitmask row (out of range: no)",
               .inputs = {{.name = "bitmask", .dtypes = "i32", .shape = "[B, W]", .meaning = "bit t%32 of word t/32, LSB first; 1 = allowed"},
                {.name = "token_ids", .dtypes = "i64", .shape = "[B, N]", .meaning = "ids to test, any int64 value"}},
               .outputs = {{.name = "allowed", .dtypes = "bool", .shape = "[B, N]", .meaning = "0 <= id < vocab_size and its bit is 1"}},
               .params = {{.name = "vocab_size", .type = "int", .default_value = "32 W", .meaning = "ids at or above it are not allowed"}},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical},
               .spec_section = "docs/spec/token_bitmask_allowed.md"});
  c.push_back({.name = "token_bitmask_stop_tokens",
               .summary = "stop-token bits set where the grammar can end, cleared where it cannot",
               .inputs = {{.name = "bitmask", .dtypes = "i32", .shape = "[B, W]", .meaning = "the filled bitmask, stop bits as the buffer left them"},
                {.name = "stop_ids", .dtypes = "i32", .shape = "[B, S]", .meaning = "stop token ids, -1 padded"},
                {.name = "can_end", .dtypes = "bool", .shape = "[B]", .meaning = "the row's grammar can terminate here"}},
               .outputs = {{.name = "bitmask", .dtypes = "i32", .shape = "[B, W]", .meaning = "stop bits = can_end, other bits unchanged"}},
               .params = {},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical},
               .spec_section = "docs/spec/token_bitmask_stop_tokens.md"});
  c.push_back({.name = "allowed_token_ids",
               .summary = "every token not in the row's allowed list gets -inf",
               .inputs = {Logits(),
                {.name = "allowed_ids", .dtypes = "i32", .shape = "[B, A]", .meaning = "allowed ids, -1 padded; all -1 = unrestricted"}},
               .outputs = {LogitsOut()},
               .params = {},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical, P::kVllm},
               .spec_section = "docs/spec/masks.md#allowed_token_ids"});
  c.push_back({.name = "bad_words",
               .summary = "ban the last token of a bad word whose prefix ends the output",
               .inputs = {Logits(),
                {.name = "output_ids", .dtypes = "i32", .shape = "[B, Lo]", .meaning = "output token ids, -1 padded at the end"},
                {.name = "bad_words", .dtypes = "i32", .shape = "[B, Nw, Lw]", .meaning = "words of token ids, -1 padded at the end"}},
               .outputs = {LogitsOut()},
               .params = {},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical, P::kVllm},
               .spec_section = "docs/spec/masks.md#bad_words"});
  c.push_back({.name = "nan_handling",
               .summary = "what a profile does with NaN logits before sampling",
               .inputs = {Logits()},
               .outputs = {LogitsOut()},
               .params = {{.name = "nan_mode", .type = "string", .default_value = "keep", .meaning = "sglang only: keep | sanitize (SGLANG_SANITIZE_NAN_LOGITS) | detect_1e5 (older --enable-nan-detection)"}},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical, P::kVllm, P::kSglang},
               .spec_section = "docs/spec/nan_handling.md"});
  c.push_back({.name = "temperature",
               .summary = "divide by the temperature; rows below the profile's epsilon are greedy",
               .inputs = {Logits(), {.name = "temperature", .dtypes = "f32", .shape = "[B]", .meaning = ">= 0, finite"}},
               .outputs = {LogitsOut(), {.name = "is_greedy", .dtypes = "bool", .shape = "[B]", .meaning = "row is a greedy row"}},
               .params = {},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical, P::kVllm, P::kSglang},
               .spec_section = "docs/spec/temperature.md"});
}

// Greedy, softmax / log-softmax, the filters and Ascend's fused filter-and-sample op.
void AddDistributionAndFilterStages(std::vector<StageInfo>& c) {
  c.push_back({.name = "greedy",
               .summary = "argmax per row: first NaN, else the lowest index among equal maxima",
               .inputs = {Logits()},
               .outputs = {{.name = "token", .dtypes = "i64", .shape = "[B]", .meaning = "chosen token id", .role = Role::kToken}},
               .params = {},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical},
               .spec_section = "docs/spec/greedy.md"});
  c.push_back({.name = "softmax",
               .summary = "probabilities: max-subtracted owned exp over the canonical sum",
               .inputs = {Logits(), {.name = "temperature", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "finite, > 0; logits are divided by it first"}},
               .outputs = {{.name = "probs", .dtypes = "f32", .shape = "[B, V]", .meaning = "softmax of each row"}},
               .params = {},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = {P::kCanonical},
               .spec_section = "docs/spec/softmax.md"});
  c.push_back({.name = "log_softmax",
               .summary = "log-probabilities: (x - max) - log(canonical sum of exp)",
               .inputs = {Logits(), {.name = "temperature", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "finite, > 0; logits are divided by it first"}},
               .outputs = {{.name = "logprobs", .dtypes = "f32", .shape = "[B, V]", .meaning = "log_softmax of each row"}},
               .params = {},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = {P::kCanonical},
               .spec_section = "docs/spec/softmax.md"});
  const std::vector<Profile> all_profiles = {P::kCanonical, P::kVllm, P::kSglang, P::kFlashinfer, P::kAscendV2};
  const TensorSpec filter_logits = {.name = "logits", .dtypes = kLogitTypes, .shape = "[B, V]", .meaning = "finite or -inf logits (no NaN, no +inf)", .role = Role::kLogits};
  c.push_back({.name = "top_k",
               .summary = "keep the k largest logits (exactly k, or with ties at the k-th value, per profile)",
               .inputs = {filter_logits, {.name = "top_k", .dtypes = "i32", .shape = "[B]", .meaning = "k; disabled per profile (k <= 0, k >= V, ...)"}},
               .outputs = {LogitsOut()},
               .params = {{.name = "ks_max", .type = "int", .default_value = "1024", .meaning = "ascend_v2: k above min(V, ks_max rounded up to 8, 1024) keeps all"}},
               .tier = Tier::kExact, .comparison = "exact", .profiles = all_profiles,
               .spec_section = "docs/spec/filters.md#top_k"});
  c.push_back({.name = "top_p",
               .summary = "keep the most probable tokens until their mass reaches p (boundary rule per profile)",
               .inputs = {filter_logits, {.name = "top_p", .dtypes = "f32", .shape = "[B]", .meaning = "p; >= 1 disabled, <= 0 keeps the top token"}},
               .outputs = {LogitsOut()},
               .params = {},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = all_profiles,
               .spec_section = "docs/spec/filters.md#top_p"});
  c.push_back({.name = "min_p",
               .summary = "keep tokens with prob >= min_p * max prob",
               .inputs = {filter_logits, {.name = "min_p", .dtypes = "f32", .shape = "[B]", .meaning = "min_p; <= 0 disabled"}},
               .outputs = {LogitsOut()},
               .params = {},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = all_profiles,
               .spec_section = "docs/spec/filters.md#min_p"});
  c.push_back({.name = "sampling_filters",
               .summary = "top-k, top-p and min-p in the profile's order; masked logits and renormalised probs",
               .inputs = {filter_logits,
                {.name = "top_k", .dtypes = "i32", .shape = "[B]", .optional = true, .meaning = "absent: disabled"},
                {.name = "top_p", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "absent: 1 (disabled)"},
                {.name = "min_p", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "absent: 0 (disabled)"}},
               .outputs = {LogitsOut(), {.name = "probs", .dtypes = "f32", .shape = "[B, V]", .meaning = "softmax of the masked logits"}},
               .params = {{.name = "order", .type = "string", .default_value = "per profile", .meaning = "top_k_first | min_p_first | joint (flashinfer: top_k_first or joint)"},
                {.name = "ks_max", .type = "int", .default_value = "1024", .meaning = "ascend_v2 top-k limit"}},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = all_profiles,
               .spec_section = "docs/spec/filters.md#sampling_filters"});
  c.push_back({.name = "ascend_top_k_top_p_sample_v2",
               .summary = "CANN TopKTopPSampleV2: top-k -> top-p -> min-p on the top-k softmax, then argmax or QSample",
               .inputs = {{.name = "logits", .dtypes = kLogitTypes, .shape = "[B, V]",
                 .meaning = "logits (finite or -inf, a finite one per row), or probabilities (finite, >= 0) if !input_is_logits", .role = Role::kLogits},
                {.name = "top_k", .dtypes = "i32", .shape = "[B]", .meaning = "k; active iff 1 <= k <= min(V, ks_max rounded up to 8, 1024)"},
                {.name = "top_p", .dtypes = kLogitTypes, .shape = "[B]", .meaning = "same dtype as logits; <= 0 keeps the max, >= 1 skips"},
                {.name = "min_p", .dtypes = kLogitTypes, .shape = "[B]", .optional = true, .meaning = "same dtype as logits; absent or <= 0 skips, >= 1 keeps the max"},
                {.name = "q", .dtypes = "f32", .shape = "[B, V]", .optional = true, .meaning = "QSample divisor, indexed by position in the survivor list", .role = Role::kNoise}},
               .outputs = {{.name = "logits_select_idx", .dtypes = "i64", .shape = "[B]", .meaning = "sampled vocab id (absent when is_need_sample_result)", .role = Role::kToken},
                {.name = "logits_top_kp_select", .dtypes = "f32", .shape = "[B, V]", .meaning = "only if is_need_logits: input at survivors, defLogit elsewhere"},
                {.name = "logits_sort_masked", .dtypes = "f32", .shape = "[B, V]", .meaning = "only if is_need_sample_result: survivor probs in list order, then 0"},
                {.name = "logits_idx", .dtypes = "i64", .shape = "[B, V]", .meaning = "only if is_need_sample_result: survivor vocab ids in list order, then -1"}},
               .params = {{.name = "eps", .type = "float", .default_value = "1e-8", .meaning = "QSample: probs / (|q| + eps), eps rounded to f32"},
                {.name = "is_need_logits", .type = "bool", .default_value = "false", .meaning = "output logits_top_kp_select"},
                {.name = "top_k_guess", .type = "int", .default_value = "32", .meaning = "kernel top-p fast-path size; any int32; never changes results"},
                {.name = "ks_max", .type = "int", .default_value = "1024", .meaning = "[1, 1024]; rounded up to a multiple of 8, capped at 1024"},
                {.name = "input_is_logits", .type = "bool", .default_value = "true", .meaning = "false: rows are probabilities (no softmax, defLogit 0)"},
                {.name = "is_need_sample_result", .type = "bool", .default_value = "false", .meaning = "output logits_sort_masked and logits_idx instead of logits_select_idx (q must be absent)"}},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = {P::kAscendV2},
               .spec_section = "docs/spec/ascend_top_k_top_p_sample_v2.md",
               .draw = {.target = ExactTargetKind::kAscendSurvivors, .noise = HarnessNoise::kExponential}});
}

// Draws given their noise, seeded draws, and the whole pipeline.
void AddDrawStages(std::vector<StageInfo>& c) {
  const TensorSpec token_out = TokenOut();
  c.push_back({.name = "gumbel_max",
               .summary = "argmax(score + gumbel) over finite scores, the noise given",
               .inputs = {{.name = "logprobs", .dtypes = kLogitTypes, .shape = "[B, V]", .meaning = "scores (log-probabilities or logits); -inf never drawn", .role = Role::kScores},
                {.name = "gumbel", .dtypes = "f32", .shape = "[B, V]", .meaning = "Gumbel noise, finite", .role = Role::kNoise}},
               .outputs = {token_out}, .params = {},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical, P::kSglang},
               .spec_section = "docs/spec/draws.md#gumbel_max",
               .draw = {.target = ExactTargetKind::kSoftmaxScores, .noise = HarnessNoise::kGumbel, .reference_count_draws = true}});
  c.push_back({.name = "exponential_race",
               .summary = "argmax(probs / q), the Exp(1) noise q given",
               .inputs = {{.name = "probs", .dtypes = kLogitTypes, .shape = "[B, V]", .meaning = "probabilities, finite >= 0", .role = Role::kProbs},
                {.name = "q", .dtypes = "f32", .shape = "[B, V]", .meaning = "Exp(1) noise, finite > 0", .role = Role::kNoise}},
               .outputs = {token_out}, .params = {},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical, P::kVllm},
               .spec_section = "docs/spec/draws.md#exponential_race",
               .draw = {.target = ExactTargetKind::kNormalisedProbs, .noise = HarnessNoise::kExponential, .reference_count_draws = true}});
  c.push_back({.name = "inverse_cdf",
               .summary = "first token whose running probability sum exceeds u times the total",
               .inputs = {{.name = "probs", .dtypes = kLogitTypes, .shape = "[B, V]", .meaning = "probabilities, finite >= 0, need not sum to 1", .role = Role::kProbs},
                {.name = "u", .dtypes = "f32", .shape = "[B]", .meaning = "uniform in [0, 1)", .role = Role::kNoise}},
               .outputs = {token_out}, .params = {},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = {P::kCanonical},
               .spec_section = "docs/spec/draws.md#inverse_cdf",
               .draw = {.target = ExactTargetKind::kNormalisedProbs, .noise = HarnessNoise::kUniform, .reference_count_draws = true}});
  c.push_back({.name = "qsample",
               .summary = "Ascend QSample: argmax(probs / (|q| + eps)), the noise q given",
               .inputs = {{.name = "probs", .dtypes = kLogitTypes, .shape = "[B, V]", .meaning = "probabilities in the op's list order, finite >= 0", .role = Role::kProbs},
                {.name = "q", .dtypes = "f32", .shape = "[B, V]", .meaning = "noise indexed by list position, finite (|q| is used)", .role = Role::kNoise}},
               .outputs = {token_out}, .params = {{.name = "eps", .type = "float", .default_value = "1e-8", .meaning = "added to |q|; rounded to f32, finite >= 0"}},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kAscendV2},
               .spec_section = "docs/spec/draws.md#qsample",
               .draw = {.target = ExactTargetKind::kNormalisedProbs, .noise = HarnessNoise::kExponential, .reference_count_draws = true}});
  for (const bool token_ids : {false, true}) {
    std::vector<TensorSpec> inputs = {
        {.name = "probs", .dtypes = kLogitTypes, .shape = "[B, V]", .meaning = "weights in column order (SGLang: sorted, filtered probs)", .role = Role::kProbs},
        {.name = "seed", .dtypes = "i64", .shape = "[B]", .meaning = "per-row sampling seed", .role = Role::kSeed},
        {.name = "positions", .dtypes = "i64", .shape = "[B]", .meaning = "token position in its sequence, [0, 2^32)", .role = Role::kPosition}};
    if (token_ids) inputs.push_back({.name = "token_ids", .dtypes = "i32", .shape = "[B, V]", .meaning = "hash column of each entry (vocabulary id)"});
    c.push_back({.name = token_ids ? "multinomial_with_seed_token_ids" : "multinomial_with_seed",
                 .summary = token_ids ? "seeded Gumbel-max, noise keyed by (seed, position, token id)"
                           : "seeded Gumbel-max, noise keyed by (seed, position, column rank)",
                 .inputs = std::move(inputs), .outputs = {token_out}, .params = {},
                 .tier = Tier::kCanonical, .comparison = "exact", .profiles = {P::kSglang},
                 .spec_section = "docs/spec/draws.md#multinomial_with_seed",
                 .draw = {.target = ExactTargetKind::kNormalisedProbs, .noise = HarnessNoise::kSeedPosition, .reference_count_draws = true}});
  }
  c.push_back({.name = "pipeline",
               .summary = "a framework's whole sampler: penalties, masks, bias, temperature, filters, seeded draw",
               .inputs = {{.name = "logits", .dtypes = kLogitTypes, .shape = "[B, V]", .meaning = "raw logits", .role = Role::kLogits},
                {.name = "temperature", .dtypes = "f32", .shape = "[B]", .meaning = "per row; greedy rows by the profile's rule"},
                {.name = "output_ids", .dtypes = "i32", .shape = "[B, Lo]", .optional = true, .meaning = "penalties group (with prompt_ids and the three coefficients)"},
                {.name = "prompt_ids", .dtypes = "i32", .shape = "[B, Lp]", .optional = true, .meaning = "penalties group"},
                {.name = "repetition_penalty", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "penalties group"},
                {.name = "frequency_penalty", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "penalties group"},
                {.name = "presence_penalty", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "penalties group"},
                {.name = "stop_ids", .dtypes = "i32", .shape = "[B, S]", .optional = true, .meaning = "min_new_tokens group (with output_len, min_tokens)"},
                {.name = "output_len", .dtypes = "i32", .shape = "[B]", .optional = true, .meaning = "min_new_tokens group"},
                {.name = "min_tokens", .dtypes = "i32", .shape = "[B]", .optional = true, .meaning = "min_new_tokens group"},
                {.name = "bitmask", .dtypes = "i32", .shape = "[B, W]", .optional = true, .meaning = "xgrammar token bitmask"},
                {.name = "bias", .dtypes = "f32", .shape = "[B, V]", .optional = true, .meaning = "dense logit bias"},
                {.name = "top_k", .dtypes = "i32", .shape = "[B]", .optional = true, .meaning = "filters"},
                {.name = "top_p", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "filters"},
                {.name = "min_p", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "filters"},
                {.name = "seed", .dtypes = "i64", .shape = "[B]", .optional = true, .meaning = "canonical, sglang: per-row sampling seed (random rows); vllm: a seeded row's generator seed", .role = Role::kSeed},
                {.name = "positions", .dtypes = "i64", .shape = "[B]", .optional = true, .meaning = "canonical, sglang: token position (random rows); vllm: the steps a seeded row's generator drew before", .role = Role::kPosition},
                {.name = "q", .dtypes = "f32", .shape = "[B, V]", .optional = true, .meaning = "vllm: Exp(1) noise (random rows without a seed)", .role = Role::kNoise},
                {.name = "seeded", .dtypes = "bool", .shape = "[B]", .optional = true, .meaning = "vllm: the row draws from its own generator keyed by (seed, positions), not from q"}},
               .outputs = {token_out}, .params = {{.name = "order", .type = "string", .default_value = "profile's", .meaning = "filter order (sampling_filters)"},
                             {.name = "sampling_path", .type = "string", .default_value = "auto", .meaning = "sglang only: auto | sorted | unfiltered (SGLang's seeded draw is chosen per batch)"},
                             {.name = "greedy_path", .type = "string", .default_value = "auto", .meaning = "sglang only: auto | argmax | sorted (SGLang's greedy rows depend on the batch)"},
                             {.name = "top_k_one", .type = "string", .default_value = "filter", .meaning = "vllm only: filter (vLLM 9aaf83ef: top_k = 1 keeps ties) | greedy (a later vLLM)"},
                             {.name = "tp_rank", .type = "int", .default_value = "0", .meaning = "the tensor-parallel rank the call runs on; no output may depend on it (docs/spec/tp_consensus.md#per-rank-draws)"}},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = {P::kCanonical, P::kVllm, P::kSglang},
               .spec_section = "docs/spec/pipeline.md",
               .draw = {.target = ExactTargetKind::kPipeline, .noise = HarnessNoise::kSeedPosition, .noise_by_profile = {{P::kVllm, HarnessNoise::kExponential}}, .reference_count_draws = true}});
}

// Speculative decoding: greedy and random verification, the whole speculative step.
void AddSpeculativeStages(std::vector<StageInfo>& c) {
  // Speculative decoding (docs/spec/speculative.md). Every tensor is per request ("[B, ..."),
  // so both stages are row-separable for the batch-invariance check.
  const TensorSpec drafts = {.name = "draft_ids", .dtypes = "i32", .shape = "[B, K]", .meaning = "draft tokens, K >= 0; trailing -1 padding (a row's draft count)", .role = Role::kDrafts};
  const std::vector<TensorSpec> spec_outputs = {
      {.name = "emitted", .dtypes = "i64", .shape = "[B, K + 1]", .meaning = "accepted drafts, then the recovered or bonus token, then -1", .role = Role::kToken},
      {.name = "num_accepted", .dtypes = "i64", .shape = "[B]", .meaning = "accepted drafts per row"}};
  c.push_back({.name = "spec_greedy",
               .summary = "greedy verification: accept drafts equal to the target argmax; emit the argmax at the first mismatch, or the bonus",
               .inputs = {drafts, {.name = "target_logits", .dtypes = kLogitTypes, .shape = "[B, K + 1, V]", .meaning = "target scores per position (argmax as greedy)", .role = Role::kLogits}},
               .outputs = spec_outputs, .params = {},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical},
               .spec_section = "docs/spec/speculative.md#spec_greedy"});
  c.push_back({.name = "spec_random",
               .summary = "rejection sampling of drafts against the target, recovered token from max(p - q, 0), bonus token; noise given",
               .inputs = {drafts,
                {.name = "target_probs", .dtypes = kLogitTypes, .shape = "[B, K + 1, V]", .meaning = "target probabilities per position (after the caller's temperature and filters)", .role = Role::kProbs},
                {.name = "draft_probs", .dtypes = kLogitTypes, .shape = "[B, K, V]", .optional = true, .meaning = "draft probabilities; vllm: absent = n-gram (draft prob 1); typical_acceptance: not read"},
                {.name = "u", .dtypes = "f64|f32", .shape = "[B, K] | [B, K + 1]", .optional = true, .meaning = "vllm: f64 [B, K] in [0, 1); flashinfer: f32 [B, K + 1] in [0, 1]", .role = Role::kNoise},
                {.name = "q", .dtypes = "f32", .shape = "[B, V]", .optional = true, .meaning = "vllm: Exp(1) noise of the recovered token, one vector per request", .role = Role::kNoise},
                {.name = "bonus_q", .dtypes = "f32", .shape = "[B, V]", .optional = true, .meaning = "vllm, typical_acceptance: Exp(1) noise of the bonus token", .role = Role::kNoise}},
               .outputs = spec_outputs,
               .params = {{.name = "posterior_threshold", .type = "float", .default_value = "0.09", .meaning = "typical_acceptance: threshold cap, rounded to f32"},
                {.name = "posterior_alpha", .type = "float", .default_value = "0.3", .meaning = "typical_acceptance: factor on exp(-entropy), rounded to f32"}},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = {P::kVllm, P::kFlashinfer, P::kTypicalAcceptance},
               .spec_section = "docs/spec/speculative.md#spec_random",
               .draw = {.target = ExactTargetKind::kSpecFirstToken, .noise = HarnessNoise::kSpecDrafts}});
  // The whole speculative step (docs/spec/spec_step.md): logits to kept tokens, the request's
  // min_tokens mask, temperature and filters on target AND draft rows, verification, stops.
  c.push_back({.name = "spec_step",
               .summary = "the whole speculative step: min_tokens mask, temperature and filters on target and draft logits, verification (token-wise or block), stop ids",
               .inputs = {drafts,
                {.name = "target_logits", .dtypes = kLogitTypes, .shape = "[B, K + 1, V]", .meaning = "target logits per position (no NaN, no +inf)", .role = Role::kLogits},
                {.name = "draft_logits", .dtypes = kLogitTypes, .shape = "[B, K, V]", .optional = true, .meaning = "draft logits per position; absent: n-gram drafts (canonical, vllm)"},
                {.name = "temperature", .dtypes = "f32", .shape = "[B]", .meaning = "per request; < 1e-5: greedy row (spec_greedy rule)"},
                {.name = "top_k", .dtypes = "i32", .shape = "[B]", .optional = true, .meaning = "filters (sampling_filters canonical), on target and draft rows"},
                {.name = "top_p", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "filters"},
                {.name = "min_p", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "filters"},
                {.name = "stop_ids", .dtypes = "i32", .shape = "[B, S]", .optional = true, .meaning = "stop ids (EOS included), -1 padded"},
                {.name = "min_tokens", .dtypes = "i32", .shape = "[B]", .optional = true, .meaning = ">= 0; stop ids masked while output_len + i < min_tokens"},
                {.name = "output_len", .dtypes = "i32", .shape = "[B]", .optional = true, .meaning = "tokens produced before this step; absent 0"},
                {.name = "u", .dtypes = "f64", .shape = "[B, K]", .optional = true, .meaning = "random rows: U[0, 1) per draft", .role = Role::kNoise},
                {.name = "q", .dtypes = "f32", .shape = "[B, V]", .optional = true, .meaning = "random rows: Exp(1) noise of the recovered token", .role = Role::kNoise},
                {.name = "bonus_q", .dtypes = "f32", .shape = "[B, V]", .optional = true, .meaning = "random rows: Exp(1) noise of the bonus token", .role = Role::kNoise},
                {.name = "final_u", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "sglang random rows: U[0, 1) of the final inverse-CDF draw", .role = Role::kNoise}},
               .outputs = {{.name = "emitted", .dtypes = "i64", .shape = "[B, K + 1]", .meaning = "kept tokens (up to and including a stop), then -1", .role = Role::kToken},
                {.name = "num_accepted", .dtypes = "i64", .shape = "[B]", .meaning = "drafts the verifier accepted (before stops)"},
                {.name = "num_emitted", .dtypes = "i64", .shape = "[B]", .meaning = "tokens kept"},
                {.name = "finished", .dtypes = "bool", .shape = "[B]", .meaning = "a stop id ended the row"}},
               .params = {{.name = "threshold_single", .type = "float", .default_value = "1", .meaning = "sglang: accept a draft whose target probability is >= this"},
                {.name = "threshold_acc", .type = "float", .default_value = "1", .meaning = "sglang: accept iff u <= p(x) / max(this, 1e-9)"},
                {.name = "draft_sample_method", .type = "string", .default_value = "greedy", .meaning = "vllm only: greedy (one-hot drafts) | probabilistic (draft rows read)"}},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = {P::kCanonical, P::kBlockVerification, P::kVllm, P::kSglang},
               .spec_section = "docs/spec/spec_step.md",
               // The draw harness counts the first emitted token (target row 0 after the
               // request's filters) with drafts drawn from the filtered draft rows.
               .draw = {.target = ExactTargetKind::kSpecFirstToken, .noise = HarnessNoise::kSpecDrafts}});
}

// FlashInfer's rejection samplers, logprobs and the finish rules.
void AddSamplerOutputStages(std::vector<StageInfo>& c) {
  const TensorSpec token_out = TokenOut();
  // FlashInfer's rejection samplers from probabilities (docs/spec/flashinfer_sampling_from_probs.md):
  // a stage of its own because it has a valid flag and one uniform per rejection round.
  c.push_back({.name = "flashinfer_sampling_from_probs",
               .summary = "FlashInfer's sorting-free rejection sampling (top_k_top_p joint, top_k, top_p, min_p) given its uniforms",
               .inputs = {{.name = "probs", .dtypes = kLogitTypes, .shape = "[B, V]", .meaning = "probabilities (sum 1: top-p compares absolute mass); >= 0 or NaN (never drawn)", .role = Role::kProbs},
                {.name = "top_k", .dtypes = "i32", .shape = "[B]", .optional = true, .meaning = "kernels top_k_top_p, top_k: read as uint32 (<= 0: nothing passes; < 0: no limit)"},
                {.name = "top_p", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "kernels top_k_top_p, top_p: finite"},
                {.name = "min_p", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "kernel min_p: finite"},
                {.name = "u", .dtypes = "f32", .shape = "[B, R]", .meaning = "U(0, 1] per rejection round, R >= 1 (at most distinct probabilities + 1 used)", .role = Role::kNoise}},
               .outputs = {token_out,
                {.name = "valid", .dtypes = "bool", .shape = "[B]", .meaning = "false: no token passed (NaN row, top_k 0, top_p <= 0...); token is then 0"},
                {.name = "rounds", .dtypes = "i32", .shape = "[B]", .meaning = "uniforms consumed"}},
               .params = {{.name = "kernel", .type = "string", .default_value = "top_k_top_p", .meaning = "top_k_top_p | top_k | top_p | min_p"},
                {.name = "deterministic", .type = "bool", .default_value = "true", .meaning = "FlashInfer's block-scan order; no effect on the law or these outputs"},
                {.name = "filter_apply_order", .type = "string", .default_value = "joint", .meaning = "kernel top_k_top_p: joint | top_k_first (top_k_renorm_probs, then the top_p kernel)"}},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = {P::kFlashinfer},
               .spec_section = "docs/spec/flashinfer_sampling_from_probs.md",
               .draw = {.target = ExactTargetKind::kFlashinferSurvivors, .noise = HarnessNoise::kUniformRounds}});
  // Logprobs (docs/spec/logprobs.md): exact given the canonical softmax; top_ranks and
  // token_rank are absent under sglang (SGLang returns no rank), token_ids_logprobs only when
  // token_ids is given.
  c.push_back({.name = "logprobs",
               .summary = "top-n ids and values, the sampled token's value and rank, requested ids' values, per logprobs mode",
               .inputs = {Logits(),
                {.name = "raw_logits", .dtypes = kLogitTypes, .shape = "[B, V]", .optional = true, .meaning = "the model's row before any processing (raw modes); absent = logits"},
                {.name = "temperature", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "absent: 1; greedy rows by the profile's epsilon"},
                {.name = "top_k", .dtypes = "i32", .shape = "[B]", .optional = true, .meaning = "canonical, vllm processed modes: filters"},
                {.name = "top_p", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "canonical, vllm processed modes: filters"},
                {.name = "min_p", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "canonical, vllm processed modes: filters"},
                {.name = "token", .dtypes = "i64", .shape = "[B]", .meaning = "sampled token id, in [0, V)"},
                {.name = "token_ids", .dtypes = "i32", .shape = "[B, T]", .optional = true, .meaning = "ids whose values are asked (SGLang token_ids_logprob); -1 padded"}},
               .outputs = {{.name = "top_ids", .dtypes = "i64", .shape = "[B, n]", .meaning = "top-n ids: NaN first, larger first, ties by lower index"},
                {.name = "top_values", .dtypes = "f32", .shape = "[B, n]", .meaning = "their values"},
                {.name = "top_ranks", .dtypes = "i64", .shape = "[B, n]", .meaning = "their ranks: canonical 1 + #greater; vllm position + 1; absent under sglang"},
                {.name = "token_logprob", .dtypes = "f32", .shape = "[B]", .meaning = "the sampled token's value"},
                {.name = "token_rank", .dtypes = "i64", .shape = "[B]", .meaning = "canonical 1 + #greater; vllm #greater-or-equal; absent under sglang"},
                {.name = "token_ids_logprobs", .dtypes = "f32", .shape = "[B, T]", .meaning = "only with token_ids: values of the asked ids, NaN at padding"}},
               .params = {{.name = "num_logprobs", .type = "int", .default_value = "0", .meaning = "n, 0 <= n <= V"},
                {.name = "mode", .type = "string", .default_value = "raw_logprobs | temperature", .meaning = "canonical, vllm: raw_logprobs, raw_logits, processed_logprobs, processed_logits; sglang: temperature, original"}},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = {P::kCanonical, P::kVllm, P::kSglang},
               .spec_section = "docs/spec/logprobs.md"});
  // Finish rules (docs/spec/finish_rules.md): the egress decision after each sampled token.
  c.push_back({.name = "finish_rules",
               .summary = "finish reason, stop reason, whether the token reaches the text, and the ids min_tokens bans next step",
               .inputs = {{.name = "token", .dtypes = "i64", .shape = "[B]", .meaning = "this step's sampled id, >= 0"},
                {.name = "output_len", .dtypes = "i32", .shape = "[B]", .meaning = "output tokens including this one, >= 1"},
                {.name = "max_tokens", .dtypes = "i32", .shape = "[B]", .meaning = ">= 1"},
                {.name = "min_tokens", .dtypes = "i32", .shape = "[B]", .meaning = "in [0, max_tokens]"},
                {.name = "ignore_eos", .dtypes = "bool", .shape = "[B]", .meaning = "the request's ignore_eos"},
                {.name = "eos_ids", .dtypes = "i32", .shape = "[B, E]", .meaning = "model EOS ids, primary first, then generation-config extras; -1 padded"},
                {.name = "stop_ids", .dtypes = "i32", .shape = "[B, S]", .meaning = "the request's stop_token_ids; -1 padded"},
                {.name = "keep_stop", .dtypes = "bool", .shape = "[B]", .optional = true, .meaning = "vllm include_stop_str_in_output / sglang no_stop_trim; absent: false"}},
               .outputs = {{.name = "finish_reason", .dtypes = "i32", .shape = "[B]", .meaning = "0 running, 1 stop, 2 length"},
                {.name = "stop_reason", .dtypes = "i64", .shape = "[B]", .meaning = "matched id or -1 (vllm: -1 for the primary EOS)"},
                {.name = "text_keep", .dtypes = "bool", .shape = "[B]", .meaning = "the token reaches the detokenized text"},
                {.name = "next_banned", .dtypes = "i32", .shape = "[B, E + S]", .meaning = "ascending ids set to -inf at the next step; -1 padded"}},
               .params = {},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kCanonical, P::kVllm, P::kSglang},
               .spec_section = "docs/spec/finish_rules.md"});
}

// Decode steps, tensor-parallel consensus and a backend's own noise.
void AddMultiStepAndNoiseStages(std::vector<StageInfo>& c) {
  // Decode steps (docs/spec/decode_steps.md): the pipeline over N steps with the history, the
  // min-tokens count and the noise offset advanced per step; every tensor per row.
  c.push_back({.name = "decode_steps",
               .summary = "N pipeline steps on given per-step logits: history, output_len and noise offset advance with each token",
               .inputs = {{.name = "logits", .dtypes = kLogitTypes, .shape = "[B, N, V]", .meaning = "the model's row at each step, N >= 1", .role = Role::kLogits},
                {.name = "temperature", .dtypes = "f32", .shape = "[B]", .meaning = "per row, fixed across steps"},
                {.name = "output_ids", .dtypes = "i32", .shape = "[B, Lo]", .optional = true, .meaning = "history before step 0 (penalties group); drawn tokens are appended"},
                {.name = "prompt_ids", .dtypes = "i32", .shape = "[B, Lp]", .optional = true, .meaning = "penalties group"},
                {.name = "repetition_penalty", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "penalties group"},
                {.name = "frequency_penalty", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "penalties group"},
                {.name = "presence_penalty", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "penalties group"},
                {.name = "stop_ids", .dtypes = "i32", .shape = "[B, S]", .optional = true, .meaning = "min_new_tokens group (output_len is derived per step)"},
                {.name = "min_tokens", .dtypes = "i32", .shape = "[B]", .optional = true, .meaning = "min_new_tokens group"},
                {.name = "top_k", .dtypes = "i32", .shape = "[B]", .optional = true, .meaning = "filters"},
                {.name = "top_p", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "filters"},
                {.name = "min_p", .dtypes = "f32", .shape = "[B]", .optional = true, .meaning = "filters"},
                {.name = "seed", .dtypes = "i64", .shape = "[B]", .optional = true, .meaning = "canonical, sglang: per-row seed", .role = Role::kSeed},
                {.name = "positions", .dtypes = "i64", .shape = "[B]", .optional = true, .meaning = "canonical, sglang: position of step 0 (step t uses positions + t); vllm with seeded: the steps the generator drew before step 0", .role = Role::kPosition},
                {.name = "q", .dtypes = "f32", .shape = "[B, N, V]", .optional = true, .meaning = "vllm: Exp(1) noise per step (rows without a seed)", .role = Role::kNoise},
                {.name = "seeded", .dtypes = "bool", .shape = "[B]", .optional = true, .meaning = "vllm: the row draws from its own generator (as pipeline)"}},
               .outputs = {{.name = "tokens", .dtypes = "i64", .shape = "[B, N]", .meaning = "the token of each step"}},
               .params = {{.name = "order", .type = "string", .default_value = "profile's", .meaning = "filter order (sampling_filters)"},
                {.name = "sampling_path", .type = "string", .default_value = "auto", .meaning = "sglang only: auto | sorted | unfiltered (as pipeline; fixed across steps)"}},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = {P::kCanonical, P::kVllm, P::kSglang},
               .spec_section = "docs/spec/decode_steps.md"});
  // Tensor-parallel consensus (docs/spec/tp_consensus.md): no vocabulary dimension, ids only.
  c.push_back({.name = "tp_consensus",
               .summary = "the id every tensor-parallel rank keeps: MIN over ranks (sglang) or rank 0's (vllm)",
               .inputs = {{.name = "rank_ids", .dtypes = "i32|i64", .shape = "[R, B]", .meaning = "row r: rank r's sampled ids, each >= 0; R >= 1"}},
               .outputs = {{.name = "token", .dtypes = "i64", .shape = "[B]", .meaning = "agreed id", .role = Role::kToken},
                {.name = "unanimous", .dtypes = "bool", .shape = "[B]", .meaning = "every rank held the same id before consensus"}},
               .params = {},
               .tier = Tier::kExact, .comparison = "exact", .profiles = {P::kSglang, P::kVllm},
               .spec_section = "docs/spec/tp_consensus.md"});
  // A backend's own noise (docs/spec/noise.md): no vocabulary; the statistical noise harness
  // runs on every backend that declares this stage.
  c.push_back({.name = "noise",
               .summary = "a backend's own uniform, exponential or Gumbel noise at a seed and counter range",
               .inputs = {{.name = "seed", .dtypes = "i64", .shape = "[B]", .meaning = "per-row 64-bit seed", .role = Role::kSeed},
                {.name = "offset", .dtypes = "i64", .shape = "[B]", .meaning = "counter of the row's first sample, in [0, 2^62)", .role = Role::kPosition}},
               .outputs = {{.name = "noise", .dtypes = "f32", .shape = "[B, n]", .meaning = "sample i of row b at counter offset[b] + i", .role = Role::kNoise}},
               .params = {{.name = "generator", .type = "string", .default_value = "philox", .meaning = "philox (cuRAND stream, subsequence 0) | murmur3 (SGLang key layout)"},
                {.name = "law", .type = "string", .default_value = "(required)", .meaning = "uniform | exponential | gumbel"},
                {.name = "n", .type = "int", .default_value = "1", .meaning = "samples per row, in [0, 2^24]"}},
               .tier = Tier::kCanonical, .comparison = "exact", .profiles = {P::kCanonical},
               .spec_section = "docs/spec/noise.md"});
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
