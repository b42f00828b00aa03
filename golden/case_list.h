// SPDX-License-Identifier: Apache-2.0
#pragma once
// CaseList: what the per-stage case families (golden/*_cases.cc) fill. A family adds named
// inputs once; the list emits one case per profile with id "<stage>/<name>/<profile>", so
// every profile of a stage is checked on the same inputs and divergences show up side by
// side in a golden set.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/case.h"
#include "core/profile.h"
#include "golden/case_random.h"

namespace sampcheck::golden {

// Which golden set to build: kV1 is the checked-in set (golden/v1, at most 8 MiB); kFull adds
// the large-vocabulary family (V = 32000 and 151936 for every stage and profile); kHuge holds
// only the large-index cases (B x V above 2^31 elements, golden/huge_cases.h), generated on
// demand and never checked in.
enum class GoldenSet { kV1, kFull, kHuge };

class CaseList {
 public:
  explicit CaseList(std::uint64_t seed, GoldenSet set = GoldenSet::kV1) : seed_(seed), set_(set) {}
  GoldenSet set() const { return set_; }

  // A generator private to one (stage, name): adding or removing other cases never changes it.
  SplitMix64 Rng(const std::string& stage, const std::string& name) const {
    return SplitMix64(CaseSeed(seed_, stage + "/" + name));
  }
  // One case per profile of the stage (all of the catalogue's profiles when `profiles` is
  // empty).
  void Add(const std::string& stage, const std::string& name, TensorMap inputs,
           nlohmann::json params = nlohmann::json::object(), std::vector<Profile> profiles = {});

  const std::vector<Case>& cases() const { return cases_; }
  // Moves the cases out (the list is left empty): a set's multi-GiB inputs are never copied.
  std::vector<Case> TakeCases() { return std::move(cases_); }
  std::uint64_t seed() const { return seed_; }

 private:
  std::uint64_t seed_;
  GoldenSet set_;
  std::vector<Case> cases_;
};

// The `full` set's large-vocabulary cases: every stage at V = 32000 and 151936, inputs from
// each stage's case family (golden/case_family.h, golden/large_vocabulary_cases.cc).
void AddLargeVocabularyCases(CaseList& list);

// Small helpers the families share.
Tensor I32(Shape shape, const std::vector<std::int32_t>& values);
Tensor F32(Shape shape, const std::vector<float>& values);
Tensor I64(Shape shape, const std::vector<std::int64_t>& values);
// Per-row i64 sampling seeds (any 64-bit value) and positions in [0, 2^20).
Tensor RandomSeeds(SplitMix64& rng, std::int64_t rows);
Tensor RandomPositions(SplitMix64& rng, std::int64_t rows);
// Logits [n, 4] f32: n copies of the row {0, -f32(ln 2), -2 f32(ln 2), -2 f32(ln 2)}, whose
// softmax is exactly {0.5, 0.25, 0.125, 0.125} (docs/spec/softmax.md).
Tensor DyadicRows(std::int64_t n);
// Logits [rows, vocab] f32 from explicit values.
Tensor Logits(std::int64_t rows, std::int64_t vocab, const std::vector<float>& values);
// The non-finite rows every filter, draw and pipeline case family carries (docs/spec/input_classes.md):
// logits [3, vocab] of `dtype`, row 0 -inf everywhere but column 0 (value 0.5), row 1 -inf
// everywhere but column vocab - 1 (value -3: a lone survivor need not be large), row 2 all
// -inf (every token masked: an empty allowed set). With fully_masked_row = false only rows 0
// and 1 (for stages where a row without a drawable token is an input error).
Tensor MaskedRows(std::int64_t vocab, DType dtype, bool fully_masked_row = true);
// Logits [rows, vocab] of `dtype`, vocab <= 512, every row 20.0625 + 2^-9 - i 2^-18 for
// i < vocab / 2 and 20.0625 - 2^-9 - i 2^-18 above: distinct, descending and within 0.005 of
// each other in f32. 20.0625 is the midpoint of two bf16 neighbours (step 2^-3 in [16, 32)),
// so bf16 rounds the first half up to 20.125 and the second down to 20: two tie groups whose
// probabilities differ by e^(1/8), which moves every top-p and min-p boundary
// (docs/spec/input_classes.md "Half precision").
Tensor NearEqualLogits(std::int64_t rows, std::int64_t vocab, DType dtype);
// Random token ids in [0, vocab) with each row's first `lengths[b]` entries filled and the
// rest -1, shape [rows, width].
Tensor RandomIds(SplitMix64& rng, std::int64_t rows, std::int64_t width, std::int64_t vocab,
                 const std::vector<std::int64_t>& lengths);

}  // namespace sampcheck::golden
