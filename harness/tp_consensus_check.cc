// SPDX-License-Identifier: Apache-2.0
// Per-rank draws under tensor parallelism (harness/tp_consensus_check.h,
// docs/spec/tp_consensus.md "Per-rank draws").
#include "harness/tp_consensus_check.h"

#include <algorithm>
#include <exception>
#include <string>

#include "core/exception_text.h"
#include "core/selection.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "golden/case_list.h"
#include "harness/check_result.h"
#include "harness/claimed_profiles.h"
#include "reference/tp_consensus.h"

namespace sampcheck::harness {

namespace {

// This file is tp_consensus' own harness: it names the stage whose draws the ranks make and
// the consensus stage.
constexpr char kTpPipelineStage[] = "pipeline";
constexpr char kTpConsensusStage[] = "tp_consensus";
constexpr std::int64_t kTpRows = 8, kTpVocab = 64, kTpFlatRows = 6;
constexpr std::uint64_t kTpCaseSeed = 0x7b4a11c0ULL;

bool TpClaims(Backend& backend, const std::string& stage, Profile profile) {
  const auto supported = backend.SupportedStages();
  return std::find(supported.begin(), supported.end(), stage) != supported.end() &&
         backend.Capabilities(stage).profiles.Contains(profile);
}

// The consensus of the ranks' ids: the backend's own tp_consensus when it claims the profile,
// else the reference's; canonical under sglang's MIN (tp_consensus has no canonical profile).
TensorMap TpConsensus(Backend& backend, Profile profile, Tensor rank_ids) {
  const auto& consensus_profiles = RequireStage(kTpConsensusStage).profiles;
  const Profile under = std::find(consensus_profiles.begin(), consensus_profiles.end(), profile) != consensus_profiles.end()
                            ? profile
                            : Profile::kSglang;
  Case c;
  c.id = std::string(kTpConsensusStage) + "_check/" + std::string(ProfileName(profile)) + " > consensus";
  c.stage = kTpConsensusStage;
  c.profile = under;
  c.params = nlohmann::json::object();
  c.inputs.emplace("rank_ids", std::move(rank_ids));
  if (TpClaims(backend, kTpConsensusStage, under)) return backend.Run(kTpConsensusStage, c);
  return reference::RunTpConsensus(c, under);
}

std::string TpCheckRanks(Backend& backend, const Case& c) {
  std::vector<Case> ranks(kTpCheckRanks, c);
  std::vector<const Case*> runs;
  for (int r = 0; r < kTpCheckRanks; ++r) {
    ranks[static_cast<std::size_t>(r)].id = c.id + " > rank " + std::to_string(r);
    ranks[static_cast<std::size_t>(r)].params["tp_rank"] = r;
    runs.push_back(&ranks[static_cast<std::size_t>(r)]);
  }
  const auto outcomes = backend.RunBatch(kTpPipelineStage, runs, {});
  if (outcomes.size() != runs.size()) {
    return "the backend returned " + std::to_string(outcomes.size()) + " outcomes for " + std::to_string(runs.size()) + " ranks";
  }
  Tensor rank_ids(DType::kI64, {kTpCheckRanks, kTpRows});
  auto ids = rank_ids.data<std::int64_t>();
  for (int r = 0; r < kTpCheckRanks; ++r) {
    const auto& o = outcomes[static_cast<std::size_t>(r)];
    if (!o.error.empty()) return "rank " + std::to_string(r) + ": the backend failed: " + o.error;
    auto it = o.outputs.find("token");
    if (it == o.outputs.end() || it->second.dtype() != DType::kI64 || it->second.shape() != Shape{kTpRows}) {
      return "rank " + std::to_string(r) + ": the backend returned no i64 'token' [8]";
    }
    for (std::int64_t b = 0; b < kTpRows; ++b) {
      const std::int64_t x = it->second.data<std::int64_t>()[static_cast<std::size_t>(b)];
      if (x < 0 || x >= kTpVocab) return "rank " + std::to_string(r) + ", row " + std::to_string(b) + ": token " + std::to_string(x) + " is not in [0, 64)";
      ids[static_cast<std::size_t>(r * kTpRows + b)] = x;
    }
  }
  for (int r = 1; r < kTpCheckRanks; ++r) {
    for (std::int64_t b = 0; b < kTpRows; ++b) {
      const std::int64_t mine = ids[static_cast<std::size_t>(r * kTpRows + b)], first = ids[static_cast<std::size_t>(b)];
      if (mine != first) {
        return "rank " + std::to_string(r) + " drew " + std::to_string(mine) + " on row " + std::to_string(b) +
               ", rank 0 drew " + std::to_string(first) +
               " from the same inputs and seed: the draw depends on the rank (rank-keyed or unseeded noise), so the "
               "consensus moves the law";
      }
    }
  }
  const TensorMap agreed = TpConsensus(backend, c.profile, rank_ids);
  auto token = agreed.find("token");
  auto unanimous = agreed.find("unanimous");
  if (token == agreed.end() || unanimous == agreed.end() || token->second.shape() != Shape{kTpRows} ||
      unanimous->second.shape() != Shape{kTpRows} || token->second.dtype() != DType::kI64 ||
      unanimous->second.dtype() != DType::kBool) {
    return "tp_consensus returned no i64 'token' [8] and bool 'unanimous' [8]";
  }
  for (std::int64_t b = 0; b < kTpRows; ++b) {
    const auto i = static_cast<std::size_t>(b);
    if (token->second.data<std::int64_t>()[i] != ids[i] || unanimous->second.data<std::uint8_t>()[i] == 0) {
      return "row " + std::to_string(b) + ": every rank drew " + std::to_string(ids[i]) + ", but tp_consensus gives token " +
             std::to_string(token->second.data<std::int64_t>()[i]) + ", unanimous " +
             std::to_string(unanimous->second.data<std::uint8_t>()[i]);
    }
  }
  return "";
}

}  // namespace

Case TpRanksCheckCase(Profile profile) {
  SplitMix64 rng(kTpCaseSeed);
  std::vector<float> logits(static_cast<std::size_t>(kTpRows * kTpVocab), 0.0f);
  for (std::int64_t b = kTpFlatRows; b < kTpRows; ++b) {
    for (std::int64_t j = 0; j < kTpVocab; ++j) logits[static_cast<std::size_t>(b * kTpVocab + j)] = 3.0f - static_cast<float>(j) / 8.0f;
  }
  Tensor q(DType::kF32, {kTpRows, kTpVocab});
  for (float& x : q.data<float>()) x = 1.0f;  // read by no row: every vllm row has its own generator
  Case c;
  c.id = std::string(kTpConsensusStage) + "_check/" + std::string(ProfileName(profile));
  c.stage = kTpPipelineStage;
  c.profile = profile;
  c.params = nlohmann::json::object();
  if (profile == Profile::kSglang) c.params["sampling_path"] = "sorted";
  c.inputs = {{"logits", golden::F32({kTpRows, kTpVocab}, logits)},
              {"temperature", golden::F32({kTpRows}, {1, 1, 1, 1, 1, 1, 0.8f, 0.8f})},
              {"top_k", golden::I32({kTpRows}, {0, 0, 0, 0, 0, 0, 16, 16})},
              {"seed", golden::RandomSeeds(rng, kTpRows)},
              {"positions", golden::RandomPositions(rng, kTpRows)},
              {"q", std::move(q)}};
  if (profile == Profile::kVllm) {
    Tensor seeded(DType::kBool, {kTpRows});
    for (auto& s : seeded.data<std::uint8_t>()) s = 1;
    c.inputs.emplace("seeded", std::move(seeded));
  }
  return c;
}

std::vector<CaseResult> CheckTpRanks(Backend& backend, const std::vector<std::string>& stages,
                                     const std::vector<std::string>& profiles) {
  std::vector<CaseResult> results;
  for (Profile profile : ClaimedProfiles(backend, kTpPipelineStage, stages, profiles)) {
    const std::string name(ProfileName(profile));
    std::string reason;
    try {
      reason = TpCheckRanks(backend, TpRanksCheckCase(profile));
    } catch (const std::exception& e) {
      reason = "the backend failed: " + ExceptionText(e);
    }
    results.push_back(ExactCheckResult(std::string(kTpConsensusStage) + "_check/" + name + "/ranks", std::string(kTpPipelineStage),
                                       name, std::move(reason)));
  }
  return results;
}

}  // namespace sampcheck::harness
