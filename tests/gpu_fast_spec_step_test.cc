// SPDX-License-Identifier: Apache-2.0
// gpu-fast's spec_step (gpu/fast/fast_backend.h, docs/gpu.md "gpu-fast"): the bit-exact glue's
// composition with gpu-fast's spec_random kernel as the verifier of the random rows. Under
// canonical and vllm that verifier is vLLM's rule, whose recovered and bonus tokens are races (a
// total order of keys), so every token is the reference's: each checked-in golden of those two
// profiles must come out bit for bit, although the backend claims only the distributional tier
// (its statistical cases run in conform, docs/gpu.md "Skips"). Also the claimed profiles, and the
// planted spec_random fault reaching spec_step's tokens.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/backend.h"
#include "core/error.h"
#include "core/profile.h"
#include "golden/verifier.h"
#include "gpu/fast/fast_backend.h"

namespace sampcheck {
namespace {

// gpu-fast with a bitwise claim for spec_step, so golden verify compares its outputs.
class ClaimsBitwise final : public Backend {
 public:
  explicit ClaimsBitwise(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
  std::string Name() const override { return inner_->Name(); }
  std::vector<std::string> SupportedStages() const override { return {"spec_step"}; }
  StageCapabilities Capabilities(const std::string& stage) const override {
    StageCapabilities caps = inner_->Capabilities(stage);
    caps.claims_bitwise = true;
    return caps;
  }
  TensorMap Run(const std::string& stage, const Case& c) override { return inner_->Run(stage, c); }

 private:
  std::unique_ptr<Backend> inner_;
};

TEST(GpuFastSpecStep, GivesEveryCanonicalAndVllmGoldenBitForBit) {
  ClaimsBitwise backend(gpu::MakeGpuFastEmulatedBackend());
  golden::VerifyOptions options;
  options.stages = {"spec_step"};
  int passed = 0, skipped = 0;
  for (const CaseResult& r : golden::VerifyGoldenSet(SAMPCHECK_SOURCE_DIR "/golden/v1", backend, options)) {
    const Profile p = ParseProfile(r.profile);
    if (p == Profile::kCanonical || p == Profile::kVllm) {
      EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
      passed += r.verdict == Verdict::kPass;
    } else {
      EXPECT_EQ(r.verdict, Verdict::kSkip) << r.id;  // block_verification, sglang: not claimed
      ++skipped;
    }
  }
  EXPECT_GE(passed, 10);  // golden/v1 holds 16 such cases
  EXPECT_GE(skipped, 10);
  // The fast kernel is the one verifying: with the planted fault (the recovered token drawn
  // from the target row) some golden's recovered token changes.
  ClaimsBitwise planted(gpu::MakeGpuFastPlantedBackend("gpu_fast_spec_random_recovered_from_target",
                                                       gpu::FastSamplingBug::kSpecRandomRecoveredFromTarget));
  int failed = 0;
  for (const CaseResult& r : golden::VerifyGoldenSet(SAMPCHECK_SOURCE_DIR "/golden/v1", planted, options)) {
    failed += r.verdict == Verdict::kFail;
  }
  EXPECT_GE(failed, 1);
}

TEST(GpuFastSpecStep, ClaimsCanonicalAndVllmDistributionally) {
  auto backend = gpu::MakeGpuFastEmulatedBackend();
  const auto caps = backend->Capabilities("spec_step");
  EXPECT_TRUE(caps.profiles.Contains(Profile::kCanonical));
  EXPECT_TRUE(caps.profiles.Contains(Profile::kVllm));
  EXPECT_FALSE(caps.profiles.Contains(Profile::kBlockVerification));
  EXPECT_FALSE(caps.profiles.Contains(Profile::kSglang));
  EXPECT_FALSE(caps.claims_bitwise);
  // The planted spec_random fault claims spec_step too, so its statistical cases see it; the
  // wrong: variants of the fused sampler, which have no bit-exact kernel runner, do not.
  auto planted = gpu::MakeGpuFastPlantedBackend("gpu_fast_spec_random_recovered_from_target",
                                                gpu::FastSamplingBug::kSpecRandomRecoveredFromTarget);
  EXPECT_TRUE(planted->Capabilities("spec_step").profiles.Contains(Profile::kVllm));
  const auto planted_stages = planted->SupportedStages();
  EXPECT_EQ(std::count(planted_stages.begin(), planted_stages.end(), "noise"), 0);
}

}  // namespace
}  // namespace sampcheck
