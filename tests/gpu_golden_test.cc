// SPDX-License-Identifier: Apache-2.0
// The gpu-emulated backend on golden/v1 (docs/gpu.md "Backends"): every case of every stage it
// claims passes bitwise with the emulator's checks on, the stages without a kernel are skipped,
// and it claims only stages that have kernels. The expected outputs are the checked-in goldens.
#include <algorithm>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/profile.h"
#include "core/stage_catalogue.h"
#include "golden/verifier.h"
#include "gpu/backend/gpu_backend.h"

namespace sampcheck::gpu {
namespace {

TEST(GpuEmulatedGolden, PassesEveryGoldenOfItsStages) {
  auto backend = MakeGpuEmulatedBackend();
  const std::vector<std::string> stages = backend->SupportedStages();
  const std::set<std::string> claimed(stages.begin(), stages.end());
  const auto results = golden::VerifyGoldenSet(SAMPCHECK_SOURCE_DIR "/golden/v1", *backend);
  int passed = 0;
  for (const auto& r : results) {
    // A claimed stage's cases pass, except those of a profile the backend does not declare
    // (docs/gpu.md "Skips"), which are skipped.
    if (claimed.count(r.stage) != 0 && backend->Capabilities(r.stage).profiles.Contains(ParseProfile(r.profile))) {
      EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
      passed += r.verdict == Verdict::kPass;
    } else {
      EXPECT_EQ(r.verdict, Verdict::kSkip) << r.id;
    }
  }
  // golden/v1 holds cases of every claimed stage (greedy alone has 16).
  EXPECT_GE(passed, 16 * static_cast<int>(claimed.size()) / 2);
}

TEST(GpuEmulatedGolden, ClaimsOnlyStagesWithKernels) {
  auto backend = MakeGpuEmulatedBackend();
  const std::vector<std::string> stages = backend->SupportedStages();
  // docs/gpu.md "Stages with kernels".
  std::set<std::string> with_kernels = {"allowed_token_ids", "bad_words",   "greedy",   "log_softmax",
                                          "logit_bias",        "min_new_tokens", "nan_handling",   "penalties",
                                          "softmax",           "temperature",    "token_bitmask"};
  // Draws, seeded draws, speculative verification.
  with_kernels.insert({"exponential_race", "gumbel_max", "inverse_cdf", "multinomial_with_seed",
                       "multinomial_with_seed_token_ids", "qsample", "spec_greedy", "spec_random", "finish_rules",
                       "tp_consensus"});
  // The noise stage.
  with_kernels.insert("noise");
  // The filters.
  with_kernels.insert({"min_p", "sampling_filters", "top_k", "top_p", "ascend_top_k_top_p_sample_v2", "logprobs"});
  // The pipeline: composed from the stages above plus the rank draw and the select kernel.
  with_kernels.insert({"pipeline", "decode_steps"});
  // FlashInfer's rejection samplers from probabilities.
  with_kernels.insert("flashinfer_sampling_from_probs");
  // spec_step: composed from the stages above, the verifiers and its stops kernel; every profile.
  with_kernels.insert("spec_step");
  for (const Profile p : RequireStage("spec_step").profiles) {
    EXPECT_TRUE(backend->Capabilities("spec_step").profiles.Contains(p)) << ProfileName(p);
  }
  EXPECT_EQ(std::set<std::string>(stages.begin(), stages.end()), with_kernels);
  EXPECT_EQ(backend->Name(), "gpu-emulated");
}

}  // namespace
}  // namespace sampcheck::gpu
