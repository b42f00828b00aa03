// SPDX-License-Identifier: Apache-2.0
// `conform` as one library call (harness/conform.h).
#include "harness/conform.h"

#include <iterator>

#include "core/error.h"
#include "core/profile.h"
#include "core/stage_catalogue.h"
#include "harness/decode_steps_check.h"
#include "harness/golden_set_invariance.h"
#include "harness/tp_consensus_check.h"
#include "reports/partial_report.h"

namespace sampcheck::harness {

int CountFailures(const std::vector<CaseResult>& results) {
  int failed = 0;
  for (const auto& r : results) failed += r.verdict == Verdict::kFail;
  return failed;
}

void RequireSomethingRan(const std::vector<CaseResult>& results, const std::string& backend) {
  for (const auto& r : results) {
    if (r.verdict != Verdict::kSkip) return;
  }
  throw InputError("no case was run: the selection is empty or backend '" + backend +
                   "' supports none of the selected stages");
}

ConformResult RunConform(Backend& backend, const ConformOptions& options) {
  for (const auto& s : options.stages) RequireStage(s);
  for (const auto& p : options.profiles) ParseProfile(p);
  const std::string label = options.backend_label.empty() ? backend.Name() : options.backend_label;
  golden::VerifyOptions verify{options.stages, options.profiles, options.canonical_rule, {}};
  // The report is written as the run goes, so a run that is killed keeps what it judged.
  reports::PartialReport partial(options.report_dir, {label, options.golden_dir.string()});
  verify.on_case = [&](const CaseResult& r, std::size_t done, std::size_t total) {
    if (options.on_case) options.on_case(r, done, total);
    partial.Add(r);
  };
  ConformResult out;
  out.results = golden::VerifyGoldenSet(options.golden_dir, backend, verify);
  // A backend that claims only the distributional tier (gpu-fast) skips every golden case;
  // its statistical cases are what runs, so the check waits for them when they are on.
  if (!options.statistics) RequireSomethingRan(out.results, label);
  if (options.batch_invariance) {
    auto invariance = CheckGoldenSetInvariance(options.golden_dir, backend, verify);
    out.results.insert(out.results.end(), std::make_move_iterator(invariance.begin()), std::make_move_iterator(invariance.end()));
    // Seeds across rows and steps of the decode steps, on the harness's own case
    // (docs/spec/decode_steps.md "The multi-step harness").
    for (auto& r : CheckDecodeSteps(backend, options.stages, options.profiles)) {
      partial.Add(r);
      out.results.push_back(std::move(r));
    }
    // The pipeline's seeded draws run as each of four tensor-parallel ranks
    // (docs/spec/tp_consensus.md "Per-rank draws").
    for (auto& r : CheckTpRanks(backend, options.stages, options.profiles)) {
      partial.Add(r);
      out.results.push_back(std::move(r));
    }
  }
  partial.Flush();  // report.json holds every golden case before the (long) statistical cases
  if (options.statistics) {  // the statistical cases (docs/spec/harness.md), CI-sized unless thorough
    StatisticalRunOptions statistical = options.statistical;
    statistical.stages = options.stages;
    statistical.profiles = options.profiles;
    auto stats = RunStatisticalCases(backend, statistical);
    out.results.insert(out.results.end(), std::make_move_iterator(stats.begin()), std::make_move_iterator(stats.end()));
    RequireSomethingRan(out.results, label);
  }
  out.report = partial.Finish(out.results);
  out.failed = CountFailures(out.results);
  return out;
}

}  // namespace sampcheck::harness
