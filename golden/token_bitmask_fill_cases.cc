// SPDX-License-Identifier: Apache-2.0
// Golden case family for token_bitmask_fill (docs/spec/token_bitmask_fill.md): the header's
// worked example, batches mixing guided and unguided requests with speculative rows, a reused
// buffer whose tail bits are stale, a row stride wider than the vocabulary needs (a padded
// batch), a guided row that allows nothing, and random batches.
#include <cstdint>
#include <string>
#include <vector>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

namespace {

// A reused buffer: every word random, so stale bits (tail bits included) are as likely 0 as 1.
Tensor StaleBuffer(SplitMix64& rng, std::int64_t rows, std::int64_t words) {
  Tensor t(DType::kI32, {rows, words});
  for (auto& w : t.data<std::int32_t>()) w = static_cast<std::int32_t>(rng.Next() >> 32);
  return t;
}

// allowed_ids [rows, width]: each row lists up to `width` random ids in [0, vocab) (repeats
// possible), the rest -1.
Tensor RandomAllowed(SplitMix64& rng, std::int64_t rows, std::int64_t width, std::int64_t vocab) {
  Tensor t(DType::kI32, {rows, width});
  auto d = t.data<std::int32_t>();
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto count = static_cast<std::int64_t>(rng.Below(static_cast<std::uint64_t>(width) + 1));
    for (std::int64_t a = 0; a < width; ++a) {
      d[static_cast<std::size_t>(r * width + a)] =
          a < count ? static_cast<std::int32_t>(rng.Below(static_cast<std::uint64_t>(vocab))) : -1;
    }
  }
  return t;
}

// The compacted rows a batch needs: 1 + spec_tokens of each structured request.
std::int64_t GuidedRows(const std::vector<std::int32_t>& spec, const std::vector<std::int32_t>& structured) {
  std::int64_t g = 0;
  for (std::int32_t b : structured) g += 1 + spec[static_cast<std::size_t>(b)];
  return g;
}

std::int64_t LogitsRows(const std::vector<std::int32_t>& spec) {
  std::int64_t rows = 0;
  for (std::int32_t k : spec) rows += 1 + k;
  return rows;
}

void AddBatch(CaseList& list, const std::string& name, std::int64_t vocab, std::int64_t words,
              const std::vector<std::int32_t>& spec, const std::vector<std::int32_t>& structured, bool stale_buffer) {
  auto rng = list.Rng("token_bitmask_fill", name);
  const std::int64_t guided = GuidedRows(spec, structured);
  TensorMap inputs = {{"allowed_ids", RandomAllowed(rng, guided, 12, vocab)},
                      {"spec_tokens", I32({static_cast<std::int64_t>(spec.size())}, spec)},
                      {"structured", I32({static_cast<std::int64_t>(structured.size())}, structured)}};
  if (stale_buffer) inputs.emplace("buffer", StaleBuffer(rng, LogitsRows(spec), words));
  nlohmann::json params = {{"vocab_size", vocab}};
  if (words != (vocab + 31) / 32) params["words"] = words;
  list.Add("token_bitmask_fill", name, std::move(inputs), std::move(params));
}

}  // namespace

void AddTokenBitmaskFillCases(CaseList& list) {
  // The header's worked example.
  list.Add("token_bitmask_fill", "header_example",
           {{"allowed_ids", I32({2, 2}, {0, 4, 2, -1})}, {"spec_tokens", I32({2}, {0, 1})}, {"structured", I32({1}, {1})}},
           {{"vocab_size", 5}});
  // Five requests, two of them unguided (one with two speculative rows), the compacted order
  // not the batch order, V = 100 (the last of 4 words holds 4 tokens and 28 tail bits), over a
  // reused buffer of random words: stale tail bits and unguided rows must not show through.
  AddBatch(list, "mixed_batch_v100", 100, 4, {0, 2, 0, 1, 0}, {3, 0, 4}, true);
  // The same batch in a padded buffer: 8 words per row where 4 suffice. A fill that writes
  // rows at stride 4 while the apply reads at stride 8 moves every row after the first.
  AddBatch(list, "padded_stride_v100_w8", 100, 8, {0, 2, 0, 1, 0}, {3, 0, 4}, true);
  // Every row guided (vLLM then passes no indices); V = 64 has no tail bits.
  AddBatch(list, "all_guided_v64", 64, 2, {1, 0, 2}, {2, 0, 1}, true);
  // No structured request: every row all ones, indices empty.
  AddBatch(list, "no_structured_v40", 40, 2, {0, 3}, {}, true);
  // A guided row that allows nothing (all -1: only the tail bits stay 1), the last id V - 1
  // alone in the last word, and an unguided row between them.
  list.Add("token_bitmask_fill", "empty_and_last_id_v33",
           {{"allowed_ids", I32({2, 3}, {-1, -1, -1, 32, 0, 32})},
            {"spec_tokens", I32({3}, {0, 0, 0})},
            {"structured", I32({2}, {0, 2})},
            {"buffer", I32({3, 2}, {0, 0, 0, 0, 0, 0})}},
           {{"vocab_size", 33}});
  // Random batches: up to 6 requests, 0..2 speculative tokens each, a random subset guided in a
  // random order, a stale buffer; V at and around word boundaries.
  for (std::int64_t vocab : {1, 31, 32, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("token_bitmask_fill", name + "/shape");
    const auto requests = static_cast<std::int64_t>(1 + rng.Below(6));
    std::vector<std::int32_t> spec, structured;
    for (std::int64_t b = 0; b < requests; ++b) spec.push_back(static_cast<std::int32_t>(rng.Below(3)));
    for (std::int64_t b = 0; b < requests; ++b) {
      if (rng.Below(3) != 0) structured.push_back(static_cast<std::int32_t>(b));
    }
    for (std::size_t i = structured.size(); i > 1; --i) std::swap(structured[i - 1], structured[rng.Below(i)]);
    AddBatch(list, name, vocab, (vocab + 31) / 32 + static_cast<std::int64_t>(rng.Below(2)), spec, structured, true);
  }
}

namespace {

// The `full` set's large-vocabulary cases: one guided request of one row listing 64 random
// ids, with an unguided request beside it (vocab_size is a parameter, so the family adds
// them itself).
void AddLargeTokenBitmaskFillCases(CaseList& list) {
  for (std::int64_t vocab : {32000, 151936}) {
    const std::string name = "large_v" + std::to_string(vocab);
    auto rng = list.Rng("token_bitmask_fill", name);
    list.Add("token_bitmask_fill", name,
             {{"allowed_ids", RandomAllowed(rng, 1, 64, vocab)}, {"spec_tokens", I32({2}, {0, 0})}, {"structured", I32({1}, {1})}},
             {{"vocab_size", vocab}});
  }
}

}  // namespace

SAMPCHECK_CASE_FAMILY(TokenBitmaskFill, {.stages = {"token_bitmask_fill"}, .add = AddTokenBitmaskFillCases,
                                         .add_large = AddLargeTokenBitmaskFillCases});

}  // namespace sampcheck::golden
