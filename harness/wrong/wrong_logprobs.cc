// SPDX-License-Identifier: Apache-2.0
// logprobs planted wrong (docs/spec/logprobs.md "Planted faults"): each rejected by a golden case.
//
// Contract (what each planted bug changes -> the case or check that must reject it):
// - logprob_rank_off_by_one      every token_rank output is one less (the rank as the count
//                                of strictly greater entries, without the +1)
//                                -> logprobs/edges_n3_raw_logprobs/canonical
// - logprob_top_ranks_dedup      every top_ranks entry listed after the sampled token is one
//                                less (the sampled token deduplicated out of the alternatives'
//                                ranking; top_ids and top_values unchanged)
//                                -> logprobs/random_v33_f32_raw_logprobs/ (row 0's token is
//                                its argmax, listed first)
// - logprobs_before_temperature  cases with a processed_* mode lose their temperature input:
//                                the processed values are taken before the division (and
//                                the filters read unscaled logits)
//                                -> logprobs/random_v33_f32_processed_logprobs/
// Each registers itself with SAMPCHECK_WRONG_SAMPLER (harness/wrong/wrong_samplers.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/half.h"
#include "core/profile.h"
#include "core/split_mix64.h"
#include "core/stage_catalogue.h"
#include "harness/wrong/wrong_backend.h"
#include "harness/wrong/wrong_samplers.h"
#include "reference/decode_steps.h"
#include "reference/pipeline.h"
#include "reference/reference_backend.h"
#include "reference/spec_step.h"
#include "reference/stage_io.h"

namespace sampcheck::statistical {
namespace {

class LogprobRankOffByOne final : public ExactFaultBackend {
 public:
  LogprobRankOffByOne() : ExactFaultBackend("logprob_rank_off_by_one") {}

 protected:
  TensorMap Corrupt(TensorMap out) override {
    auto it = out.find("token_rank");
    if (it == out.end()) return out;
    for (auto& r : it->second.data<std::int64_t>()) r -= 1;  // #greater, the +1 forgotten
    return out;
  }
};

class LogprobTopRanksDedup final : public ExactFaultBackend {
 public:
  LogprobTopRanksDedup() : ExactFaultBackend("logprob_top_ranks_dedup") {}

 protected:
  TensorMap CorruptFor(const Case& c, TensorMap out) override {
    auto ranks = out.find("top_ranks");
    auto token = c.inputs.find("token");
    if (ranks == out.end() || token == c.inputs.end() || ranks->second.rank() != 2) return out;
    const std::int64_t rows = ranks->second.dim(0), n = ranks->second.dim(1);
    const auto ids = out.at("top_ids").data<std::int64_t>();
    auto r = ranks->second.data<std::int64_t>();
    for (std::int64_t b = 0; b < rows; ++b) {
      const std::int64_t tok = token->second.data<std::int64_t>()[static_cast<std::size_t>(b)];
      bool after = false;  // the sampled token taken out of the list: the ids after it move up one
      for (std::int64_t j = 0; j < n; ++j) {
        const auto k = static_cast<std::size_t>(b * n + j);
        if (after) r[k] -= 1;
        if (ids[k] == tok) after = true;
      }
    }
    return out;
  }
};

class LogprobsBeforeTemperature final : public ExactFaultBackend {
 public:
  LogprobsBeforeTemperature() : ExactFaultBackend("logprobs_before_temperature") {}

 protected:
  Case Transform(const Case& c) override {
    if (!c.params.contains("mode") || !c.params["mode"].is_string()) return c;
    if (c.params["mode"].get<std::string>().rfind("processed_", 0) != 0) return c;
    Case wrong = c;
    wrong.inputs.erase("temperature");  // every row at temperature 1
    return wrong;
  }
};

std::unique_ptr<Backend> MakeLogprobRankOffByOne() { return std::make_unique<LogprobRankOffByOne>(); }

std::unique_ptr<Backend> MakeLogprobTopRanksDedup() { return std::make_unique<LogprobTopRanksDedup>(); }

std::unique_ptr<Backend> MakeLogprobsBeforeTemperature() { return std::make_unique<LogprobsBeforeTemperature>(); }

}  // namespace

SAMPCHECK_WRONG_SAMPLER(LogprobRankOffByOne, {{"logprob_rank_off_by_one", "the sampled token's rank misses its +1", "logprobs/edges_n3_raw_logprobs/canonical",
        "golden"},
       MakeLogprobRankOffByOne});
SAMPCHECK_WRONG_SAMPLER(LogprobTopRanksDedup, {{"logprob_top_ranks_dedup", "the top-n ranks after a listed sampled token are one less (the token deduplicated)",
        "logprobs/random_v33_f32_raw_logprobs/", "golden"},
       MakeLogprobTopRanksDedup});
SAMPCHECK_WRONG_SAMPLER(LogprobsBeforeTemperature, {{"logprobs_before_temperature", "processed logprobs are taken before the temperature divides the logits",
        "logprobs/random_v33_f32_processed_logprobs/", "golden"},
       MakeLogprobsBeforeTemperature});

}  // namespace sampcheck::statistical
