// SPDX-License-Identifier: Apache-2.0
#pragma once
// CaseList: what the per-stage case families (golden/*_cases.cc) fill. A family adds named
// inputs once; the list emits one case per profile with id "<stage>/<name>/<profile>", so
// every profile of a stage is checked on the same inputs and divergences show up side by
// side in a golden set.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/case.h"
#include "core/profile.h"
#include "golden/case_random.h"

namespace sampcheck::golden {

// Which golden set to build: kV1 is the checked-in set (golden/v1, at most 5 MiB); kFull adds
// the large-vocabulary family (V = 32000 and 151936 for every stage and profile).
enum class GoldenSet { kV1, kFull };

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
  std::uint64_t seed() const { return seed_; }

 private:
  std::uint64_t seed_;
  GoldenSet set_;
  std::vector<Case> cases_;
};

// The families, one per stage (golden/<stage>_cases.cc).
void AddLogitBiasCases(CaseList& list);
void AddPenaltiesCases(CaseList& list);
void AddMinNewTokensCases(CaseList& list);
void AddTokenBitmaskCases(CaseList& list);
void AddAllowedTokenIdsCases(CaseList& list);
void AddBadWordsCases(CaseList& list);
void AddNanHandlingCases(CaseList& list);
void AddTemperatureCases(CaseList& list);
void AddGreedyCases(CaseList& list);
void AddSoftmaxCases(CaseList& list);  // softmax and log_softmax
void AddTopKCases(CaseList& list);
void AddTopPCases(CaseList& list);
void AddMinPCases(CaseList& list);
void AddSamplingFiltersCases(CaseList& list);
void AddAscendTopKTopPSampleV2Cases(CaseList& list);
void AddDrawCases(CaseList& list);  // gumbel_max, exponential_race, inverse_cdf
void AddSeededDrawCases(CaseList& list);  // qsample, multinomial_with_seed(_token_ids)
void AddPipelineCases(CaseList& list);
void AddSpecGreedyCases(CaseList& list);
void AddSpecRandomCases(CaseList& list);
void AddTpConsensusCases(CaseList& list);
// tp_consensus ids at V = 32000 and 151936 (called by AddLargeVocabularyCases: the stage has
// no logits).
void AddTpConsensusLargeVocabularyCases(CaseList& list);
// spec_greedy and spec_random at V = 32000 and 151936 (called by AddLargeVocabularyCases: their
// inputs are per position and, for spec_random, differ by profile).
void AddSpecLargeVocabularyCases(CaseList& list);
// Every stage at V = 32000 and 151936 (GoldenSet::kFull only).
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
// Random token ids in [0, vocab) with each row's first `lengths[b]` entries filled and the
// rest -1, shape [rows, width].
Tensor RandomIds(SplitMix64& rng, std::int64_t rows, std::int64_t width, std::int64_t vocab,
                 const std::vector<std::int64_t>& lengths);

}  // namespace sampcheck::golden
