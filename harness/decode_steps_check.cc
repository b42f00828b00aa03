// SPDX-License-Identifier: Apache-2.0
// The multi-step harness of decode_steps (harness/decode_steps_check.h,
// docs/spec/decode_steps.md "The multi-step harness").
#include "harness/decode_steps_check.h"

#include <algorithm>
#include <exception>
#include <iterator>
#include <string>

#include "core/error.h"
#include "core/exception_text.h"
#include "core/selection.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "golden/case_list.h"
#include "harness/check_result.h"
#include "harness/claimed_profiles.h"
#include "golden/case_random.h"
#include "harness/batch_invariance.h"
#include "reference/decode_steps.h"
#include "reference/pipeline.h"
#include "reference/rng/noise.h"
#include "statistical/exact_tests.h"

namespace sampcheck::harness {

namespace {

// This file is decode_steps' own harness: it names its stage and the pipeline it steps.
constexpr char kStage[] = "decode_steps";
constexpr char kPipelineStage[] = "pipeline";
constexpr std::int64_t kRows = 8, kSteps = 8, kVocab = 64, kFlatRows = 4;
constexpr std::uint64_t kCaseSeed = 0xdec0de57e95ULL;

Tensor RunOne(Backend& backend, const std::string& stage, const Case& c, const std::string& output) {
  const TensorMap out = backend.Run(stage, c);
  auto it = out.find(output);
  if (it == out.end()) throw InputError("the backend's " + stage + " returned no '" + output + "' for " + c.id);
  return it->second;
}

// vllm: the rows with their own generator must not read the batch-global noise. The case
// again with every q entry replaced by another Exp(1) value (its own SplitMix64 stream): the
// seeded rows' tokens must not change (the others may).
std::string GeneratorIgnoresGlobalNoise(Backend& backend, const Case& c, const Tensor& tokens) {
  auto seeded = c.inputs.find("seeded");
  if (seeded == c.inputs.end()) return "";
  Case other = c;
  SplitMix64 rng(kCaseSeed ^ 0x9e0ba1u);
  for (float& x : other.inputs.at("q").data<float>()) x = rng::ExponentialNegLogF32((static_cast<float>(rng.Next() >> 41) + 0.5f) * 0x1p-23f);
  const TensorMap out = backend.Run(kStage, other);
  auto it = out.find("tokens");
  if (it == out.end() || it->second.dtype() != DType::kI64 || it->second.shape() != tokens.shape()) {
    return "the backend's decode_steps with other global noise returned no i64 'tokens' [8, 8]";
  }
  for (std::int64_t b = 0; b < kRows; ++b) {
    if (seeded->second.data<std::uint8_t>()[static_cast<std::size_t>(b)] == 0) continue;
    for (std::int64_t t = 0; t < kSteps; ++t) {
      const auto at = static_cast<std::size_t>(b * kSteps + t);
      if (it->second.data<std::int64_t>()[at] != tokens.data<std::int64_t>()[at]) {
        return "row " + std::to_string(b) + " has its own generator (seeded), but its step-" + std::to_string(t) +
               " token changes from " + std::to_string(tokens.data<std::int64_t>()[at]) + " to " +
               std::to_string(it->second.data<std::int64_t>()[at]) +
               " when only the batch-global noise q changes: a seeded row draws from the global noise";
      }
    }
  }
  return "";
}

std::string SeedsCheck(Backend& backend, const Case& c) {
  InvarianceOptions options;
  options.seed = golden::CaseSeed(kCaseSeed, c.id + "/seeds");
  const InvarianceResult r = CheckBatchInvariance(backend, c, {&c}, options);
  return r.checked && r.passed ? "" : r.reason;
}

std::string HistoryCheck(Backend& backend, const Case& c, Profile profile, const Tensor& tokens) {
  if (tokens.dtype() != DType::kI64 || tokens.shape() != Shape{kRows, kSteps}) {
    return "'tokens' has shape " + ShapeString(tokens.shape()) + " (" + std::string(DTypeName(tokens.dtype())) +
           "), expected i64 [8, 8]";
  }
  const auto supported = backend.SupportedStages();
  const bool own_pipeline = std::find(supported.begin(), supported.end(), kPipelineStage) != supported.end() &&
                            backend.Capabilities(kPipelineStage).profiles.Contains(c.profile);
  const auto drawn = tokens.data<std::int64_t>();
  for (std::int64_t x : drawn) {
    if (x < 0 || x >= kVocab) return "'tokens' holds " + std::to_string(x) + ", not a token id in [0, 64)";
  }
  std::string reason;
  std::int64_t t = 0;
  // The stage's own rule builds each step from the backend's earlier tokens (teacher forcing):
  // the callback answers the backend's token, so step t + 1 sees what the backend drew.
  reference::RunDecodeStepsOn(c, profile, {}, [&](const Case& step) {
    const Tensor want = own_pipeline ? RunOne(backend, kPipelineStage, step, "token")
                                     : reference::RunPipeline(step, profile).at("token");
    Tensor got(DType::kI64, {kRows});
    for (std::int64_t b = 0; b < kRows; ++b) {
      const std::int64_t token = drawn[static_cast<std::size_t>(b * kSteps + t)];
      got.data<std::int64_t>()[static_cast<std::size_t>(b)] = token;
      const std::int64_t expected = want.data<std::int64_t>()[static_cast<std::size_t>(b)];
      if (reason.empty() && expected != token) {
        reason = "step " + std::to_string(t) + ", row " + std::to_string(b) + ": token " + std::to_string(token) +
                 ", but the " + (own_pipeline ? "backend's" : "reference") +
                 " pipeline on that step's history, output_len and noise offset gives " + std::to_string(expected);
      }
    }
    ++t;
    TensorMap out;
    out.emplace("token", std::move(got));
    return out;
  });
  return reason;
}

std::string FreshNoiseCheck(const Tensor& tokens) {
  const auto drawn = tokens.data<std::int64_t>();
  std::int64_t repeats = 0;
  for (std::int64_t b = 0; b < kFlatRows; ++b) {
    for (std::int64_t t = 1; t < kSteps; ++t) {
      repeats += drawn[static_cast<std::size_t>(b * kSteps + t)] == drawn[static_cast<std::size_t>(b * kSteps)];
    }
  }
  const std::int64_t trials = kFlatRows * (kSteps - 1);
  const auto test = statistical::BinomialTest(repeats, trials, 1.0 / kVocab, statistical::Alternative::kGreater);
  if (test.p_value >= kFreshNoiseAlpha) return "";
  return std::to_string(repeats) + " of " + std::to_string(trials) +
         " later steps of the flat rows repeat the row's step-0 token (expected 0.44 with fresh noise, p = " +
         std::to_string(test.p_value) + " < 1e-6): steps reuse noise";
}

}  // namespace

Case DecodeStepsCheckCase(Profile profile) {
  SplitMix64 rng(kCaseSeed);
  Tensor logits(DType::kF32, {kRows, kSteps, kVocab});
  auto l = logits.data<float>();
  for (std::int64_t b = 0; b < kRows; ++b) {
    for (std::int64_t t = 0; t < kSteps; ++t) {
      for (std::int64_t j = 0; j < kVocab; ++j) {
        // Flat rows 0; the others 3 - j / 8 (exact in f32): token 0 leads, each drawn token
        // is pushed down by its penalty.
        l[static_cast<std::size_t>((b * kSteps + t) * kVocab + j)] = b < kFlatRows ? 0.0f : 3.0f - static_cast<float>(j) / 8.0f;
      }
    }
  }
  Tensor q(DType::kF32, {kRows, kSteps, kVocab});
  for (float& x : q.data<float>()) {
    // Exp(1) from a 23-bit midpoint uniform in (0, 1), the owned law (no libm).
    x = rng::ExponentialNegLogF32((static_cast<float>(rng.Next() >> 41) + 0.5f) * 0x1p-23f);
  }
  Case c;
  c.id = std::string(kStage) + "_check/" + std::string(ProfileName(profile));
  c.stage = kStage;
  c.profile = profile;
  c.params = nlohmann::json::object();
  if (profile == Profile::kSglang) c.params["sampling_path"] = "sorted";  // alone as in a batch
  c.inputs = {
      {"logits", std::move(logits)},
      {"temperature", golden::F32({kRows}, {1, 1, 1, 1, 0, 0, 0.8f, 0.8f})},
      {"output_ids", golden::I32({kRows, 2}, {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 5, 9, 1, -1})},
      {"repetition_penalty", golden::F32({kRows}, {1, 1, 1, 1, 1, 1, 1.25f, 1.25f})},
      {"frequency_penalty", golden::F32({kRows}, {0, 0, 0, 0, 1, 1, 0.5f, 0.5f})},
      {"presence_penalty", golden::F32({kRows}, {0, 0, 0, 0, 0, 0, 0.25f, 0.25f})},
      {"stop_ids", golden::I32({kRows, 1}, {-1, -1, -1, -1, -1, -1, 0, 0})},
      {"min_tokens", golden::I32({kRows}, {0, 0, 0, 0, 0, 0, 3, 3})},
      {"top_k", golden::I32({kRows}, {0, 0, 0, 0, 0, 0, 16, 16})},
      {"seed", golden::RandomSeeds(rng, kRows)},
      {"positions", golden::RandomPositions(rng, kRows)},
      {"q", std::move(q)}};
  // vllm: rows 0-1 (flat), 4 (greedy) and 6 (random history) are requests with their own
  // generator (seed, positions); 2-3, 5 and 7 draw from the batch-global q.
  if (profile == Profile::kVllm) {
    Tensor seeded(DType::kBool, {kRows});
    const std::uint8_t flags[kRows] = {1, 1, 0, 0, 1, 0, 1, 0};
    std::copy(std::begin(flags), std::end(flags), seeded.data<std::uint8_t>().begin());
    c.inputs.emplace("seeded", std::move(seeded));
  }
  return c;
}

std::vector<CaseResult> CheckDecodeSteps(Backend& backend, const std::vector<std::string>& stages,
                                         const std::vector<std::string>& profiles) {
  std::vector<CaseResult> results;
  for (Profile profile : ClaimedProfiles(backend, kStage, stages, profiles)) {
    const std::string name(ProfileName(profile));
    const Case c = DecodeStepsCheckCase(profile);
    std::string seeds, history, fresh;
    try {
      seeds = SeedsCheck(backend, c);
      const Tensor tokens = RunOne(backend, kStage, c, "tokens");
      history = HistoryCheck(backend, c, profile, tokens);
      if (seeds.empty() && history.rfind("'tokens'", 0) != 0) seeds = GeneratorIgnoresGlobalNoise(backend, c, tokens);
      fresh = history.rfind("'tokens'", 0) == 0 ? history : FreshNoiseCheck(tokens);
    } catch (const std::exception& e) {
      const std::string why = "the backend failed: " + ExceptionText(e);
      if (seeds.empty()) seeds = why;
      history = fresh = why;
    }
    for (const auto& [check, reason] : {std::pair<const char*, std::string>{"seeds", seeds},
                                        {"history", history},
                                        {"fresh_noise", fresh}}) {
      results.push_back(ExactCheckResult(std::string(kStage) + "_check/" + name + "/" + check, std::string(kStage), name, reason));
    }
  }
  return results;
}

}  // namespace sampcheck::harness
