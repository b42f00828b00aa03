// SPDX-License-Identifier: Apache-2.0
// HTML rendering (reports/html_report.h) of the hand-made fixture
// tests/data/reports/mixed_run.json: escaping and self-containedness here, and the whole page
// checked independently by tests/python/check_html_report.py (an XML parse of the page against
// the JSON). tests/html_report_screenshot_test.sh renders it in a real browser.
#include "reports/html_report.h"

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_reader.h"

namespace sampcheck::reports {
namespace {

const std::filesystem::path kSource(SAMPCHECK_SOURCE_DIR);
const std::filesystem::path kMixedRun = kSource / "tests/data/reports/mixed_run.json";

TEST(HtmlReport, EscapesEveryUserText) {
  const std::string html = HtmlReport(LoadReport(kMixedRun));
  EXPECT_EQ(html.find("<b>x</b>"), std::string::npos);
  EXPECT_EQ(html.find("my<kernel>"), std::string::npos);
  EXPECT_NE(html.find("<title>sampcheck report: my&lt;kernel&gt;&amp;co</title>"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot; | it&#39;s&#10;second line \\x01 end"),
            std::string::npos);
}

TEST(HtmlReport, QqPlotLeavesOutStructuralChecks) {
  // Make draws/race a structural check (alpha 0, p 0): 2 of the 3 statistical cases remain,
  // and the dashed line sits at the smallest positive alpha, 1e-6.
  auto report = LoadReport(kMixedRun);
  for (auto& c : report["cases"]) {
    if (c["id"] == "draws/race/canonical") c["statistics"]["alpha"] = 0.0, c["statistics"]["p_value"] = 0.0;
  }
  const std::string html = HtmlReport(report);
  EXPECT_NE(html.find("Raw p-values of the 2 hypothesis tests"), std::string::npos);
  EXPECT_NE(html.find("alpha = 1e-06"), std::string::npos);
}

TEST(HtmlReport, ListsSkippedCasesWithReasons) {
  const std::string html = HtmlReport(LoadReport(kMixedRun));
  EXPECT_NE(html.find("<details><summary>Skipped cases (1)</summary>\n<table id=\"skipped\">"), std::string::npos);
  EXPECT_NE(html.find("<tr><td><code>top_p/boundary|pipe/sglang</code></td><td class=\"reason\">backend &#39;x&#39; "
                      "does not support stage top_p</td></tr>"),
            std::string::npos)
      << html;
}

TEST(HtmlReport, FetchesNothing) {
  const std::string html = HtmlReport(LoadReport(kMixedRun));
  for (const char* needle : {"<script", "src=", "href=", "url(", "@import", "@font-face", "<link", "<img"}) {
    EXPECT_EQ(html.find(needle), std::string::npos) << needle;
  }
  // The only URL is the SVG namespace name, which a browser never fetches.
  std::size_t urls = 0, namespaces = 0;
  for (std::size_t pos = html.find("http"); pos != std::string::npos; pos = html.find("http", pos + 1)) {
    ++urls;
    namespaces += html.compare(pos, 27, "http://www.w3.org/2000/svg\"") == 0;
  }
  EXPECT_EQ(urls, namespaces + 1);  // + the http-equiv attribute
}

TEST(HtmlReport, OpensFailedStatisticalCasesAndFlagsIncompleteRuns) {
  auto report = LoadReport(kMixedRun);
  std::string html = HtmlReport(report);
  EXPECT_NE(html.find("<details open=\"open\"><summary><span class=\"verdict-fail\">fail</span> draws/inverse_cdf/vllm"),
            std::string::npos);
  EXPECT_NE(html.find("<details><summary><span class=\"verdict-pass\">pass</span> draws/gumbel/canonical"),
            std::string::npos);
  EXPECT_EQ(html.find("Incomplete run"), std::string::npos);
  report["complete"] = false;
  html = HtmlReport(report);
  EXPECT_NE(html.find("Incomplete run"), std::string::npos);
}

// The statistics object comes from other tools too: fields of the wrong type are left out,
// never a crash (all three renderers).
TEST(HtmlReport, ToleratesMistypedStatisticsFields) {
  auto report = LoadReport(kMixedRun);
  for (auto& c : report["cases"]) {
    if (!c.contains("statistics")) continue;
    c["statistics"] = {{"test", 3},        {"p_value", "small"},     {"alpha", nullptr},
                       {"effect", "big"},  {"top_bins", {1, "x"}},   {"labels", {1}},
                       {"expected", {"a"}}, {"observed", nullptr}};
  }
  std::string html, xml, md;
  ASSERT_NO_THROW(html = HtmlReport(report));
  ASSERT_NO_THROW(xml = JunitXml(report));
  ASSERT_NO_THROW(md = MarkdownSummary(report));
  EXPECT_NE(html.find("<table id=\"stages\">"), std::string::npos);
}

TEST(HtmlReport, PythonsXmlParserAgreesWithTheJson) {
  const auto out = std::filesystem::temp_directory_path() / "sampcheck_html_report_test.html";
  WriteFileAtomically(out, HtmlReport(LoadReport(kMixedRun)));
  const std::string command = "/usr/bin/python3 '" + (kSource / "tests/python/check_html_report.py").string() +
                              "' '" + out.string() + "' '" + kMixedRun.string() + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace sampcheck::reports
