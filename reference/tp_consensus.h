// SPDX-License-Identifier: Apache-2.0
#pragma once
// tp_consensus: the id every tensor-parallel rank keeps after each rank sampled its own
// (docs/spec/tp_consensus.md).
//
// Contract:
// - Input: rank_ids [R, B] i32 or i64, R >= 1 ranks (row r holds rank r's sampled ids),
//   B >= 0 requests; every id >= 0 (a negative id is a rank's garbage, rejected).
//   Outputs: token [B] i64, the agreed id; unanimous [B] bool, true iff every rank held
//   the same id before consensus.
// - sglang: token[b] = min over r of rank_ids[r, b] — SGLang's all-reduce with MIN on the
//   sampled ids (python/sglang/srt/layers/sampler.py, Sampler._sync_token_ids_across_tp).
//   MIN is commutative and associative on integers, so any reduction tree gives the same id.
// - vllm: token[b] = rank_ids[0, b] — the shared-seed scheme: every rank samples the same
//   all-gathered logits with the same seed and the driver rank's (rank 0's) ids are the ones
//   returned; what the other ranks hold is not read.
// - Exact tier, no randomness, no floating point.
// Example: rank_ids {{5, 2, 7}, {3, 2, 9}}: sglang -> {3, 2, 7}, vllm -> {5, 2, 7};
// unanimous -> {false, true, false}.

#include <cstdint>
#include <vector>

#include "core/case.h"
#include "core/profile.h"

namespace sampcheck::reference {

// The checked inputs (contract block), read once for the reference and the gpu glue
// (gpu/backend/draws_glue.cc): rank_ids widened exactly to i64, row-major [ranks, batch].
struct TpConsensusArgs {
  std::vector<std::int64_t> ids;
  std::int64_t ranks = 0, batch = 0;
};
TpConsensusArgs ParseTpConsensus(const Case& c);

TensorMap RunTpConsensus(const Case& c, Profile profile);

}  // namespace sampcheck::reference
