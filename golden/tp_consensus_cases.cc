// SPDX-License-Identifier: Apache-2.0
// Golden case family for tp_consensus (docs/spec/tp_consensus.md): hand-picked edges (one
// rank, no request, extreme ids, rank 0 holding the smallest or the largest id) and random
// rank sets in which most requests agree and a few diverge, as they do in the field.
#include <cstdint>
#include <limits>
#include <string>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

namespace {

// rank_ids [ranks, batch] of `dtype` (i32 or i64): every request starts from one id in
// [0, vocab) that all ranks hold; with probability 1/4 a request diverges and each rank
// other than 0 redraws its id with probability 1/2 (so ranks above and below rank 0 occur).
Tensor RandomRankIds(SplitMix64& rng, std::int64_t ranks, std::int64_t batch, std::int64_t vocab, DType dtype) {
  Tensor ids(dtype, {ranks, batch});
  for (std::int64_t b = 0; b < batch; ++b) {
    const auto base = static_cast<std::int64_t>(rng.Below(static_cast<std::uint64_t>(vocab)));
    const bool diverge = rng.Below(4) == 0;
    for (std::int64_t r = 0; r < ranks; ++r) {
      std::int64_t id = base;
      if (diverge && r > 0 && rng.Below(2) == 0) id = static_cast<std::int64_t>(rng.Below(static_cast<std::uint64_t>(vocab)));
      const auto at = static_cast<std::size_t>(r * batch + b);
      if (dtype == DType::kI32) {
        ids.data<std::int32_t>()[at] = static_cast<std::int32_t>(id);
      } else {
        ids.data<std::int64_t>()[at] = id;
      }
    }
  }
  return ids;
}

}  // namespace

void AddTpConsensusCases(CaseList& list) {
  constexpr std::int32_t kI32Max = std::numeric_limits<std::int32_t>::max();
  constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
  // The header's worked example.
  list.Add("tp_consensus", "header_example", {{"rank_ids", I64({2, 3}, {5, 2, 7, 3, 2, 9})}});
  // One rank: the identity under both profiles, every request unanimous.
  list.Add("tp_consensus", "one_rank", {{"rank_ids", I64({1, 4}, {0, 1, 151935, 42})}});
  // No request at all: empty outputs, not an error.
  list.Add("tp_consensus", "empty_batch", {{"rank_ids", I64({4, 0}, {})}});
  // Rank 0 holds the largest id (MIN and rank 0 differ), the smallest (they agree), a tie
  // between ranks 1 and 3, id 0 and the largest ids of both dtypes.
  list.Add("tp_consensus", "edges_i64",
           {{"rank_ids", I64({4, 5}, {9, 1, 4, 0, kI64Max,  //
                                      7, 3, 8, 0, kI64Max - 1,  //
                                      8, 2, 5, 1, kI64Max,  //
                                      7, 5, 4, 0, kI64Max})}});
  list.Add("tp_consensus", "edges_i32",
           {{"rank_ids", I32({3, 4}, {kI32Max, 0, 6, 6,  //
                                      kI32Max - 1, 1, 6, 5,  //
                                      kI32Max, 0, 6, 7})}});
  for (std::int64_t ranks : {2, 4, 8}) {
    for (DType dtype : {DType::kI32, DType::kI64}) {
      const std::string name = "random_r" + std::to_string(ranks) + "_" + std::string(DTypeName(dtype));
      auto rng = list.Rng("tp_consensus", name);
      list.Add("tp_consensus", name, {{"rank_ids", RandomRankIds(rng, ranks, 32, 151936, dtype)}});
    }
  }
}

void AddTpConsensusLargeVocabularyCases(CaseList& list) {
  // The stage has no vocabulary dimension; the large family checks ids at the top of the
  // vocabularies it names (V = 32000, 151936) across 8 ranks.
  for (std::int64_t vocab : {32000, 151936}) {
    const std::string name = "large_v" + std::to_string(vocab);
    auto rng = list.Rng("tp_consensus", name);
    list.Add("tp_consensus", name, {{"rank_ids", RandomRankIds(rng, 8, 64, vocab, DType::kI64)}});
  }
}

SAMPCHECK_CASE_FAMILY(TpConsensus, {.stages = {"tp_consensus"}, .add = AddTpConsensusCases,
                                     .add_large = AddTpConsensusLargeVocabularyCases});

}  // namespace sampcheck::golden
