// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading the inputs the speculative-decoding stages share (docs/spec/speculative.md#inputs):
// the drafts [B, K] with trailing -1 padding (the row's draft count) and per-position rows
// [B, K(+1), V] of logits or probabilities.
//
// Contract:
// - draft_ids: i32 [B, K], K >= 0. Row b holds n_b drafts followed by K - n_b entries -1;
//   a -1 followed by a token id, an id outside [0, V) or any other negative value is an error
//   naming the row and column. n_b = 0 is a request with no drafts.
// - Position rows: rank 3, f32/f16/bf16 (upcast exactly to f32), [B, positions, V] with
//   V >= 1; as probabilities no entry may be negative (-inf included); NaN and +inf are read,
//   as a model's overflowing rows hold them (docs/spec/speculative.md "Degenerate rows").
//   Every position is checked, also those past the row's draft count, so a case is valid or
//   not whatever its drafts.
// Example: draft_ids {{3, 1, -1}, {-1, -1, -1}} -> counts {2, 0}.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/tensor.h"
#include "reference/stage_io.h"

namespace sampcheck::reference {

// n_b for each row of draft_ids (checked as in the contract).
std::vector<std::int64_t> DraftCounts(const StageInputs& in, const Tensor& draft_ids, std::int64_t vocab);

// Input `name` upcast to f32, shape [rows, positions, V >= 1]; `vocab` >= 0 also fixes V.
Tensor PositionRows(const Case& c, const StageInputs& in, const std::string& name, std::int64_t rows, std::int64_t positions,
                    std::int64_t vocab = -1);
// PositionRows, then no entry negative (NaN and +inf pass).
Tensor PositionProbabilities(const Case& c, const StageInputs& in, const std::string& name, std::int64_t rows,
                             std::int64_t positions, std::int64_t vocab = -1);

// draft_ids [B, K] i32, target_logits upcast to f32 [B, K + 1, V] (PositionRows) and each row's
// number of drafts (DraftCounts), checked in that order: what spec_greedy and spec_step read
// first (ParseSpecGreedy, ParseSpecStep).
struct DraftedTarget {
  std::int64_t rows = 0, width = 0, vocab = 0;
  const Tensor* drafts = nullptr;
  std::vector<std::int64_t> counts;  // drafts per row
  Tensor target;                     // f32 [B, K + 1, V]
};
DraftedTarget ReadDraftedTarget(const Case& c, const StageInputs& in);

// Row (b, position) of an f32 [B, P, V] tensor.
std::span<const float> PositionRow(const Tensor& t, std::int64_t b, std::int64_t position);

}  // namespace sampcheck::reference
