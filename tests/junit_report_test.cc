// SPDX-License-Identifier: Apache-2.0
// JUnit XML rendering (reports/junit_report.h). The fixture tests/data/reports/mixed_run.json
// is hand-made; expected counts are counted by hand from it (7 cases: 2 failed, 1 skipped;
// stages draws, draws_<vllm>, greedy, top_p). Well-formedness and the case-by-case mapping
// are checked independently by tests/python/check_junit_xml.py (Python's expat parser).
#include "reports/junit_report.h"

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

TEST(JunitReport, HeadsTheDocumentWithTotals) {
  const std::string xml = JunitXml(LoadReport(kMixedRun));
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"sampcheck conform: "
                      "my&lt;kernel&gt;&amp;co\" tests=\"7\" failures=\"2\" errors=\"0\" time=\"0\">",
                      0),
            0u)
      << xml;
}

TEST(JunitReport, OneSuitePerStageWithItsCounts) {
  const std::string xml = JunitXml(LoadReport(kMixedRun));
  EXPECT_NE(xml.find("<testsuite name=\"greedy\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"top_p\" tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"1\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"draws_&lt;vllm&gt;\" tests=\"1\" failures=\"1\""), std::string::npos);
}

TEST(JunitReport, EscapesTheFailureMessage) {
  const std::string xml = JunitXml(LoadReport(kMixedRun));
  // The reason, by hand: bits differ at row 0 token 3: <b>x</b> & "q" | it's\nsecond line \x01 end
  EXPECT_NE(xml.find("<failure message=\"bits differ at row 0 token 3: &lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot; | "
                     "it&#39;s&#10;second line \\x01 end\" type=\"exact\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<skipped message=\"backend &#39;x&#39; does not support stage top_p\"/>"), std::string::npos);
}

TEST(JunitReport, StatisticalCasesCarryTheirSummary) {
  const std::string xml = JunitXml(LoadReport(kMixedRun));
  EXPECT_NE(xml.find("<system-out>cressie-read(2/3): p = 1e-07, Holm-adjusted 4e-07 &lt; alpha 1e-06; n = 10000, "
                     "4 bins; TV = 0.06 [0.05, 0.07] (99%); top bin 7: observed 5400, expected 5000</system-out>"),
            std::string::npos)
      << xml;
}

TEST(JunitReport, PythonsXmlParserAgreesCaseByCase) {
  const auto out = std::filesystem::temp_directory_path() / "sampcheck_junit_report_test.xml";
  WriteFileAtomically(out, JunitXml(LoadReport(kMixedRun)));
  const std::string command = "/usr/bin/python3 '" + (kSource / "tests/python/check_junit_xml.py").string() + "' '" +
                              out.string() + "' '" + kMixedRun.string() + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace sampcheck::reports
