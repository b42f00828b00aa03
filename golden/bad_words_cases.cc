// SPDX-License-Identifier: Apache-2.0
// Golden case family for bad_words (docs/spec/masks.md#bad_words).
#include <algorithm>

#include "golden/case_family.h"
#include "golden/case_list.h"

namespace sampcheck::golden {

void AddBadWordsCases(CaseList& list) {
  // Row 0 output {5, 7}: word {7, 2} matches (bans 2); {5, 3} does not (prefix 5 is not the
  // last token); {4} always bans 4; {5, 7, 6} matches (bans 6); {1, 5, 7, 0} is longer than
  // the output + 1 and is skipped. Row 1 has an empty output: only one-token words apply.
  list.Add("bad_words", "hand_picked",
           {{"logits", Logits(2, 8, {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7})},
            {"output_ids", I32({2, 3}, {5, 7, -1, -1, -1, -1})},
            {"bad_words", I32({2, 5, 4}, {7, 2, -1, -1,  5, 3, -1, -1,  4, -1, -1, -1,
                                          5, 7, 6, -1,   1, 5, 7, 0,
                                          7, 2, -1, -1,  3, -1, -1, -1, -1, -1, -1, -1,
                                          -1, -1, -1, -1, -1, -1, -1, -1})}});
  // The last id V - 1 = 32 (docs/spec/input_classes.md) as a banned one-token word, as the
  // last token of a matching prefix, and as the banned last token of a two-token word.
  {
    auto rng = list.Rng("bad_words", "last_id_v33");
    list.Add("bad_words", "last_id_v33",
             {{"logits", RandomLogits(rng, 2, 33, DType::kF32)},
              {"output_ids", I32({2, 2}, {3, 32, 5, -1})},
              {"bad_words", I32({2, 2, 2}, {32, 7, 5, 32,  //
                                            32, -1, -1, -1})}});
  }
  for (std::int64_t vocab : {1, 31, 32, 33, 1000}) {
    const std::string name = "random_v" + std::to_string(vocab);
    auto rng = list.Rng("bad_words", name);
    // Small alphabets make prefix matches frequent: ids drawn from [0, min(V, 4)).
    const std::int64_t alphabet = std::min<std::int64_t>(vocab, 4);
    Tensor output = RandomIds(rng, 3, 10, alphabet, {10, 3, 0});
    Tensor words(DType::kI32, {3, 6, 3});
    auto w = words.data<std::int32_t>();
    for (std::size_t i = 0; i < w.size(); ++i) {
      const std::size_t pos = i % 3;
      const std::int64_t len = 1 + static_cast<std::int64_t>((i / 3) % 3);
      w[i] = static_cast<std::int64_t>(pos) < len ? static_cast<std::int32_t>(rng.Below(static_cast<std::uint64_t>(alphabet))) : -1;
    }
    list.Add("bad_words", name,
             {{"logits", RandomLogits(rng, 3, vocab, DType::kF32)}, {"output_ids", output}, {"bad_words", words}});
  }
}

namespace {

// The `full` set's large-vocabulary row (golden/case_family.h).
TensorMap LargeBadWordsInputs(const std::string& /*stage*/, SplitMix64& rng, std::int64_t /*vocab*/) {
  TensorMap in = {{"output_ids", RandomIds(rng, 1, 16, 4, {16})}};
  // One word per row of the [4, 3] draw, reshaped to [1, 4, 3].
  const Tensor drawn = RandomIds(rng, 4, 3, 4, {1, 2, 3, 3});
  Tensor words(DType::kI32, {1, 4, 3});
  auto src = drawn.data<std::int32_t>();
  std::copy(src.begin(), src.end(), words.data<std::int32_t>().begin());
  in.emplace("bad_words", words);
  return in;
}

}  // namespace

SAMPCHECK_CASE_FAMILY(BadWords, {.stages = {"bad_words"}, .add = AddBadWordsCases, .large_inputs = LargeBadWordsInputs});

}  // namespace sampcheck::golden
