// SPDX-License-Identifier: Apache-2.0
// Tests of the batch-invariance harness (harness/batch_invariance.h,
// docs/spec/batch_invariance.md): the reference passes on the pipeline goldens and on mixed
// greedy/random batches of every profile; deliberately batch-dependent backends (a seed
// keyed by the batch slot, a tie-break that depends on the batch size, a row that reads its
// neighbours, a run counter) are each caught.
#include "harness/batch_invariance.h"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "core/manifest.h"
#include "core/profile.h"
#include "core/split_mix64.h"
#include "harness/decode_steps_check.h"
#include "harness/golden_set_invariance.h"
#include "reference/reference_backend.h"
#include "harness/wrong/wrong_samplers.h"
#include "tests/support/stage_runner.h"

namespace sampcheck::testing {
namespace {

using harness::CheckBatchInvariance;
using harness::InvarianceResult;

Tensor I64Tensor(Shape shape, const std::vector<std::int64_t>& values) {
  return Tensor::FromValues<std::int64_t>(DType::kI64, std::move(shape), values);
}

// A mixed batch for `profile`: greedy rows (t = 0) and random rows, filters on some rows.
Case MixedPipeline(const std::string& profile, std::uint64_t key, std::int64_t rows = 5, std::int64_t vocab = 50) {
  SplitMix64 rng(key);
  std::vector<float> logits, q, temperature, top_p;
  std::vector<std::int32_t> top_k;
  std::vector<std::int64_t> seed, positions;
  for (std::int64_t i = 0; i < rows * vocab; ++i) {
    logits.push_back(static_cast<float>(rng.Below(64)) / 8.0f);  // many ties
    q.push_back(static_cast<float>(rng.Below(1000) + 1) / 250.0f);
  }
  for (std::int64_t b = 0; b < rows; ++b) {
    temperature.push_back(b % 3 == 0 ? 0.0f : 0.5f + static_cast<float>(b) / 4.0f);
    top_k.push_back(b % 2 == 0 ? 0 : static_cast<std::int32_t>(rng.Between(1, 10)));
    top_p.push_back(b % 4 == 1 ? 0.8f : 1.0f);
    seed.push_back(static_cast<std::int64_t>(rng.Next()));
    positions.push_back(static_cast<std::int64_t>(rng.Below(1000)));
  }
  Case c;
  c.id = "pipeline/mixed_" + std::to_string(key) + "/" + profile;
  c.stage = "pipeline";
  c.profile = sampcheck::ParseProfile(profile);
  // SGLang picks its seeded draw per batch (reference/pipeline.h); pinning the path makes a
  // row's token its own.
  if (ParseProfile(profile) == Profile::kSglang) c.params["sampling_path"] = "sorted";
  c.inputs = {{"logits", F32Tensor({rows, vocab}, logits)}, {"temperature", F32Tensor({rows}, temperature)},
              {"top_k", I32Tensor({rows}, top_k)}, {"top_p", F32Tensor({rows}, top_p)},
              {"seed", I64Tensor({rows}, seed)}, {"positions", I64Tensor({rows}, positions)},
              {"q", F32Tensor({rows, vocab}, q)}};
  return c;
}

// logit_bias's sparse bias lists ([N]): not row-separable.
Case SparseLogitBias() {
  Case sparse;
  sparse.id = "logit_bias/x/canonical";
  sparse.stage = "logit_bias";
  sparse.profile = Profile::kCanonical;
  sparse.inputs = {{"logits", F32Tensor({2, 2}, {0, 0, 0, 0})}, {"bias_rows", I32Tensor({2}, {0, 1})},
                   {"bias_ids", I32Tensor({2}, {0, 1})}, {"bias_values", F32Tensor({2}, {1, 1})}};
  return sparse;
}

// Two greedy rows with tied maxima.
Case GreedyTies() {
  Case c;
  c.id = "greedy/ties/canonical";
  c.stage = "greedy";
  c.profile = Profile::kCanonical;
  c.inputs = {{"logits", F32Tensor({2, 4}, {1, 3, 3, 0, 5, 0, 5, 5})}};
  return c;
}

// Wraps the reference and rewrites a batch before running it.
class Faulty : public Backend {
 public:
  std::string Name() const override { return "faulty"; }
  std::vector<std::string> SupportedStages() const override { return reference_.SupportedStages(); }
  TensorMap Run(const std::string& stage, const Case& c) override {
    Case copy = c;
    Rewrite(copy);
    ++calls_;
    return reference_.Run(stage, copy);
  }
  virtual void Rewrite(Case& c) = 0;

 protected:
  int calls_ = 0;
  reference::ReferenceBackend reference_;
};

// Seeds the noise with the batch slot (a kernel keying Philox by thread row).
struct SlotSeeded : Faulty {
  void Rewrite(Case& c) override {
    auto seed = c.inputs.at("seed").data<std::int64_t>();
    for (std::size_t b = 0; b < seed.size(); ++b) seed[b] += static_cast<std::int64_t>(b);
    auto q = c.inputs.at("q").data<float>();
    const auto vocab = c.inputs.at("q").dim(1);
    for (std::size_t b = 0; b < seed.size(); ++b) q[b * static_cast<std::size_t>(vocab)] *= static_cast<float>(b + 1);
  }
};

// From 7 rows on, a split reduction breaks ties toward the highest index: modelled by
// reversing every row (and its per-token inputs) for the stage, then mapping the token back.
class SizeDependentTies : public Backend {
 public:
  std::string Name() const override { return "size-dependent"; }
  std::vector<std::string> SupportedStages() const override { return {"greedy"}; }
  TensorMap Run(const std::string& stage, const Case& c) override {
    if (c.inputs.at("logits").dim(0) < 7) return reference_.Run(stage, c);
    Case copy = c;
    auto x = copy.inputs.at("logits").data<float>();
    const auto vocab = static_cast<std::size_t>(copy.inputs.at("logits").dim(1));
    for (std::size_t b = 0; b * vocab < x.size(); ++b) std::reverse(x.begin() + static_cast<std::ptrdiff_t>(b * vocab), x.begin() + static_cast<std::ptrdiff_t>((b + 1) * vocab));
    TensorMap out = reference_.Run(stage, copy);
    for (auto& t : out.at("token").data<std::int64_t>()) t = static_cast<std::int64_t>(vocab) - 1 - t;
    return out;
  }

 private:
  reference::ReferenceBackend reference_;
};

// Treats the whole batch as greedy as soon as one row is (a batch-level fast path).
struct BatchGreedy : Faulty {
  void Rewrite(Case& c) override {
    auto t = c.inputs.at("temperature").data<float>();
    if (std::find(t.begin(), t.end(), 0.0f) != t.end()) std::fill(t.begin(), t.end(), 0.0f);
  }
};

// A different result on every other call: not reproducible from run to run.
struct Flaky : Faulty {
  void Rewrite(Case& c) override {
    if (calls_ % 2 == 1) {
      for (auto& s : c.inputs.at("seed").data<std::int64_t>()) s ^= 1;
    }
  }
};

TEST(BatchInvariance, ReferencePassesMixedBatchesOfEveryProfile) {
  reference::ReferenceBackend backend;
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    std::vector<Case> cases;
    for (std::uint64_t key = 1; key <= 3; ++key) cases.push_back(MixedPipeline(profile, key));
    std::vector<const Case*> all;
    for (const auto& c : cases) all.push_back(&c);
    for (const auto& c : cases) {
      const InvarianceResult r = CheckBatchInvariance(backend, c, all);
      EXPECT_TRUE(r.checked && r.passed) << profile << ": " << r.reason;
      // 2 reference runs, 5 alone, batches of 2 (5 runs), 7 (2 runs), 64 (1 run).
      EXPECT_EQ(r.runs, 2 + 5 + 5 + 2 + 1);
    }
  }
}

TEST(BatchInvariance, SglangAutoPathIsBatchDependentAsSglangIs) {
  // With sampling_path "auto" a row without a filter draws by token id alone and by rank in a
  // batch with a greedy or filtering row (SGLang's layers/sampler.py): the check sees it.
  reference::ReferenceBackend backend;
  Case c = MixedPipeline("sglang", 7);
  c.params.erase("sampling_path");
  const InvarianceResult r = CheckBatchInvariance(backend, c, {&c});
  EXPECT_TRUE(r.checked);
  EXPECT_FALSE(r.passed);
}

TEST(BatchInvariance, CatchesASeedKeyedByBatchSlot) {
  SlotSeeded backend;
  const Case c = MixedPipeline("canonical", 4);
  const InvarianceResult r = CheckBatchInvariance(backend, c, {&c});
  EXPECT_TRUE(r.checked);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("alone"), std::string::npos) << r.reason;
}

TEST(BatchInvariance, CatchesATieBreakThatDependsOnBatchSize) {
  SizeDependentTies backend;
  const Case c = GreedyTies();
  const InvarianceResult r = CheckBatchInvariance(backend, c, {&c});
  EXPECT_TRUE(r.checked);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("batch of 7"), std::string::npos) << r.reason;
}

TEST(BatchInvariance, CatchesARowThatReadsItsNeighbours) {
  BatchGreedy backend;
  const Case c = MixedPipeline("vllm", 5);
  const InvarianceResult r = CheckBatchInvariance(backend, c, {&c});
  EXPECT_FALSE(r.passed);
}

TEST(BatchInvariance, CatchesRunToRunDifferences) {
  Flaky backend;
  const Case c = MixedPipeline("sglang", 6);
  const InvarianceResult r = CheckBatchInvariance(backend, c, {&c});
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("run to run"), std::string::npos) << r.reason;
}

TEST(BatchInvariance, OnlyRowSeparableCasesAreChecked) {
  const Case sparse = SparseLogitBias();
  std::string why;
  EXPECT_FALSE(harness::RowSeparable(sparse, &why));
  EXPECT_NE(why.find("[N] is not per row"), std::string::npos) << why;
  reference::ReferenceBackend backend;
  EXPECT_FALSE(CheckBatchInvariance(backend, sparse, {}).checked);
  EXPECT_TRUE(harness::RowSeparable(MixedPipeline("vllm", 1)));
}

TEST(BatchInvariance, GoldenSetCheckCoversThePipelineGoldens) {
  reference::ReferenceBackend backend;
  golden::VerifyOptions selection;
  selection.stages = {"pipeline", "multinomial_with_seed"};
  const auto results = harness::CheckGoldenSetInvariance(SAMPCHECK_SOURCE_DIR "/golden/v1", backend, selection);
  ASSERT_FALSE(results.empty());
  for (const auto& r : results) {
    EXPECT_EQ(r.stage, "batch_invariance");
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
  }
}

// Every row's seed XORed with the seed in slot 0 whenever the batch holds more than one row: a
// seeded request whose stream is derived from a neighbour's (a batch-global generator).
struct SeedFromSlotZero : Faulty {
  void Rewrite(Case& c) override {
    auto seed = c.inputs.at("seed").data<std::int64_t>();
    for (std::size_t b = 1; b < seed.size(); ++b) seed[b] ^= seed[0];
  }
};

TEST(BatchInvariance, CatchesASeededRowThatReadsANeighboursNoise) {
  SeedFromSlotZero backend;
  const Case c = MixedPipeline("canonical", 8);
  harness::InvarianceOptions options;
  options.batch_sizes = {2};  // the unseeded neighbour in slot 0 leaks its seed into the case's row
  const InvarianceResult r = CheckBatchInvariance(backend, c, {&c}, options);
  EXPECT_TRUE(r.checked);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("batch of 2"), std::string::npos) << r.reason;
}

// The reference, counting RunBatch calls; throws on every run whose case id holds `refuse` (a
// check's own runs: its batches' ids start with the case's id).
class CountingReference : public Backend {
 public:
  explicit CountingReference(std::string refuse = "") : refuse_(std::move(refuse)) {}
  std::string Name() const override { return "counting"; }
  std::vector<std::string> SupportedStages() const override { return reference_.SupportedStages(); }
  TensorMap Run(const std::string& stage, const Case& c) override {
    if (!refuse_.empty() && c.id.find(refuse_) != std::string::npos) throw std::invalid_argument("refused " + c.id);
    return reference_.Run(stage, c);
  }
  std::vector<CaseOutcome> RunBatch(const std::string& stage, const std::vector<const Case*>& cases,
                                    const OutcomeCallback& on_outcome) override {
    ++calls;
    return Backend::RunBatch(stage, cases, on_outcome);
  }
  int calls = 0;

 private:
  std::string refuse_;
  reference::ReferenceBackend reference_;
};

void ExpectSameResults(const std::vector<InvarianceResult>& got, const std::vector<InvarianceResult>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].checked, want[k].checked) << k;
    EXPECT_EQ(got[k].passed, want[k].passed) << k;
    EXPECT_EQ(got[k].reason, want[k].reason) << k;
    EXPECT_EQ(got[k].runs, want[k].runs) << k;
  }
}

// Three pipeline cases, a sparse logit_bias case between them (not row-separable: no run), a
// greedy case after them.
std::vector<Case> MixedStages() {
  std::vector<Case> cases = {MixedPipeline("canonical", 11), MixedPipeline("canonical", 12)};
  cases.push_back(SparseLogitBias());
  cases.push_back(MixedPipeline("canonical", 13));
  cases.push_back(GreedyTies());
  return cases;
}

TEST(BatchInvariance, TogetherGivesEachChecksResultFromOneCallPerStageGroup) {
  const std::vector<Case> cases = MixedStages();
  std::vector<const Case*> all;
  for (const auto& c : cases) all.push_back(&c);
  std::vector<harness::InvarianceOptions> options(all.size());
  for (std::size_t k = 0; k < options.size(); ++k) options[k].seed = 100 + k;
  CountingReference alone;
  std::vector<InvarianceResult> want;
  for (std::size_t k = 0; k < all.size(); ++k) want.push_back(CheckBatchInvariance(alone, *all[k], all, options[k]));
  EXPECT_EQ(alone.calls, 4);  // the sparse case runs nothing
  CountingReference together;
  ExpectSameResults(harness::CheckBatchInvarianceTogether(together, all, all, options), want);
  // Groups are consecutive cases of one stage: pipeline 11 and 12; the logit_bias case (no
  // run) with pipeline 13; greedy.
  EXPECT_EQ(together.calls, 3);
  EXPECT_FALSE(want[2].checked);
  EXPECT_TRUE(want[0].passed && want[1].passed && want[3].passed && want[4].passed);
}

TEST(BatchInvariance, TogetherJudgesAFailingGroupCheckByCheck) {
  const std::vector<Case> cases = MixedStages();
  std::vector<const Case*> all;
  for (const auto& c : cases) all.push_back(&c);
  const std::vector<harness::InvarianceOptions> options(all.size());
  CountingReference alone("mixed_12");
  std::vector<InvarianceResult> want;
  for (std::size_t k = 0; k < all.size(); ++k) want.push_back(CheckBatchInvariance(alone, *all[k], all, options[k]));
  CountingReference together("mixed_12");
  ExpectSameResults(harness::CheckBatchInvarianceTogether(together, all, all, options), want);
  // The first group's call fails (one of case 12's runs throws): its two checks are run again
  // one by one; the calls of pipeline 13 and of greedy answer.
  EXPECT_EQ(together.calls, 1 + 2 + 1 + 1);
  EXPECT_NE(want[1].reason.find("the backend fails the case itself: refused"), std::string::npos) << want[1].reason;
  // Only case 12's own runs carry its id: case 11's batches (neighbours from case 12
  // included) run, so 11 still passes.
  EXPECT_TRUE(want[0].passed) << want[0].reason;
}

// The multi-step harness of decode_steps (harness/decode_steps_check.h).
std::map<std::string, std::string> Failures(const std::vector<CaseResult>& results) {
  std::map<std::string, std::string> out;
  for (const auto& r : results) {
    if (r.verdict == Verdict::kFail) out[r.id] = r.reason;
  }
  return out;
}

TEST(DecodeStepsCheck, ReferencePassesEveryCheckOfEveryProfile) {
  reference::ReferenceBackend backend;
  const auto results = harness::CheckDecodeSteps(backend);
  ASSERT_EQ(results.size(), 9u);  // canonical, vllm, sglang x seeds, history, fresh_noise
  for (const auto& r : results) EXPECT_EQ(r.verdict, Verdict::kPass) << r.id << ": " << r.reason;
  EXPECT_TRUE(harness::CheckDecodeSteps(backend, {"pipeline"}).empty());
  EXPECT_EQ(harness::CheckDecodeSteps(backend, {}, {"vllm"}).size(), 3u);
}

TEST(DecodeStepsCheck, HistoryRowsReallyDependOnTheHistory) {
  // Hand-worked walk of rows 4 and 5 (greedy, logits 3 - j/8, frequency penalty 1, empty
  // history): token 0 leads by 1/8 per rank; after it is drawn once it sits at 2, below
  // tokens 1..7 (2.875 ... 2.125), so steps run 0, 1, 2, ..., 7 until each of 0..7 has been
  // drawn once (token 8 at 2.0 ties token 0 at 2.0 only at step 8). Any profile.
  reference::ReferenceBackend backend;
  const Case c = harness::DecodeStepsCheckCase(Profile::kCanonical);
  const Tensor tokens = backend.Run("decode_steps", c).at("tokens");
  for (std::int64_t b : {4, 5}) {
    for (std::int64_t t = 0; t < 8; ++t) EXPECT_EQ(tokens.data<std::int64_t>()[static_cast<std::size_t>(b * 8 + t)], t);
  }
}

TEST(DecodeStepsCheck, RejectsAStuckOffset) {
  auto backend = statistical::MakeWrongSampler("decode_offset_not_advanced");
  const auto failed = Failures(harness::CheckDecodeSteps(*backend));
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    const std::string id = std::string("decode_steps_check/") + profile;
    EXPECT_TRUE(failed.count(id + "/history")) << profile;
    ASSERT_TRUE(failed.count(id + "/fresh_noise")) << profile;
    // Every later step of the four flat rows repeats step 0.
    EXPECT_NE(failed.at(id + "/fresh_noise").find("28 of 28"), std::string::npos) << failed.at(id + "/fresh_noise");
    EXPECT_FALSE(failed.count(id + "/seeds")) << failed.at(id + "/seeds");
  }
}

TEST(DecodeStepsCheck, RejectsAHistoryThatIsNeverUpdated) {
  auto backend = statistical::MakeWrongSampler("decode_history_not_updated");
  const auto failed = Failures(harness::CheckDecodeSteps(*backend));
  for (const char* profile : {"canonical", "vllm", "sglang"}) {
    const std::string id = std::string("decode_steps_check/") + profile;
    ASSERT_TRUE(failed.count(id + "/history")) << profile;
    EXPECT_NE(failed.at(id + "/history").find("step 1, row 4"), std::string::npos) << failed.at(id + "/history");
    EXPECT_FALSE(failed.count(id + "/fresh_noise"));
  }
}

TEST(DecodeStepsCheck, RejectsASeedKeyedByTheBatchSlot) {
  auto backend = statistical::MakeWrongSampler("decode_seed_from_slot");
  const auto failed = Failures(harness::CheckDecodeSteps(*backend));
  EXPECT_TRUE(failed.count("decode_steps_check/canonical/seeds"));
  EXPECT_TRUE(failed.count("decode_steps_check/sglang/seeds"));
  // vllm's rows with their own generator (seeded) read the seed too: looked up by slot, it moves.
  EXPECT_TRUE(failed.count("decode_steps_check/vllm/seeds"));
}

// vLLM's per-request generators (docs/spec/pipeline.md "vLLM's per-request generators"): the
// vllm case's rows 0, 1, 4 and 6 are seeded, the others draw from the given q.
TEST(DecodeStepsCheck, VllmSeededRowsDrawFromTheirOwnGenerator) {
  reference::ReferenceBackend backend;
  Case c = harness::DecodeStepsCheckCase(Profile::kVllm);
  ASSERT_TRUE(c.inputs.count("seeded"));
  const Tensor before = backend.Run("decode_steps", c).at("tokens");
  for (float& x : c.inputs.at("q").data<float>()) x = x * 0.5f + 0.25f;  // another global noise
  const Tensor after = backend.Run("decode_steps", c).at("tokens");
  int changed_unseeded = 0;
  for (std::int64_t b = 0; b < 8; ++b) {
    const bool seeded = c.inputs.at("seeded").data<std::uint8_t>()[static_cast<std::size_t>(b)] != 0;
    for (std::int64_t t = 0; t < 8; ++t) {
      const auto at = static_cast<std::size_t>(b * 8 + t);
      if (seeded) {
        EXPECT_EQ(before.data<std::int64_t>()[at], after.data<std::int64_t>()[at]) << "row " << b << " step " << t;
      } else {
        changed_unseeded += before.data<std::int64_t>()[at] != after.data<std::int64_t>()[at];
      }
    }
  }
  EXPECT_GT(changed_unseeded, 0);  // the flat unseeded rows 2 and 3 follow q
}

TEST(DecodeStepsCheck, RejectsVllmGeneratorFaults) {
  for (const char* name : {"vllm_generator_seed_row0", "vllm_generator_global_noise"}) {
    auto backend = statistical::MakeWrongSampler(name);
    const auto failed = Failures(harness::CheckDecodeSteps(*backend));
    ASSERT_TRUE(failed.count("decode_steps_check/vllm/seeds")) << name;
    std::printf("%s: %s\n", name, failed.at("decode_steps_check/vllm/seeds").c_str());
    EXPECT_FALSE(failed.count("decode_steps_check/canonical/seeds")) << name;  // vllm's rule only
    EXPECT_FALSE(failed.count("decode_steps_check/sglang/seeds")) << name;
  }
  auto stuck = statistical::MakeWrongSampler("vllm_generator_offset_stuck");
  const auto failed = Failures(harness::CheckDecodeSteps(*stuck));
  ASSERT_TRUE(failed.count("decode_steps_check/vllm/fresh_noise"));
  // The two seeded flat rows repeat step 0 at all 7 later steps; the unseeded ones follow q.
  EXPECT_NE(failed.at("decode_steps_check/vllm/fresh_noise").find("of 28"), std::string::npos);
  EXPECT_TRUE(failed.count("decode_steps_check/vllm/history"));
  EXPECT_FALSE(failed.count("decode_steps_check/vllm/seeds"));
  EXPECT_FALSE(failed.count("decode_steps_check/canonical/fresh_noise"));
}

}  // namespace
}  // namespace sampcheck::testing
