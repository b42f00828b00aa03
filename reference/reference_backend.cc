// SPDX-License-Identifier: Apache-2.0
// Stage dispatch of the reference backend (reference/reference_backend.h).
#include "reference/reference_backend.h"

#include <map>

#include "core/error.h"
#include "core/stage_catalogue.h"
#include "reference/allowed_token_ids.h"
#include "reference/ascend_top_k_top_p_sample_v2.h"
#include "reference/bad_words.h"
#include "reference/count_draws.h"
#include "reference/exponential_race.h"
#include "reference/greedy.h"
#include "reference/gumbel_max.h"
#include "reference/inverse_cdf.h"
#include "reference/logit_bias.h"
#include "reference/min_p.h"
#include "reference/min_new_tokens.h"
#include "reference/nan_handling.h"
#include "reference/penalties.h"
#include "reference/pipeline.h"
#include "reference/qsample.h"
#include "reference/sampling_filters.h"
#include "reference/seeded_gumbel.h"
#include "reference/softmax.h"
#include "reference/spec_greedy.h"
#include "reference/spec_random.h"
#include "reference/temperature.h"
#include "reference/token_bitmask.h"
#include "reference/top_k.h"
#include "reference/top_p.h"
#include "reference/tp_consensus.h"

namespace sampcheck::reference {

namespace {
using StageFn = TensorMap (*)(const Case&, Profile);

const std::map<std::string, StageFn>& Stages() {
  static const std::map<std::string, StageFn> stages = {
      {"allowed_token_ids", RunAllowedTokenIds},
      {"ascend_top_k_top_p_sample_v2", RunAscendTopKTopPSampleV2},
      {"bad_words", RunBadWords},
      {"exponential_race", RunExponentialRace},
      {"greedy", RunGreedy},
      {"gumbel_max", RunGumbelMax},
      {"inverse_cdf", RunInverseCdf},
      {"log_softmax", RunLogSoftmax},
      {"logit_bias", RunLogitBias},
      {"min_new_tokens", RunMinNewTokens},
      {"min_p", RunMinP},
      {"multinomial_with_seed", RunMultinomialWithSeed},
      {"multinomial_with_seed_token_ids", RunMultinomialWithSeedTokenIds},
      {"nan_handling", RunNanHandling},
      {"penalties", RunPenalties},
      {"pipeline", RunPipeline},
      {"qsample", RunQSample},
      {"sampling_filters", RunSamplingFilters},
      {"softmax", RunSoftmax},
      {"spec_greedy", RunSpecGreedy},
      {"spec_random", RunSpecRandom},
      {"temperature", RunTemperature},
      {"token_bitmask", RunTokenBitmask},
      {"top_k", RunTopK},
      {"top_p", RunTopP},
      {"tp_consensus", RunTpConsensus},
  };
  return stages;
}
}  // namespace

std::vector<std::string> ReferenceBackend::SupportedStages() const {
  std::vector<std::string> names;
  for (const auto& [name, fn] : Stages()) names.push_back(name);
  return names;
}

TensorMap ReferenceBackend::Run(const std::string& stage, const Case& c) {
  const StageInfo& info = RequireStage(stage);
  RequireStageProfile(info, c.profile);
  auto it = Stages().find(stage);
  if (it == Stages().end()) {
    throw InputError("backend 'reference' does not implement stage '" + stage + "'");
  }
  return it->second(c, ParseProfile(c.profile));
}

bool ReferenceBackend::SupportsCountDraws(const std::string& stage) const { return SupportsCountDrawsStage(stage); }

Tensor ReferenceBackend::CountDraws(const std::string& stage, const Case& c, std::int64_t draws, std::uint64_t seed) {
  return CountDrawsRange(stage, c, 0, draws, seed);
}

Tensor ReferenceBackend::CountDrawsRange(const std::string& stage, const Case& c, std::int64_t first_draw,
                                         std::int64_t draws, std::uint64_t seed) {
  const StageInfo& info = RequireStage(stage);
  RequireStageProfile(info, c.profile);
  if (!SupportsCountDrawsStage(stage)) {
    throw InputError("backend 'reference' cannot draw stage '" + stage + "' with its own randomness");
  }
  if (c.stage == stage) return ReferenceCountDraws(c, draws, seed, first_draw);
  Case named = c;
  named.stage = stage;
  return ReferenceCountDraws(named, draws, seed, first_draw);
}

}  // namespace sampcheck::reference
