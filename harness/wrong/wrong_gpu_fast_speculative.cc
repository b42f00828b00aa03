// SPDX-License-Identifier: Apache-2.0
// gpu-fast's rejection and speculative kernels planted wrong (docs/gpu.md "gpu-fast"): the
// emulated gpu-fast backend with one kernel fault each (gpu/fast/fast_sampling_launch.h
// FastSamplingBug), judged as a user's kernel would be, by the stage's statistical cases.
//
// Contract (what each planted bug changes -> the case that must reject it):
// - gpu_fast_flashinfer_mass_includes_pivot  flashinfer_sampling_from_probs' rejection rounds
//                                count and sum p >= pivot instead of p > pivot
//                                (gpu/fast/fast_flashinfer_sampling_from_probs.cuh): the drawn
//                                token's own probability counts above it, so the last survivor
//                                of top-k (count) and of top-p (mass) is rejected. joint_v16
//                                row 0 (k 4) loses token 3 (TV 13/58 = 0.22), row 1 (top_p 0.7)
//                                token 7 (TV 9/100); no forbidden token is drawn, so L3 sees it
//                                -> stats/flashinfer_sampling_from_probs/joint_v16/ L3
// - gpu_fast_spec_random_recovered_from_target  spec_random's recovered token (a rejected draft)
//                                is drawn from the target row t instead of the residual
//                                max(t - d, 0) (gpu/fast/fast_spec_random.cuh), under vllm (the
//                                race) and flashinfer (the inverse CDF): a rejected draft's
//                                mass goes back to p_0, so the first emitted token no longer
//                                follows p_0. small_v4 (TV(p_0, q_0) = 0.4) measured TV 0.13
//                                under both profiles at the CI n (6221 draws), far above its
//                                declared 0.05
//                                -> stats/spec_random/small_v4/ L3
// Their proof runs take the emulator seconds, more than a CI test may (CI time), so
// proof_in_ci is false here and tests/gpu_fast_sampling_suite_test.cc (label slow) runs each
// through the draw harness at the case's CI n; each also has a known-answer unit test
// (tests/gpu_fast_flashinfer_sampling_from_probs_test.cc).
// Each registers itself with SAMPCHECK_WRONG_SAMPLER (harness/wrong/wrong_samplers.h).
#include <memory>

#include "gpu/fast/fast_backend.h"
#include "harness/wrong/wrong_samplers.h"

namespace sampcheck::statistical {

SAMPCHECK_WRONG_SAMPLER(GpuFastFlashinferMassIncludesPivot,
                        {{.name = "gpu_fast_flashinfer_mass_includes_pivot",
                          .bug = "gpu-fast's FlashInfer rejection rounds count p >= pivot as above the pivot: the last "
                                 "top-k / top-p survivor is rejected",
                          .caught_by = "stats/flashinfer_sampling_from_probs/joint_v16/",
                          .layer = "L3",
                          .proof_in_ci = false},
                         [] {
                           return gpu::MakeGpuFastPlantedBackend("gpu_fast_flashinfer_mass_includes_pivot",
                                                                 gpu::FastSamplingBug::kFlashinferMassIncludesPivot);
                         }});

SAMPCHECK_WRONG_SAMPLER(GpuFastSpecRandomRecoveredFromTarget,
                        {{.name = "gpu_fast_spec_random_recovered_from_target",
                          .bug = "gpu-fast's spec_random draws the recovered token from the target row, not the residual "
                                 "max(p - q, 0)",
                          .caught_by = "stats/spec_random/small_v4/",
                          .layer = "L3",
                          .proof_in_ci = false},
                         [] {
                           return gpu::MakeGpuFastPlantedBackend("gpu_fast_spec_random_recovered_from_target",
                                                                 gpu::FastSamplingBug::kSpecRandomRecoveredFromTarget);
                         }});

}  // namespace sampcheck::statistical
