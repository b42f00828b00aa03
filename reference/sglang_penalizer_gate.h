// SPDX-License-Identifier: Apache-2.0
#pragma once
// SGLang's penalizer gate (docs/spec/penalties.md#min_new_tokens): a penalizer's tensor is applied
// to the batch only when BatchedPenalizerOrchestrator.is_required holds, which a case states with
// its param `penalizers` ("auto", "required", "not_required"). One parse for the penalties and
// min_new_tokens stages of the reference and of the gpu backends.

#include "core/case.h"
#include "reference/stage_io.h"

namespace sampcheck::reference {

// "auto" (the default): applies iff `any` row needs the penalizer (its _is_required);
// "required": applies; "not_required": does not, and fails when `any` (naming `what` a row
// has). Any other value, or a value that is not a string, fails through in.Fail.
bool SglangPenalizerApplies(const StageInputs& in, const Case& c, bool any, const char* what);

}  // namespace sampcheck::reference
