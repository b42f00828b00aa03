// SPDX-License-Identifier: Apache-2.0
// Tests of the filters' work on survivors (reference/filter_rows.h, docs/spec/filters.md "Work
// on the survivors only"): on rows where an earlier filter left few entries that are not -inf,
// top_p, min_p and the stage's output softmax take the survivors-only path; each must equal
// the dense computation bit for bit. Oracles: the softmax written out from docs/spec/softmax.md
// with the scalar ExpF32Cr and the canonical sum over the whole row, the naive full-sort top-p
// (tests/support/naive_filters.h), and min_p's rule (docs/spec/filters.md#min_p) spelled out
// on that softmax. Labels: unit property. False-failure budget: none (exact comparisons).
#include "reference/filter_rows.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "core/profile.h"
#include "golden/case_random.h"
#include "reference/math/exp.h"
#include "reference/min_p.h"
#include "reference/reductions.h"
#include "reference/sampling_filters.h"
#include "reference/softmax.h"
#include "reference/top_p.h"
#include "tests/support/filter_test_rows.h"
#include "tests/support/naive_filters.h"
#include "tests/support/stage_runner.h"
#include "tests/support/test_support.h"

namespace sampcheck::testing {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// docs/spec/softmax.md, literally, with the scalar exp.
std::vector<float> ScalarSoftmax(const std::vector<float>& x) {
  const float m = reference::CanonicalMax(x);
  std::vector<float> e(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) e[i] = math::ExpF32Cr(x[i] - m);
  const float s = reference::CanonicalSum(e);
  for (float& v : e) v = v / s;
  return e;
}

// V entries, `alive` of them finite (spread over the row, ties and both zeros frequent, one
// far below the maximum so that its probability underflows), the rest -inf.
std::vector<float> SparseRow(golden::SplitMix64& rng, std::size_t vocab, std::size_t alive) {
  std::vector<float> row(vocab, kNegInf);
  for (std::size_t j = 0; j < alive; ++j) {
    const auto i = static_cast<std::size_t>(rng.Below(vocab));
    const std::uint64_t r = rng.Next();
    float v = static_cast<float>(static_cast<std::int64_t>(r % 64) - 32) / 4.0f;
    if (r % 17 == 0) v = (r & 64) ? -0.0f : 0.0f;
    if (r % 29 == 0) v = -120.0f;
    row[i] = v;
  }
  return row;
}

TEST(FilterRows, SurvivorPathsEqualDenseComputation) {
  golden::SplitMix64 rng(0x5E1EC7);
  int sparse_rows = 0;
  for (std::size_t vocab : {8u, 100u, 1024u, 5000u, 40000u}) {
    for (std::size_t alive : {1u, 2u, 7u, 50u, 300u, 600u}) {
      for (int rep = 0; rep < 3; ++rep) {
        const std::vector<float> row = SparseRow(rng, vocab, std::min(alive, vocab));
        reference::Survivors sv;
        sparse_rows += reference::GatherSurvivors(row, sv) ? 1 : 0;
        // Softmax.
        const std::vector<float> want = ScalarSoftmax(row);
        std::vector<float> got(row.size());
        reference::FilteredSoftmaxRow(row, got);
        ASSERT_EQ(FloatBitsOf(got), FloatBitsOf(want)) << "softmax V " << vocab << " alive " << alive;
        for (Profile prof : kFilterProfiles) {
          // top_p against the naive full sort.
          for (float p : {0.0f, 0.3f, 0.9f, 0.999f}) {
            std::vector<float> naive = row, fast = row;
            NaiveTopP(prof, naive, p);
            reference::TopPRow(prof, fast, p);
            ASSERT_EQ(FloatBitsOf(fast), FloatBitsOf(naive)) << ProfileName(prof) << " p " << p << " V " << vocab;
          }
          // min_p: drop where prob < max prob * min(m, 1) (ascend_v2, m >= 1: the top token).
          for (float m : {0.05f, 0.5f, 1.0f}) {
            std::vector<float> fast = row, dense = row;
            reference::MinPRow(prof, fast, m);
            if (prof == Profile::kAscendV2 && m >= 1.0f) {
              const std::int32_t top = NaiveOrder(row)[0];
              for (std::size_t i = 0; i < dense.size(); ++i) {
                if (static_cast<std::int32_t>(i) != top) dense[i] = kNegInf;
              }
            } else {
              const float threshold = reference::CanonicalMax(want) * std::min(m, 1.0f);
              for (std::size_t i = 0; i < dense.size(); ++i) {
                if (!(want[i] >= threshold)) dense[i] = kNegInf;
              }
            }
            ASSERT_EQ(FloatBitsOf(fast), FloatBitsOf(dense)) << ProfileName(prof) << " m " << m << " V " << vocab;
          }
        }
      }
    }
  }
  EXPECT_GT(sparse_rows, 30);  // the survivors' path really ran
}

// The whole stage in the top_k_first order (canonical, flashinfer) gathers the survivors once
// after top-k and hands them to top-p, min-p and the probs output: its logits and probs must
// equal the naive filters one after another on the dense row (full-sort top-k and top-p,
// min-p's rule on the scalar softmax, the scalar softmax of the result), whether the
// survivors' path applies (k <= V / 8) or not (k = 0, k > V / 8).
TEST(FilterRows, StageTopKFirstEqualsNaiveFiltersInTurn) {
  golden::SplitMix64 rng(0x57A6E);
  for (std::size_t vocab : {100u, 1000u, 5000u}) {
    const std::int64_t rows = 2;
    std::vector<float> logits(vocab * rows);
    for (float& x : logits) {  // coarse values: ties are common
      const std::uint64_t r = rng.Next();
      x = static_cast<float>(static_cast<std::int64_t>(r % 97) - 48) / 8.0f;
      if (r % 31 == 0) x = kNegInf;
    }
    for (std::int32_t k : {0, 1, 7, 50, static_cast<std::int32_t>(vocab / 8 + 3)}) {
      for (float p : {0.0f, 0.5f, 0.9f, 1.0f}) {
        for (float m : {0.0f, 0.05f, 0.5f}) {
          for (Profile prof : {Profile::kCanonical, Profile::kFlashinfer}) {
            TensorMap in;
            in.emplace("logits", F32Tensor({rows, static_cast<std::int64_t>(vocab)}, logits));
            in.emplace("top_k", I32Tensor({rows}, std::vector<std::int32_t>(rows, k)));
            in.emplace("top_p", F32Tensor({rows}, std::vector<float>(rows, p)));
            in.emplace("min_p", F32Tensor({rows}, std::vector<float>(rows, m)));
            const TensorMap out = RunReference("sampling_filters", std::string(ProfileName(prof)), std::move(in));
            const auto got_logits = Floats(out.at("logits")), got_probs = Floats(out.at("probs"));
            for (std::int64_t b = 0; b < rows; ++b) {
              const auto at = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(b) * vocab);
              std::vector<float> row(logits.begin() + at, logits.begin() + at + static_cast<std::ptrdiff_t>(vocab));
              NaiveTopK(prof, row, k);
              NaiveTopP(prof, row, p);
              if (m > 0.0f) {
                const std::vector<float> probs = ScalarSoftmax(row);
                const float threshold = reference::CanonicalMax(probs) * std::min(m, 1.0f);
                for (std::size_t i = 0; i < vocab; ++i) {
                  if (!(probs[i] >= threshold)) row[i] = kNegInf;
                }
              }
              const std::vector<float> want_probs = ScalarSoftmax(row);
              const std::vector<float> got_row(got_logits.begin() + at, got_logits.begin() + at + static_cast<std::ptrdiff_t>(vocab));
              const std::vector<float> got_p(got_probs.begin() + at, got_probs.begin() + at + static_cast<std::ptrdiff_t>(vocab));
              ASSERT_EQ(FloatBitsOf(got_row), FloatBitsOf(row))
                  << ProfileName(prof) << " V " << vocab << " k " << k << " p " << p << " m " << m << " row " << b;
              ASSERT_EQ(FloatBitsOf(got_p), FloatBitsOf(want_probs))
                  << ProfileName(prof) << " V " << vocab << " k " << k << " p " << p << " m " << m << " row " << b;
            }
          }
        }
      }
    }
  }
}

TEST(FilterRows, CanonicalSumAtEqualsDenseSumUnlessZero) {
  golden::SplitMix64 rng(0x5A7);
  for (std::size_t n : {1u, 1023u, 1024u, 1025u, 3000u, 70000u}) {
    std::vector<float> dense(n, 0.0f);
    std::vector<std::int32_t> index;
    std::vector<float> value;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t r = rng.Next();
      if (r % 5 != 0) {
        dense[i] = (r & 8) ? -0.0f : 0.0f;
        continue;
      }
      // Mixed signs and binades: cancellation and rounding both occur.
      dense[i] = static_cast<float>(static_cast<std::int64_t>((r >> 8) % 2001) - 1000) * ((r & 16) ? 0x1p-20f : 1.0f);
      index.push_back(static_cast<std::int32_t>(i));
      value.push_back(dense[i]);
    }
    const float want = reference::CanonicalSum(dense);
    const float got = reference::CanonicalSumAt(index, value);
    if (want != 0.0f) {
      EXPECT_EQ(Bits(got), Bits(want)) << n;
    }
    EXPECT_EQ(got, want) << n;  // a zero may differ only in sign
  }
}

}  // namespace
}  // namespace sampcheck::testing
