// SPDX-License-Identifier: Apache-2.0
// The flashinfer_sampling_from_probs case families
// (harness/stat_cases/flashinfer_sampling_from_probs_stat_cases.h, docs/spec/harness.md).
#include "harness/stat_cases/flashinfer_sampling_from_probs_stat_cases.h"

#include <string>

namespace sampcheck::statistical {
namespace {

constexpr std::int64_t kVocab = 16;

std::vector<float> LinearRow() {
  std::vector<float> p;
  float sum = 0.0f;
  for (std::int64_t i = 0; i < kVocab; ++i) {
    p.push_back(static_cast<float>(kVocab - i));
    sum = sum + p.back();
  }
  for (float& x : p) x /= sum;  // sum = 136, exact
  return p;
}

StatCase Make(const std::string& family_name, const std::string& family, const std::string& kernel,
              const std::vector<std::int32_t>& top_k, const std::vector<float>& top_p,
              const std::vector<float>& min_p) {
  const auto rows = static_cast<std::int64_t>(top_k.size());
  std::vector<float> probs;
  for (std::int64_t b = 0; b < rows; ++b) {
    const std::vector<float> row = LinearRow();
    probs.insert(probs.end(), row.begin(), row.end());
  }
  StatCase s;
  s.id = "stats/flashinfer_sampling_from_probs/" + family_name + "/flashinfer";
  s.family = family;
  s.input.id = s.id;
  s.input.stage = "flashinfer_sampling_from_probs";
  s.input.profile = Profile::kFlashinfer;
  s.input.params["kernel"] = kernel;
  s.input.inputs.emplace("probs", Tensor::FromValues(DType::kF32, {rows, kVocab}, probs));
  s.input.inputs.emplace("top_k", Tensor::FromValues(DType::kI32, {rows}, top_k));
  s.input.inputs.emplace("top_p", Tensor::FromValues(DType::kF32, {rows}, top_p));
  s.input.inputs.emplace("min_p", Tensor::FromValues(DType::kF32, {rows}, min_p));
  s.mde_tv_ci = 0.05;
  s.mde_tv_thorough = 0.01;
  s.targeted_ratio = 0.0;
  return s;
}

StatCase TopKFirst(StatCase s) {
  s.input.params["filter_apply_order"] = "top_k_first";
  return s;
}

}  // namespace

std::vector<StatCase> FlashinferSamplingFromProbsStatCases() {
  return {
      Make("joint_v16", "FlashInfer joint top-k/top-p rejection sampling: top-k binds on row 0, top-p on row 1, V = 16",
           "top_k_top_p", {4, 16}, {0.95f, 0.7f}, {0.0f, 0.0f}),
      Make("top_p_v16", "FlashInfer top-p rejection sampling, top_p 0.5, V = 16", "top_p", {0}, {0.5f}, {0.0f}),
      Make("min_p_v16", "FlashInfer min-p sampling, min_p 0.3, V = 16", "min_p", {0}, {1.0f}, {0.3f}),
      TopKFirst(Make("top_k_first_v16",
                     "FlashInfer top_k_first order (top_k_renorm_probs, then top-p on the renormalised row): "
                     "k 4 / top_p 0.5 and k 8 / top_p 0.6, where the joint order keeps more tokens, V = 16",
                     "top_k_top_p", {4, 8}, {0.5f, 0.6f}, {0.0f, 0.0f})),
      Make("joint_order_v16",
           "FlashInfer joint order on top_k_first_v16's rows (k 4 / top_p 0.5, k 8 / top_p 0.6), where top_k_first "
           "keeps fewer tokens, V = 16",
           "top_k_top_p", {4, 8}, {0.5f, 0.6f}, {0.0f, 0.0f}),
  };
}

SAMPCHECK_STAT_FAMILY(FlashinferSamplingFromProbs, {.position = 900, .cases = FlashinferSamplingFromProbsStatCases});

}  // namespace sampcheck::statistical
