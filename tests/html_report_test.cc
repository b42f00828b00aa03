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
