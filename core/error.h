// SPDX-License-Identifier: Apache-2.0
#pragma once
// The exception sampcheck throws for bad input: a file, tensor, case or parameter that does
// not meet its contract. The message names the offending object and what was expected; the
// CLI prints it and exits non-zero. Preconditions inside reference/ throw
// std::invalid_argument instead (docs/contributing.md "Errors").

#include <stdexcept>
#include <string>

namespace sampcheck {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace sampcheck
