// SPDX-License-Identifier: Apache-2.0
// token_bitmask_stop_tokens (reference/token_bitmask_stop_tokens.h,
// docs/spec/token_bitmask_stop_tokens.md).
#include "reference/token_bitmask_stop_tokens.h"

#include <cstdint>
#include <string>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

TensorMap RunTokenBitmaskStopTokens(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "token_bitmask_stop_tokens");
  const Tensor& mask = in.Required("bitmask");
  const Tensor& stop = in.Required("stop_ids");
  const Tensor& can_end = in.Required("can_end");
  const std::int64_t rows = mask.dim(0), words = mask.dim(1);
  in.ExpectDim("stop_ids", stop, 0, rows);
  in.ExpectDim("can_end", can_end, 0, rows);
  in.ExpectIdsOrPadding("stop_ids", stop, 32 * words);
  Tensor out = mask;
  auto* bits = reinterpret_cast<std::uint32_t*>(out.data<std::int32_t>().data());
  for (std::int64_t b = 0; b < rows; ++b) {
    const bool end = can_end.data<std::uint8_t>()[static_cast<std::size_t>(b)] != 0;
    for (std::int32_t t : Row(stop, b)) {
      if (t < 0) continue;
      std::uint32_t& word = bits[b * words + t / 32];
      const std::uint32_t bit = std::uint32_t{1} << (t % 32);
      word = end ? (word | bit) : (word & ~bit);
    }
  }
  return Outputs("bitmask", std::move(out));
}

SAMPCHECK_REFERENCE_STAGE(token_bitmask_stop_tokens, RunTokenBitmaskStopTokens);

}  // namespace sampcheck::reference
