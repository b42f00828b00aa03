// SPDX-License-Identifier: Apache-2.0
// Golden case family for token_bitmask_allowed (docs/spec/token_bitmask_allowed.md): the
// header's worked example, ids beyond int32 whose low 32 bits name an allowed token (2^32 + t,
// 2^40 + t: an id narrowed to int32 aliases t), negative ids and both int64 extremes, an
// explicit vocab_size below 32 W, and random masks with ids in and around [0, V).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "golden/case_family.h"
#include "golden/case_list.h"
#include "golden/case_random.h"

namespace sampcheck::golden {

namespace {

// Ids [rows, n]: mostly in [0, vocab), some just outside (-3..-1, vocab..vocab + 2), some
// 2^32 + t and 2^40 + t for t in [0, vocab).
Tensor RandomIds(SplitMix64& rng, std::int64_t rows, std::int64_t n, std::int64_t vocab) {
  Tensor t(DType::kI64, {rows, n});
  for (auto& id : t.data<std::int64_t>()) {
    const auto in_range = static_cast<std::int64_t>(rng.Below(static_cast<std::uint64_t>(vocab)));
    switch (rng.Below(8)) {
      case 0: id = -1 - static_cast<std::int64_t>(rng.Below(3)); break;
      case 1: id = vocab + static_cast<std::int64_t>(rng.Below(3)); break;
      case 2: id = (std::int64_t{1} << 32) + in_range; break;
      case 3: id = (std::int64_t{1} << 40) + in_range; break;
      default: id = in_range;
    }
  }
  return t;
}

}  // namespace

void AddTokenBitmaskAllowedCases(CaseList& list) {
  constexpr std::int64_t k32 = std::int64_t{1} << 32, k40 = std::int64_t{1} << 40;
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();
  // The header's worked example.
  list.Add("token_bitmask_allowed", "header_example",
           {{"bitmask", I32({1, 1}, {0b1010})}, {"token_ids", I64({1, 5}, {1, 2, 3, k32 + 1, -1})}});
  // Row 0 allows tokens 1, 3, 5 and 63 (word 0 = 0b101010, word 1 = bit 31); row 1 allows
  // every token. Each wide id's low 32 bits name an allowed token, so only an int64 test
  // refuses them: 2^32 + 1, 2^32 + 3, 2^40 + 5, 2^40 + 63, 2^31 + 1 (negative as int32),
  // 2^32 - 1 (-1 as int32), -2^40 + 1 (1 as int32), and the int64 extremes.
  const std::vector<std::int64_t> wide = {1, 63, k32 + 1, k32 + 3, k40 + 5, k40 + 63, (std::int64_t{1} << 31) + 1, k32 - 1,
                                          -k40 + 1, kMin, kMax, 64};
  std::vector<std::int64_t> both = wide;
  both.insert(both.end(), wide.begin(), wide.end());
  list.Add("token_bitmask_allowed", "wide_ids",
           {{"bitmask", I32({2, 2}, {0b101010, static_cast<std::int32_t>(0x80000000u), -1, -1})},
            {"token_ids", I64({2, static_cast<std::int64_t>(wide.size())}, both)}});
  // vocab_size 40 of 64 bits: ids 39 (allowed), 40 and 63 (bits set, but not in the
  // vocabulary) and 0.
  list.Add("token_bitmask_allowed", "vocab_size_below_32w",
           {{"bitmask", I32({1, 2}, {-1, -1})}, {"token_ids", I64({1, 4}, {39, 40, 63, 0})}}, {{"vocab_size", 40}});
  // No ids to test (N = 0) in two rows.
  list.Add("token_bitmask_allowed", "no_ids", {{"bitmask", I32({2, 1}, {0, -1})}, {"token_ids", I64({2, 0}, {})}});
  for (std::int64_t vocab : {1, 32, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("token_bitmask_allowed", name);
    const std::int64_t words = (vocab + 31) / 32;
    list.Add("token_bitmask_allowed", name,
             {{"bitmask", RandomWords(rng, 3, words)}, {"token_ids", RandomIds(rng, 3, 16, vocab)}}, {{"vocab_size", vocab}});
  }
}

namespace {

// The `full` set's large-vocabulary row: a random mask and 256 ids.
TensorMap LargeTokenBitmaskAllowedInputs(const std::string& /*stage*/, SplitMix64& rng, std::int64_t vocab) {
  return {{"bitmask", RandomWords(rng, 1, (vocab + 31) / 32)}, {"token_ids", RandomIds(rng, 1, 256, vocab)}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(TokenBitmaskAllowed, {.stages = {"token_bitmask_allowed"}, .add = AddTokenBitmaskAllowedCases,
                                            .large_inputs = LargeTokenBitmaskAllowedInputs});

}  // namespace sampcheck::golden
