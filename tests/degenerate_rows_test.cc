// SPDX-License-Identifier: Apache-2.0
// The degenerate-row goldens of spec_random (docs/spec/speculative.md "Degenerate rows") and
// spec_step (docs/spec/spec_step.md "Degenerate rows"): the reference's tokens against the ones
// worked out by hand in golden/spec_random_cases.cc and golden/spec_step_cases.cc from the
// peers' rules, every emitted id in [0, V) or the -1 padding, and each row's output the
// same alone, in batches of other sizes and beside other cases' rows (harness/batch_invariance.h:
// a degenerate row never changes a healthy neighbour).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "golden/case_family.h"
#include "golden/case_list.h"
#include "harness/batch_invariance.h"
#include "reference/reference_backend.h"

namespace sampcheck::testing {
namespace {

// The cases of `stage`'s golden family (the checked-in set's seed does not matter: these cases
// are written out, not drawn).
std::vector<Case> FamilyCases(const std::string& stage) {
  golden::CaseList list(1);
  golden::FindCaseFamily(stage)->add(list);
  std::vector<Case> out;
  for (const Case& c : list.cases()) {
    if (c.stage == stage) out.push_back(c);
  }
  return out;
}

const Case& Find(const std::vector<Case>& cases, const std::string& id) {
  for (const Case& c : cases) {
    if (c.id == id) return c;
  }
  throw std::runtime_error("no case " + id);
}

// Each row's emitted tokens (K + 1 = 3 entries, -1 padding), by hand (golden/spec_random_cases.cc
// lists each row's derivation).
const std::map<std::string, std::vector<std::vector<std::int64_t>>>& SpecRandomExpected() {
  static const std::map<std::string, std::vector<std::vector<std::int64_t>>> expected = {
      {"spec_random/degenerate_rows_v33/vllm",
       {{1, 4, -1}, {0, -1, -1}, {1, 9, -1}, {1, 6, -1}, {1, 11, -1}, {0, -1, -1}, {20, -1, -1}}},
      {"spec_random/degenerate_rows_v33/flashinfer",
       {{1, 4, -1}, {32, -1, -1}, {1, 9, -1}, {1, 3, -1}, {1, 32, -1}, {32, -1, -1}, {20, -1, -1}}},
      {"spec_random/degenerate_rows_v33/typical_acceptance",
       {{1, 4, -1}, {0, -1, -1}, {7, -1, -1}, {1, 6, -1}, {1, 11, -1}, {0, -1, -1}, {20, -1, -1}}},
      {"spec_random/degenerate_ngram_v33/vllm", {{1, 4, -1}, {3, -1, -1}, {6, -1, -1}}},
  };
  return expected;
}

// spec_step/degenerate_rows_v33 and degenerate_drafts_v33 (golden/spec_step_cases.cc lists each
// row's derivation).
const std::map<std::string, std::vector<std::vector<std::int64_t>>>& SpecStepExpected() {
  static const std::map<std::string, std::vector<std::vector<std::int64_t>>> expected = {
      {"spec_step/degenerate_rows_v33/canonical",
       {{1, 2, 10}, {5, -1, -1}, {1, 7, -1}, {1, 2, 0}, {9, 2, -1}, {0, -1, -1}, {1, 2, 10}, {6, -1, -1}, {3, 4, -1}}},
      {"spec_step/degenerate_rows_v33/block_verification",
       {{1, 2, 10}, {5, -1, -1}, {1, 7, -1}, {1, 2, 0}, {9, 2, -1}, {0, -1, -1}, {1, 0, -1}, {6, -1, -1}, {3, 4, -1}}},
      {"spec_step/degenerate_rows_v33/vllm",
       {{1, 2, 10}, {1, -1, -1}, {1, 2, -1}, {1, 2, 0}, {9, 2, -1}, {4, -1, -1}, {1, -1, -1}, {0, -1, -1}, {3, 4, -1}}},
      {"spec_step/degenerate_rows_v33_probabilistic/vllm",
       {{1, 2, 10}, {0, -1, -1}, {1, 0, -1}, {1, 2, 0}, {9, 2, -1}, {0, -1, -1}, {0, -1, -1}, {0, -1, -1}, {3, 4, -1}}},
      {"spec_step/degenerate_rows_v33/sglang",
       {{1, 2, 10}, {32, -1, -1}, {1, 32, -1}, {1, 2, 32}, {9, 2, -1}, {32, -1, -1}, {32, -1, -1}, {32, -1, -1}, {3, 4, -1}}},
      // Degenerate draft rows (spec_step/degenerate_drafts_v33; golden/spec_step_cases.cc derives
      // each row from the table's draft row and the verification rules of docs/spec/spec_step.md).
      {"spec_step/degenerate_drafts_v33/canonical",
       {{1, 2, 10}, {1, -1, -1}, {5, 2, 10}, {1, 2, -1}, {0, 2, 10}, {6, 2, 10}, {1, -1, -1}, {3, 4, -1}, {1, 0, 10}}},
      {"spec_step/degenerate_drafts_v33/block_verification",
       {{1, 2, 10}, {1, 2, 10}, {5, 2, 10}, {1, 2, 10}, {0, 2, 10}, {6, 2, 10}, {1, -1, -1}, {3, 4, -1}, {1, 0, 10}}},
      {"spec_step/degenerate_drafts_v33_probabilistic/vllm",
       {{1, 2, 10}, {0, -1, -1}, {0, -1, -1}, {1, 0, -1}, {0, -1, -1}, {0, -1, -1}, {0, -1, -1}, {3, 4, -1}, {1, 0, -1}}},
  };
  return expected;
}

void ExpectHandDerivedTokens(const std::string& stage,
                             const std::map<std::string, std::vector<std::vector<std::int64_t>>>& table) {
  reference::ReferenceBackend backend;
  const std::vector<Case> cases = FamilyCases(stage);
  for (const auto& [id, rows] : table) {
    SCOPED_TRACE(id);
    const Case& c = Find(cases, id);
    const TensorMap out = backend.Run(c.stage, c);
    const auto emitted = out.at("emitted").data<std::int64_t>();
    const auto accepted = out.at("num_accepted").data<std::int64_t>();
    ASSERT_EQ(emitted.size(), rows.size() * 3);
    for (std::size_t b = 0; b < rows.size(); ++b) {
      SCOPED_TRACE("row " + std::to_string(b));
      std::int64_t n = 0;
      for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(emitted[b * 3 + i], rows[b][i]);
        if (rows[b][i] >= 0) ++n;
      }
      EXPECT_EQ(accepted[b], n - 1);  // the accepted drafts, then one final token (no row stops)
    }
  }
}

void ExpectDecidedAloneInTheVocabulary(const std::string& stage, const std::string& target,
                                       const std::map<std::string, std::vector<std::vector<std::int64_t>>>& table) {
  reference::ReferenceBackend backend;
  const std::vector<Case> cases = FamilyCases(stage);
  for (const auto& [id, rows] : table) {
    SCOPED_TRACE(id);
    const Case& c = Find(cases, id);
    const std::int64_t vocab = c.inputs.at(target).dim(2);
    const TensorMap out = backend.Run(c.stage, c);
    for (std::int64_t v : out.at("emitted").data<std::int64_t>()) {
      EXPECT_TRUE(v == -1 || (v >= 0 && v < vocab)) << v;
    }
    // Neighbours: the family's other cases of the same profile and inputs (healthy rows).
    std::vector<const Case*> pool;
    for (const Case& other : cases) {
      if (other.profile == c.profile && other.inputs.size() == c.inputs.size()) pool.push_back(&other);
    }
    const harness::InvarianceResult r = harness::CheckBatchInvariance(backend, c, pool);
    EXPECT_TRUE(r.checked && r.passed) << r.reason;
  }
}

TEST(DegenerateRows, SpecRandomEmitsTheHandDerivedTokens) { ExpectHandDerivedTokens("spec_random", SpecRandomExpected()); }

TEST(DegenerateRows, SpecRandomRowsAreDecidedAloneAndStayInTheVocabulary) {
  ExpectDecidedAloneInTheVocabulary("spec_random", "target_probs", SpecRandomExpected());
}

TEST(DegenerateRows, SpecStepEmitsTheHandDerivedTokens) { ExpectHandDerivedTokens("spec_step", SpecStepExpected()); }

TEST(DegenerateRows, SpecStepRowsAreDecidedAloneAndStayInTheVocabulary) {
  ExpectDecidedAloneInTheVocabulary("spec_step", "target_logits", SpecStepExpected());
}

}  // namespace
}  // namespace sampcheck::testing
