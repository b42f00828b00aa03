// SPDX-License-Identifier: Apache-2.0
// Golden case family for token_bitmask (docs/spec/masks.md#token_bitmask).
#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

namespace {
Tensor RandomMask(SplitMix64& rng, std::int64_t rows, std::int64_t words) {
  Tensor t(DType::kI32, {rows, words});
  for (auto& w : t.data<std::int32_t>()) w = static_cast<std::int32_t>(rng.Next() >> 32);
  return t;
}
std::int64_t Words(std::int64_t vocab) { return (vocab + 31) / 32; }
}  // namespace

void AddTokenBitmaskCases(CaseList& list) {
  for (std::int64_t vocab : {1, 31, 32, 33, 1000}) {
    for (DType dtype : {DType::kF32, DType::kBF16}) {
      const std::string name = "random_v" + std::to_string(vocab) + "_" + std::string(DTypeName(dtype));
      auto rng = list.Rng("token_bitmask", name);
      list.Add("token_bitmask", name,
               {{"logits", RandomLogits(rng, 3, vocab, dtype)},
                {"bitmask", RandomMask(rng, 3, Words(vocab))}});
    }
  }
  // xgrammar's own known answer: word 0b1010101010 over logits 1..10.
  list.Add("token_bitmask", "xgrammar_alternating",
           {{"logits", Logits(1, 10, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})},
            {"bitmask", I32({1, 1}, {0b1010101010})}});
  // Mask narrower than the logits (40 columns, one word): columns 32..39 stay unmasked.
  {
    auto rng = list.Rng("token_bitmask", "mask_narrower");
    list.Add("token_bitmask", "mask_narrower",
             {{"logits", RandomLogits(rng, 2, 40, DType::kF32)}, {"bitmask", I32({2, 1}, {0, 0x0F0F0F0F})}});
  }
  // Mask wider than the logits (2 words over 33 columns): the extra bits are ignored.
  {
    auto rng = list.Rng("token_bitmask", "mask_wider");
    list.Add("token_bitmask", "mask_wider",
             {{"logits", RandomLogits(rng, 1, 33, DType::kF32)},
              {"bitmask", I32({1, 3}, {0x55555555, static_cast<std::int32_t>(0xFFFFFFFE), 0})}});
  }
  // Explicit vocab_size below the default, and indices selecting rows 2 and 0 of 3.
  {
    auto rng = list.Rng("token_bitmask", "vocab_size_and_indices");
    list.Add("token_bitmask", "vocab_size_and_indices",
             {{"logits", RandomLogits(rng, 3, 64, DType::kF32)},
              {"bitmask", RandomMask(rng, 3, 2)},
              {"indices", I32({2}, {2, 0})}},
             {{"vocab_size", 40}});
  }
  // Input classes (docs/spec/input_classes.md): the last id V - 1 = 32 alone in the last word
  // (allowed in row 0, banned in row 1), and V = 1023, one short of 32 full words, one row.
  {
    auto rng = list.Rng("token_bitmask", "last_id_v33");
    list.Add("token_bitmask", "last_id_v33",
             {{"logits", RandomLogits(rng, 2, 33, DType::kF32)}, {"bitmask", I32({2, 2}, {0, 1, -1, -2})}});
  }
  {
    auto rng = list.Rng("token_bitmask", "v1023_f16");
    list.Add("token_bitmask", "v1023_f16",
             {{"logits", RandomLogits(rng, 1, 1023, DType::kF16)}, {"bitmask", RandomMask(rng, 1, Words(1023))}});
  }
  // All-zero mask (every token banned) and all-ones (identity).
  {
    auto rng = list.Rng("token_bitmask", "all_zero_all_ones");
    list.Add("token_bitmask", "all_zero_all_ones",
             {{"logits", RandomLogits(rng, 2, 33, DType::kF32)}, {"bitmask", I32({2, 2}, {0, 0, -1, -1})}});
  }
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeTokenBitmaskInputs(const std::string& /*stage*/, SplitMix64& rng, std::int64_t vocab) {
  Tensor mask(DType::kI32, {1, (vocab + 31) / 32});
  for (auto& w : mask.data<std::int32_t>()) w = static_cast<std::int32_t>(rng.Next() >> 32);
  return {{"bitmask", mask}};
}

}  // namespace

SAMPCHECK_CASE_FAMILY(TokenBitmask, {.stages = {"token_bitmask"}, .add = AddTokenBitmaskCases, .large_inputs = LargeTokenBitmaskInputs});

}  // namespace sampcheck::golden
