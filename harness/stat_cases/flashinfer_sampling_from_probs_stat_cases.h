// SPDX-License-Identifier: Apache-2.0
#pragma once
// The draw harness's case families for flashinfer_sampling_from_probs
// (docs/spec/flashinfer_sampling_from_probs.md "Law"; docs/spec/harness.md "Families"):
// probabilities WITHOUT noise (the harness supplies V + 1 curand-style uniforms per row,
// HarnessNoise::kUniformRounds), with declared MDEs as in stat_cases.h.
//
// Contract:
// - Ids "stats/flashinfer_sampling_from_probs/<family>/flashinfer"; every row is the weights
//   16, 15, ..., 1 (V = 16) divided by their f32 sum 136, so the survivor sets are far from
//   any rounding: cumulative masses 16, 31, 45, 58, 70, 81, 91, 100, ... (/136).
// - joint_v16 (kernel top_k_top_p): row 0 k = 4, top_p 0.95 (top-k binds: tokens 0..3); row 1
//   k = 16, top_p 0.7 (top-p binds: the mass above token 7 is 91/136 = 0.669 < 0.7, above
//   token 8 100/136 = 0.735: tokens 0..7). top_p_v16 (kernel top_p 0.5: tokens 0..4, the
//   mass above token 4 being 58/136 = 0.426 and above token 5 70/136 = 0.515) and min_p_v16
//   (kernel min_p 0.3: pivot 16/136 * 0.3, tokens with weight >= 4.8: 0..11).
// - top_k_first_v16 (kernel top_k_top_p, filter_apply_order "top_k_first": top_k_renorm_probs,
//   then top-p on the renormalised row): row 0 k = 4, top_p 0.5: the top-k row {16, 15, 14,
//   13} / 58 has masses above 0, 16/58, 31/58 = 0.534: tokens 0..1 (joint keeps 0..3, the mass
//   above token 3 being 45/136 = 0.331); row 1 k = 8, top_p 0.6: the top-k row {16, ..., 9} /
//   100 has masses above ..., 0.58 (token 4), 0.70 (token 5): tokens 0..4 (joint keeps 0..6,
//   81/136 = 0.596 < 0.6 above token 6, 91/136 = 0.669 above token 7). The joint order emits
//   tokens the case's law forbids on both rows, so the L1 check rejects it at any n.
// - joint_order_v16: the same rows under the joint kernel (tokens 0..3 and 0..6): the
//   top_k_first order run instead draws from a strict subset (TV 27/58 = 0.466 on row 0,
//   21/91 = 0.231 on row 1), rejected by L3.
// - Cost: each draw runs the reference over V = 16 with at most 17 rounds; the CI-sized n of
//   these rows is a few thousand draws (well under a second).
// - Deterministic: fixed numbers.
#include <vector>

#include "harness/stat_cases/stat_cases.h"

namespace sampcheck::statistical {

std::vector<StatCase> FlashinferSamplingFromProbsStatCases();

}  // namespace sampcheck::statistical
