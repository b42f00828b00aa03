// SPDX-License-Identifier: Apache-2.0
// Markdown rendering (reports/markdown_report.h) of the hand-made fixture
// tests/data/reports/mixed_run.json; the expected rows are written by hand from it.
#include "reports/markdown_report.h"

#include <filesystem>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "reports/report_reader.h"

namespace sampcheck::reports {
namespace {

const std::filesystem::path kMixedRun =
    std::filesystem::path(SAMPCHECK_SOURCE_DIR) / "tests/data/reports/mixed_run.json";

TEST(MarkdownReport, StartsWithTitleAndTotals) {
  const std::string md = MarkdownSummary(LoadReport(kMixedRun));
  EXPECT_EQ(md.rfind("# sampcheck conformance: backend my&lt;kernel&gt;&amp;co\n\n"
                     "7 cases: 4 passed, 2 failed, 1 skipped. Golden set: golden/v1.\n\n",
                     0),
            0u)
      << md;
}

TEST(MarkdownReport, StageTableHasOneRowPerStageAndATotal) {
  const std::string md = MarkdownSummary(LoadReport(kMixedRun));
  EXPECT_NE(md.find("| stage | pass | fail | skip |\n| --- | ---: | ---: | ---: |\n"
                    "| draws | 2 | 0 | 0 |\n| draws_&lt;vllm&gt; | 0 | 1 | 0 |\n| greedy | 1 | 1 | 0 |\n"
                    "| top_p | 1 | 0 | 1 |\n| **total** | 4 | 2 | 1 |\n"),
            std::string::npos)
      << md;
}

TEST(MarkdownReport, ListsFailingCasesWithEscapedReasons) {
  const std::string md = MarkdownSummary(LoadReport(kMixedRun));
  EXPECT_NE(md.find("| greedy/ties/vllm | bits differ at row 0 token 3: &lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot; \\| "
                    "it&#39;s<br>second line \\\\x01 end |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| draws/inverse_cdf/vllm | rejected: Holm-adjusted p 4e-07 &lt; alpha 1e-06<br>cressie-read(2/3)"),
            std::string::npos);
}

TEST(MarkdownReport, TabulatesStatisticalCases) {
  const std::string md = MarkdownSummary(LoadReport(kMixedRun));
  EXPECT_NE(md.find("| draws/race/canonical | pass | cressie-read(2/3) | 0.031 | 0.093 | 1e-06 | TV = 0.006 [0.002, 0.01] |"),
            std::string::npos)
      << md;
}

TEST(MarkdownReport, EveryTableRowHasItsColumnCount) {
  // A row with an unescaped | would have more cells than its header.
  std::istringstream lines(MarkdownSummary(LoadReport(kMixedRun)));
  std::size_t columns = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != '|') {
      columns = 0;
      continue;
    }
    std::size_t cells = 0;
    for (std::size_t i = 0; i < line.size(); ++i) cells += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    if (columns == 0) columns = cells;
    EXPECT_EQ(cells, columns) << line;
  }
}

TEST(MarkdownReport, CapsLongTablesAt200Rows) {
  auto report = LoadReport(kMixedRun);
  const nlohmann::json failing = report["cases"][1];  // greedy/ties/vllm
  report["cases"] = nlohmann::json::array();
  for (int i = 0; i < 205; ++i) {
    nlohmann::json c = failing;
    c["id"] = "greedy/case" + std::to_string(i) + "/vllm";
    report["cases"].push_back(c);
  }
  const std::string md = MarkdownSummary(report);
  EXPECT_NE(md.find("| greedy/case199/vllm |"), std::string::npos);
  EXPECT_EQ(md.find("| greedy/case200/vllm |"), std::string::npos);
  EXPECT_NE(md.find("\n... and 5 more failing cases: see report.html or report.json.\n"), std::string::npos);
}

TEST(MarkdownReport, LeavesOutEmptySectionsAndFlagsIncompleteRuns) {
  auto report = LoadReport(kMixedRun);
  report["complete"] = false;
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& c : report["cases"]) {
    if (c["verdict"] == "pass" && !c.contains("statistics")) kept.push_back(c);
  }
  report["cases"] = kept;
  const std::string md = MarkdownSummary(report);
  EXPECT_EQ(md.find("## Failing cases"), std::string::npos);
  EXPECT_EQ(md.find("## Statistical cases"), std::string::npos);
  EXPECT_NE(md.find("**Incomplete run**"), std::string::npos);
}

}  // namespace
}  // namespace sampcheck::reports
