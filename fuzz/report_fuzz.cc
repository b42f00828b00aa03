// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: report.json as the renderers and the CI gate read it
// (reports/report_reader.h, docs/spec/report.md): parse, validate, then render JUnit, Markdown
// and HTML and gate the report against itself. Oracle: a report that validates renders and
// gates without error; one that does not is refused with InputError; anything else (another
// exception type, a crash, a sanitizer report) is a finding (docs/fuzzing.md). The gate may
// refuse a valid report with InputError (duplicate case ids).
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "reports/gate.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sampcheck::reports;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json report = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded()) return 0;
  try {
    ValidateReport(report, "fuzz/report.json");
  } catch (const sampcheck::InputError&) {
    return 0;
  }
  (void)ReportIsComplete(report);
  (void)JunitXml(report);
  (void)MarkdownSummary(report);
  (void)HtmlReport(report);
  // The gate refuses some valid reports on purpose (a case id that appears twice: it matches
  // cases by id) with an InputError naming the id; that is a clear refusal, not a finding.
  try {
    const GateResult gate = EvaluateGate(report, report, GateOptions{}, "report", "baseline");
    (void)FormatGateResult(gate);
  } catch (const sampcheck::InputError&) {
  }
  return 0;
}
