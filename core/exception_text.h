// SPDX-License-Identifier: Apache-2.0
#pragma once
// The text an error line or a case's reason shows for a caught exception (docs/spec/cli.md
// "Input limits"): what() for every exception but std::bad_alloc, whose what() is the bare
// "std::bad_alloc" that tells nobody what to change. Every catch that turns an exception into a
// message or a per-case reason goes through it, so a case that runs out of memory fails with
// the same advice as the command that does.

#include <exception>
#include <new>
#include <string>

namespace sampcheck {

inline std::string ExceptionText(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) {
    return "out of memory (std::bad_alloc): the input or set needs more memory than this process may use; "
           "raise the memory limit, lower --threads, or use a smaller set or case";
  }
  return e.what();
}

}  // namespace sampcheck
