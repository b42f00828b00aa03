// SPDX-License-Identifier: Apache-2.0
// Golden case family for token_bitmask_stop_tokens (docs/spec/token_bitmask_stop_tokens.md):
// the header's worked example, stop bits left set by a reused buffer in rows whose grammar
// cannot end (they must be cleared) and left clear in rows that can (they must be set), and
// random masks, stop lists and can_end flags.
#include <cstdint>
#include <string>
#include <vector>

#include "golden/case_family.h"
#include "golden/case_list.h"
#include "golden/case_random.h"

namespace sampcheck::golden {

namespace {

Tensor Flags(const std::vector<std::uint8_t>& v) {
  return Tensor::FromValues(DType::kBool, {static_cast<std::int64_t>(v.size())}, v);
}

}  // namespace

void AddTokenBitmaskStopTokensCases(CaseList& list) {
  // The header's worked example.
  list.Add("token_bitmask_stop_tokens", "header_example",
           {{"bitmask", I32({2, 1}, {-1, 0})}, {"stop_ids", I32({2, 2}, {2, -1, 2, 5})}, {"can_end", Flags({0, 1})}});
  // V = 64, stop ids 0, 31, 32 and 63 (both ends of both words), one repeated. Rows 0 and 2
  // cannot end and hold every stop bit set (a reused buffer's, or a fresh all-ones row):
  // each must be cleared. Rows 1 and 3 can end and hold them clear: each must be set. Row 4
  // cannot end and already has them clear: unchanged.
  list.Add("token_bitmask_stop_tokens", "stale_stop_bits",
           {{"bitmask", I32({5, 2}, {-1, -1, 0x12345678, 0x0F0F0F0F, static_cast<std::int32_t>(0x80000001u),
                                     static_cast<std::int32_t>(0x80000001u), 0x00F0F0F0, 0, 0x40000000, 0x7FFFFFFE})},
            {"stop_ids", I32({5, 5}, {0, 31, 32, 63, 31,  //
                                      0, 31, 32, 63, -1,  //
                                      0, 31, 32, 63, -1,  //
                                      63, 0, -1, 32, 31,  //
                                      0, 31, 32, 63, -1})},
            {"can_end", Flags({0, 1, 0, 1, 0})}});
  for (std::int64_t vocab : {1, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("token_bitmask_stop_tokens", name);
    const std::int64_t words = (vocab + 31) / 32, rows = 4, width = 3;
    std::vector<std::int32_t> stops;
    std::vector<std::uint8_t> ends;
    for (std::int64_t i = 0; i < rows * width; ++i) {
      stops.push_back(rng.Below(4) == 0 ? -1 : static_cast<std::int32_t>(rng.Below(static_cast<std::uint64_t>(vocab))));
    }
    for (std::int64_t r = 0; r < rows; ++r) ends.push_back(static_cast<std::uint8_t>(rng.Below(2)));
    list.Add("token_bitmask_stop_tokens", name,
             {{"bitmask", RandomWords(rng, rows, words)}, {"stop_ids", I32({rows, width}, stops)}, {"can_end", Flags(ends)}});
  }
}

namespace {

// The `full` set's large-vocabulary row: a random mask, the last id and two others as stop
// ids, the grammar unable to end.
TensorMap LargeTokenBitmaskStopTokensInputs(const std::string& /*stage*/, SplitMix64& rng, std::int64_t vocab) {
  const auto a = static_cast<std::int32_t>(rng.Below(static_cast<std::uint64_t>(vocab)));
  const auto b = static_cast<std::int32_t>(rng.Below(static_cast<std::uint64_t>(vocab)));
  return {{"bitmask", RandomWords(rng, 1, (vocab + 31) / 32)},
          {"stop_ids", I32({1, 3}, {static_cast<std::int32_t>(vocab - 1), a, b})},
          {"can_end", Flags({0})}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(TokenBitmaskStopTokens, {.stages = {"token_bitmask_stop_tokens"}, .add = AddTokenBitmaskStopTokensCases,
                                               .large_inputs = LargeTokenBitmaskStopTokensInputs});

}  // namespace sampcheck::golden
