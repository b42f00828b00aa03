// SPDX-License-Identifier: Apache-2.0
// token_bitmask_allowed (reference/token_bitmask_allowed.h, docs/spec/token_bitmask_allowed.md).
#include "reference/token_bitmask_allowed.h"

#include <cstdint>
#include <string>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

TensorMap RunTokenBitmaskAllowed(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "token_bitmask_allowed");
  const Tensor& mask = in.Required("bitmask");
  const Tensor& ids = in.Required("token_ids");
  const std::int64_t rows = mask.dim(0), words = mask.dim(1);
  in.ExpectDim("token_ids", ids, 0, rows);
  std::int64_t vocab = 32 * words;
  if (c.params.contains("vocab_size")) {
    const auto& v = c.params["vocab_size"];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 32 * words) {
      in.Fail("parameter vocab_size = " + v.dump() + " must be an integer in [0, 32 W] = [0, " + std::to_string(32 * words) +
              "]");
    }
    vocab = v.get<std::int64_t>();
  }
  const std::int64_t n = ids.dim(1);
  Tensor allowed(DType::kBool, {rows, n});
  auto out = allowed.data<std::uint8_t>();
  const auto m = mask.data<std::int32_t>();
  const auto t = ids.data<std::int64_t>();
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t id = t[static_cast<std::size_t>(b * n + j)];
      bool ok = id >= 0 && id < vocab;  // decided before any index is formed
      if (ok) {
        const auto word = static_cast<std::uint32_t>(m[static_cast<std::size_t>(b * words + id / 32)]);
        ok = ((word >> (id % 32)) & 1u) != 0;
      }
      out[static_cast<std::size_t>(b * n + j)] = ok ? 1 : 0;
    }
  }
  return Outputs("allowed", std::move(allowed));
}

SAMPCHECK_REFERENCE_STAGE(token_bitmask_allowed, RunTokenBitmaskAllowed);

}  // namespace sampcheck::reference
