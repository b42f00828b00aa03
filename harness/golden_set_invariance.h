// SPDX-License-Identifier: Apache-2.0
#pragma once
// The batch-invariance check of `sampcheck conform` (docs/spec/batch_invariance.md "In
// conform"): every row-separable case of a golden set, batched with the set's other cases of
// the same stage and profile as neighbours, on the backend under test.
//
// Contract: one result per selected case the backend supports (stage and declared profile), with id
// "batch_invariance/<case id>", stage "batch_invariance", the case's profile and comparison
// "exact". Pass: run-to-run and batch invariance hold. Fail: the first difference. Skip: the
// case is not row-separable, or the backend fails the case itself (the golden comparison
// reports that). Case files are read as in verification; an unreadable one is skipped here
// (verification fails it).

#include <filesystem>
#include <vector>

#include "core/backend.h"
#include "golden/verifier.h"
#include "harness/batch_invariance.h"

namespace sampcheck::harness {

inline constexpr char kBatchInvarianceStage[] = "batch_invariance";

std::vector<CaseResult> CheckGoldenSetInvariance(const std::filesystem::path& golden_dir, Backend& backend,
                                                         const golden::VerifyOptions& selection,
                                                         const InvarianceOptions& options = {});

}  // namespace sampcheck::harness
