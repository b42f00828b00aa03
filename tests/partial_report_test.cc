// SPDX-License-Identifier: Apache-2.0
// Report-as-you-go (reports/partial_report.h): after every Add the file equals the full
// writer's output for the cases so far with "complete": false; Finish writes "complete": true.
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "reports/partial_report.h"

namespace sampcheck::reports {
namespace {

TEST(PartialReport, EveryWriteEqualsTheFullWriterAndFinishCompletes) {
  const auto dir = std::filesystem::temp_directory_path() / ("sampcheck_partial_" + std::to_string(::getpid()));
  const RunInfo run{"plugin:x.so", "golden/v1"};
  std::vector<golden::CaseResult> results = {
      {"greedy/edges/canonical", "greedy", "canonical", "exact", golden::Verdict::kPass, "", nullptr},
      {"greedy/single_column/canonical", "greedy", "canonical", "exact", golden::Verdict::kFail,
       "backend process crashed with SIGSEGV (segmentation fault) while running this case", nullptr},
      {"top_p/x/vllm", "top_p", "vllm", "exact", golden::Verdict::kSkip, "not supported \"quoted\"\n", nullptr},
  };
  results[2].statistics = {{"n", 3}, {"nested", {{"a", {1, 2}}}}};
  PartialReport partial(dir, run);
  EXPECT_EQ(ReadWholeFile(dir / "report.json"), ReportToJson(run, {}, false).dump(2) + "\n");
  std::vector<golden::CaseResult> so_far;
  for (const auto& r : results) {
    partial.Add(r);
    so_far.push_back(r);
    EXPECT_EQ(ReadWholeFile(dir / "report.json"), ReportToJson(run, so_far, false).dump(2) + "\n");
  }
  EXPECT_EQ(nlohmann::json::parse(ReadWholeFile(dir / "report.json"))["complete"], false);
  partial.Finish(results);
  const auto final_report = nlohmann::json::parse(ReadWholeFile(dir / "report.json"));
  EXPECT_EQ(final_report["complete"], true);
  EXPECT_EQ(final_report["summary"]["cases"], 3);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sampcheck::reports
