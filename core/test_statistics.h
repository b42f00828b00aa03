// SPDX-License-Identifier: Apache-2.0
#pragma once
// The hypothesis test behind a statistical case's verdict: the fields of docs/spec/report.md
// "Statistical cases" as a typed struct. The statistical harnesses fill it in; reports/
// (reports/statistics_json.h) is the only place that turns it into JSON.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sampcheck {

// The layers of docs/spec/harness.md; report.json writes them "L0" ... "L4".
enum class TestLayer {
  kKnownAnswer,  // L0
  kStructural,   // L1: a draw outside the support; alpha 0, p 0 or 1
  kTargeted,     // L2: one boundary share
  kOmnibus,      // L3: goodness of fit, homogeneity, the exponent score test, PIT, KS
  kTails,        // L4: tail and floor counts of noise
};
std::string_view TestLayerName(TestLayer layer);

// An effect-size estimate with its confidence interval ("D", "TV", "delta", "t - 1").
struct EffectSize {
  std::string name;
  double value = 0.0;
  double lower = 0.0, upper = 0.0;
  double level = 0.0;
  bool operator==(const EffectSize&) const = default;
};

// One of the bins with the largest |standardised residual|.
struct TopBin {
  std::string label;
  std::int64_t observed = 0;
  double expected = 0.0;
  double residual = 0.0;
  bool operator==(const TopBin&) const = default;
};

// What only a tensor-parallel consensus case reports (docs/spec/tp_consensus.md): the ranks'
// disagreement before the collective and the law of the agreed ids.
struct ConsensusStatistics {
  std::int64_t ranks = 0;
  std::int64_t max_ulps = 0;
  bool shared_noise = false;
  std::int64_t disagreements = 0;
  double disagreement_rate = 0.0;
  double disagreement_lower = 0.0, disagreement_upper = 0.0;
  double level = 0.0;
  std::int64_t post_consensus_mismatches = 0;
  std::vector<double> expected_target;  // the softmax law the ranks draw from
  std::optional<double> exact_tv;       // TV of the exact consensus law to it, where one exists
  std::string summary;
  std::optional<std::int64_t> collective_mismatches;  // set by a real collective's check
  bool operator==(const ConsensusStatistics&) const = default;
};

// A number that report.json writes as an integer or as a real, as the test produced it.
using Number = std::variant<std::int64_t, double>;

struct TestStatistics {
  TestLayer layer = TestLayer::kOmnibus;
  std::string test;  // "cressie-read(2/3)", "binomial", "ks", ...
  std::int64_t n = 0;
  std::int64_t bins = 0;  // 0 for a scalar test
  // Degrees of freedom: real for the chi-square family (pooling and Cressie-Read give real df;
  // report.json writes 7.0), an integer for a scalar test (0, or 1 for the exponent score).
  Number df = std::int64_t{0};
  // A count (structural violations, boundary draws, tail draws) or a real statistic; report.json
  // writes a count as an integer.
  Number statistic = 0.0;
  double p_value = 1.0;
  double p_adjusted = 1.0;
  double alpha = 0.0;
  double mde = 0.0;
  double power = 0.0;
  std::uint64_t seed = 0;
  std::optional<EffectSize> effect;
  std::vector<TopBin> top_bins;
  std::vector<double> expected;  // per bin, after pooling
  std::vector<std::int64_t> observed;
  std::vector<std::string> labels;
  std::optional<ConsensusStatistics> consensus;
  bool operator==(const TestStatistics&) const = default;

};

// A test as planned before its draws are counted: statistic 0, p-values 1, no bins yet.
TestStatistics PlannedTest(TestLayer layer, std::string test, std::int64_t n, double alpha, double mde, double power,
                           std::uint64_t seed);

}  // namespace sampcheck
