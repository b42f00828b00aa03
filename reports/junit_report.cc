// SPDX-License-Identifier: Apache-2.0
// JUnit XML rendering of a report (reports/junit_report.h).
#include "reports/junit_report.h"

#include "reports/report_reader.h"
#include "reports/statistics_summary.h"
#include "reports/text_escape.h"

namespace sampcheck::reports {
namespace {

std::string Attribute(const char* name, const std::string& value) {
  return std::string(" ") + name + "=\"" + XmlEscape(value) + "\"";
}

// Jenkins' JUnit schema (junit-10.xsd) allows `skipped` on <testsuite> only, not on
// <testsuites>: skipped < 0 leaves it out.
std::string Counts(int tests, int failures, int skipped) {
  return Attribute("tests", std::to_string(tests)) + Attribute("failures", std::to_string(failures)) +
         Attribute("errors", "0") + (skipped >= 0 ? Attribute("skipped", std::to_string(skipped)) : "") +
         Attribute("time", "0");
}

std::string Testcase(const nlohmann::json& c) {
  const std::string verdict = c["verdict"];
  const std::string reason = c.value("reason", std::string());
  const nlohmann::json statistics = c.value("statistics", nlohmann::json());
  std::string out = "    <testcase" + Attribute("classname", c["stage"]) + Attribute("name", c["id"]) +
                    Attribute("time", "0");
  if (verdict == "pass" && statistics.is_null()) return out + "/>\n";
  out += ">\n";
  if (verdict == "fail") {
    std::string body = reason;
    if (!statistics.is_null()) body += "\n" + StatisticsSummary(statistics);
    out += "      <failure" + Attribute("message", reason) + Attribute("type", c.value("comparison", std::string("fail"))) +
           ">" + XmlEscape(body) + "</failure>\n";
  } else if (verdict == "skip") {
    out += "      <skipped" + Attribute("message", reason) + "/>\n";
  }
  if (!statistics.is_null()) out += "      <system-out>" + XmlEscape(StatisticsSummary(statistics)) + "</system-out>\n";
  return out + "    </testcase>\n";
}

}  // namespace

std::string JunitXml(const nlohmann::json& report) {
  int passed = 0, failed = 0, skipped = 0;
  const auto stages = SummariseReportByStage(report);
  for (const auto& s : stages) passed += s.passed, failed += s.failed, skipped += s.skipped;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites" + Attribute("name", "sampcheck conform: " + report.value("backend", std::string("?"))) +
         Counts(passed + failed + skipped, failed, -1) + ">\n";
  for (const auto& s : stages) {
    out += "  <testsuite" + Attribute("name", s.stage) + Counts(s.passed + s.failed + s.skipped, s.failed, s.skipped) +
           ">\n";
    for (const auto& c : report["cases"]) {
      if (c["stage"] == s.stage) out += Testcase(c);
    }
    out += "  </testsuite>\n";
  }
  return out + "</testsuites>\n";
}

}  // namespace sampcheck::reports
