// SPDX-License-Identifier: Apache-2.0
// report.json's `statistics` object (reports/statistics_json.h).
#include "reports/statistics_json.h"

#include <string>
#include <variant>

namespace sampcheck::reports {

nlohmann::json StatisticsToJson(const TestStatistics& s) {
  nlohmann::json j = nlohmann::json::object();
  j["layer"] = std::string(TestLayerName(s.layer));
  j["test"] = s.test;
  j["n"] = s.n;
  j["bins"] = s.bins;
  // An integer stays an integer in the report, a real stays a real (7.0): core/test_statistics.h.
  std::visit([&](auto v) { j["df"] = v; }, s.df);
  std::visit([&](auto v) { j["statistic"] = v; }, s.statistic);
  j["p_value"] = s.p_value;
  j["p_adjusted"] = s.p_adjusted;
  j["alpha"] = s.alpha;
  j["mde"] = s.mde;
  j["power"] = s.power;
  j["seed"] = s.seed;
  if (s.effect) {
    j["effect"] = {{"name", s.effect->name},
                   {"value", s.effect->value},
                   {"interval", nlohmann::json::array({s.effect->lower, s.effect->upper})},
                   {"level", s.effect->level}};
  }
  j["top_bins"] = nlohmann::json::array();
  for (const auto& bin : s.top_bins) {
    j["top_bins"].push_back(
        {{"label", bin.label}, {"observed", bin.observed}, {"expected", bin.expected}, {"residual", bin.residual}});
  }
  j["expected"] = s.expected;
  j["observed"] = s.observed;
  j["labels"] = s.labels;
  if (const auto& c = s.consensus) {
    j["ranks"] = c->ranks;
    j["max_ulps"] = c->max_ulps;
    j["shared_noise"] = c->shared_noise;
    j["disagreement"] = {{"count", c->disagreements},
                         {"rate", c->disagreement_rate},
                         {"interval", nlohmann::json::array({c->disagreement_lower, c->disagreement_upper})},
                         {"level", c->level}};
    j["post_consensus_mismatches"] = c->post_consensus_mismatches;
    j["expected_target"] = c->expected_target;
    if (c->exact_tv) j["exact_tv"] = *c->exact_tv;
    j["summary"] = c->summary;
    if (c->collective_mismatches) j["collective_mismatches"] = *c->collective_mismatches;
  }
  return j;
}

}  // namespace sampcheck::reports
