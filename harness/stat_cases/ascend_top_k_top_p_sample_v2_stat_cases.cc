// SPDX-License-Identifier: Apache-2.0
// ascend_top_k_top_p_sample_v2's statistical case family (docs/spec/harness.md "Families").
// Registered with SAMPCHECK_STAT_FAMILY (harness/stat_cases/stat_cases.h).
#include <cstdint>
#include <vector>

#include "core/profile.h"
#include "harness/stat_cases/stat_case_inputs.h"
#include "harness/stat_cases/stat_cases.h"

namespace sampcheck::statistical {
namespace {

std::vector<StatCase> AscendV2Cases() {
  StatCaseList list;
  // Ascend's TopKTopPSampleV2 as one op: top-k -> top-p -> min-p on the softmax of the top-k
  // survivors, then QSample with Exp(1) noise indexed by list position. Row 0 has all three
  // filters active (k = 60 of 100, p = 0.9, min-p 0.03 against the survivors' maximum); row 1
  // has top-k off (k = 0) so top-p runs over the whole sorted row.
  {
    const std::vector<float> l = Linear(100, 0.05f);
    Case c{"stats/ascend_top_k_top_p_sample_v2/decay_v100/ascend_v2",
           "ascend_top_k_top_p_sample_v2",
           Profile::kAscendV2,
           nlohmann::json::object(),
           {}};
    std::vector<float> logits(l);
    logits.insert(logits.end(), l.begin(), l.end());
    c.inputs.emplace("logits", Tensor::FromValues(DType::kF32, {2, 100}, logits));
    c.inputs.emplace("top_k", Tensor::FromValues<std::int32_t>(DType::kI32, {2}, {60, 0}));
    c.inputs.emplace("top_p", Tensor::FromValues<float>(DType::kF32, {2}, {0.9f, 0.6f}));
    c.inputs.emplace("min_p", Tensor::FromValues<float>(DType::kF32, {2}, {0.03f, 0.0f}));
    list.Add("Ascend TopKTopPSampleV2: filters then QSample, V = 100", std::move(c), 0.05, 0.01, 0.0);
  }
  return list.cases;
}

}  // namespace

SAMPCHECK_STAT_FAMILY(AscendTopKTopPSampleV2, {.position = 400, .cases = AscendV2Cases});

}  // namespace sampcheck::statistical
