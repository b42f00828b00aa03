// SPDX-License-Identifier: Apache-2.0
// bad_words (reference/bad_words.h, docs/spec/masks.md#bad_words).
#include "reference/bad_words.h"

#include <algorithm>
#include <limits>
#include <span>

#include "reference/stage_io.h"
#include "reference/stage_registry.h"

namespace sampcheck::reference {

namespace {
// The entries before the first -1.
std::span<const std::int32_t> UntilPadding(std::span<const std::int32_t> s) {
  return s.first(static_cast<std::size_t>(std::find(s.begin(), s.end(), -1) - s.begin()));
}
}  // namespace

BadWordsArgs ParseBadWords(const Case& c, Profile /*profile*/) {
  StageInputs in(c, "bad_words");
  BadWordsArgs a;
  a.logits = in.Logits();
  const std::int64_t rows = a.logits.dim(0), vocab = a.logits.dim(1);
  a.output_ids = &in.Required("output_ids");
  a.bad_words = &in.Required("bad_words");
  in.ExpectDim("output_ids", *a.output_ids, 0, rows);
  in.ExpectDim("bad_words", *a.bad_words, 0, rows);
  in.ExpectIdsOrPadding("output_ids", *a.output_ids, vocab);
  in.ExpectIdsOrPadding("bad_words", *a.bad_words, vocab);
  return a;
}

TensorMap RunBadWords(const Case& c, Profile profile) {
  BadWordsArgs a = ParseBadWords(c, profile);
  const std::int64_t rows = a.logits.dim(0);
  const auto n_words = static_cast<std::size_t>(a.bad_words->dim(1));
  const auto word_len = static_cast<std::size_t>(a.bad_words->dim(2));
  auto all_words = a.bad_words->data<std::int32_t>();

  LogitsMap x = AsArray(a.logits);
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto out = UntilPadding(Row(*a.output_ids, b));
    for (std::size_t w = 0; w < n_words; ++w) {
      const auto word = UntilPadding(
          all_words.subspan((static_cast<std::size_t>(b) * n_words + w) * word_len, word_len));
      if (word.empty() || word.size() > out.size() + 1) continue;
      const std::size_t prefix = word.size() - 1;
      if (std::equal(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(prefix),
                     out.end() - static_cast<std::ptrdiff_t>(prefix))) {
        x(b, word.back()) = -std::numeric_limits<float>::infinity();
      }
    }
  }
  return Outputs("logits", std::move(a.logits));
}

SAMPCHECK_REFERENCE_STAGE(bad_words, RunBadWords);

}  // namespace sampcheck::reference
