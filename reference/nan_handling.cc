// SPDX-License-Identifier: Apache-2.0
// nan_handling (reference/nan_handling.h, docs/spec/nan_handling.md).
#include "reference/nan_handling.h"

#include <cmath>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {
// SGLang's replacement value, torch.full_like(logits, -1e5) in float32.
constexpr float kSglangNanReplacement = -1e5f;
static_assert(kSglangNanReplacement == -100000.0f, "-1e5 is exact in binary32");
}  // namespace

TensorMap RunNanHandling(const Case& c, Profile profile) {
  StageInputs in(c, "nan_handling");
  Tensor logits = in.Logits();
  if (profile == Profile::kSglang) {
    for (float& v : logits.data<float>()) {
      if (std::isnan(v)) v = kSglangNanReplacement;
    }
  }
  return Outputs("logits", std::move(logits));
}

SAMPCHECK_REFERENCE_STAGE(nan_handling, RunNanHandling);

}  // namespace sampcheck::reference
