// SPDX-License-Identifier: Apache-2.0
#pragma once
// Per-rank draws under tensor parallelism (docs/spec/tp_consensus.md "Per-rank draws"): the
// backend's own seeded pipeline draws, run as each of R ranks, must agree on every row, so that
// the consensus (MIN or rank 0's id) changes nothing.
//
// Contract:
// - TpRanksCheckCase(profile): a pipeline case of B = 8 rows over V = 64 whose noise the
//   backend draws itself from the shared contract: rows 0-5 flat (every logit 0, temperature 1:
//   a uniform draw over 64 tokens), rows 6-7 logits 3 - j / 8 at temperature 0.8 with top-k 16.
//   canonical and sglang: seed and positions per row (SplitMix64), the draws keyed by them;
//   vllm: every row `seeded` (its own generator keyed by seed and positions), q present but
//   read by no row. sglang pins sampling_path "sorted" (a row alone draws as in the batch).
// - CheckTpRanks(backend, stages, profiles): for every profile of the pipeline the backend
//   claims (when the `stages` selection holds pipeline and `profiles` the profile; empty
//   selections mean all), the case runs R = 4 times in one Backend::RunBatch, with param
//   tp_rank = 0 .. 3 (the rank a call runs on; no output may depend on it). The ranks' tokens
//   form rank_ids [R, B]; the consensus runs on them (the backend's own tp_consensus under the
//   profile when it claims it, else the reference's; canonical, which tp_consensus has no
//   profile of, under sglang's MIN). One result per profile, id
//   "tp_consensus_check/<profile>/ranks", stage "pipeline", comparison "exact", alpha 0: it
//   fails when a rank's call fails, when ranks disagree on a row (naming the rank, row and ids),
//   when `unanimous` is false where they agree, or when the consensus token differs from the
//   ids every rank holds.
// - Power: a draw whose noise depends on the rank (rank-keyed noise, uniforms no seed keys)
//   agrees with rank 0 on a flat row with probability 1/64 per rank, so all 8 rows of 3 ranks
//   agree with probability below 64^-18 (the two top-k rows aside): such a backend fails.
// - Costs: 4 runs of an 8-row case, 1 consensus run; milliseconds on the reference.
// Example: the reference and gpu-emulated pass under every profile; wrong:tp_rank_keyed_noise
//   and wrong:tp_unseeded_rank_uniforms fail all three (tests/tp_consensus_test.cc).

#include <string>
#include <vector>

#include "core/backend.h"
#include "core/case.h"
#include "core/case_result.h"
#include "core/profile.h"

namespace sampcheck::harness {

inline constexpr int kTpCheckRanks = 4;

Case TpRanksCheckCase(Profile profile);

std::vector<CaseResult> CheckTpRanks(Backend& backend, const std::vector<std::string>& stages = {},
                                     const std::vector<std::string>& profiles = {});

}  // namespace sampcheck::harness
