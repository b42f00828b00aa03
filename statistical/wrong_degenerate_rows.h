// SPDX-License-Identifier: Apache-2.0
#pragma once
// Deliberately wrong backends for degenerate rows (docs/spec/speculative.md "Degenerate rows"):
// the bugs real kernels ship when a row holds NaN, +inf or nothing to sample. Each is the
// reference with one defect, registered in statistical/wrong_samplers.cc and rejected by the
// golden cases named below (tests/statistical_power_proof_test.cc, layer "golden").
//
// spec_random (cases with `target_probs` [B, K + 1, V] and an `emitted` output):
// - spec_degenerate_row_aborts_batch  a NaN or +inf target probability anywhere makes the
//                                whole batch an error (a device-side assert)
//                                -> spec_random/degenerate_rows_v33/
// - spec_nan_target_as_zero      a NaN target probability is read as 0 (a load that masks
//                                non-finite values): a NaN bonus row no longer draws its first
//                                NaN, a NaN n-gram residual is no longer skipped
//                                -> spec_random/degenerate_rows_v33/vllm, degenerate_ngram_v33/vllm
// - spec_empty_row_pad_lane      the final token of a row whose position row is all NaN or
//                                all zero is the reduction's identity lane: V rounded up to a
//                                32-lane tile, an id >= V
//                                -> spec_random/degenerate_rows_v33/
// - spec_inf_residual_token_zero a final token drawn from a position row holding +inf is 0:
//                                the residual normalised by its sum (inf / inf = NaN) and the
//                                NaN draw falling back to the first token
//                                -> spec_random/degenerate_rows_v33/
#include <memory>

#include "core/backend.h"

namespace sampcheck::statistical {

std::unique_ptr<Backend> MakeSpecDegenerateRowAbortsBatch();
std::unique_ptr<Backend> MakeSpecNanTargetAsZero();
std::unique_ptr<Backend> MakeSpecEmptyRowPadLane();
std::unique_ptr<Backend> MakeSpecInfResidualTokenZero();

}  // namespace sampcheck::statistical
