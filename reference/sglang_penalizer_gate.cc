// SPDX-License-Identifier: Apache-2.0
// SGLang's penalizer gate (reference/sglang_penalizer_gate.h).
#include "reference/sglang_penalizer_gate.h"

#include <string>

namespace sampcheck::reference {

bool SglangPenalizerApplies(const StageInputs& in, const Case& c, bool any, const char* what) {
  std::string mode = "auto";
  if (c.params.contains("penalizers")) {
    if (!c.params["penalizers"].is_string()) in.Fail("parameter penalizers must be a string");
    mode = c.params["penalizers"].get<std::string>();
  }
  if (mode == "auto") return any;
  if (mode == "required") return true;
  if (mode == "not_required") {
    if (any) in.Fail(std::string("parameter penalizers = 'not_required' but a row has ") + what);
    return false;
  }
  in.Fail("parameter penalizers = '" + mode + "'; valid: auto, required, not_required");
}

}  // namespace sampcheck::reference
