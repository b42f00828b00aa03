// SPDX-License-Identifier: Apache-2.0
#pragma once
// The input tensors and parameters a case may carry: exactly those its stage's catalogue entry
// lists (docs/spec/golden.md, docs/python.md "Reference"). A misspelt optional input or
// parameter would silently test the default, so `golden verify`, `conform` and the Python
// module's sampcheck.reference.run all refuse one with the accepted names.
// Example: a softmax case with tensor "temprature" ->
//   "tensor 'in.temprature' is not an input of stage 'softmax'; its inputs are logits, temperature"
#include <string>

#include "core/case.h"

namespace sampcheck::golden {

// The first name of `c` its stage does not list, as a message naming the accepted ones;
// "unknown stage '...'" for a stage not in the catalogue; "" when every name is known.
std::string UnknownNames(const Case& c);

}  // namespace sampcheck::golden
