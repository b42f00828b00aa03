// SPDX-License-Identifier: Apache-2.0
// Markdown rendering of a report (reports/markdown_report.h).
#include "reports/markdown_report.h"

#include "reports/report_reader.h"
#include "reports/statistics_summary.h"
#include "reports/text_escape.h"

namespace sampcheck::reports {
namespace {

// GitHub caps a job summary at 1 MiB; 200 rows of a few hundred bytes stay well inside it.
constexpr std::size_t kMaxMarkdownRows = 200;

std::string Omitted(std::size_t rows, const char* what) {
  if (rows <= kMaxMarkdownRows) return "";
  return "\n... and " + std::to_string(rows - kMaxMarkdownRows) + " more " + what +
         " cases: see report.html or report.json.\n";
}

std::string Row(std::initializer_list<std::string> cells) {
  std::string out = "|";
  for (const auto& c : cells) out += " " + c + " |";
  return out + "\n";
}

std::string NumberCell(const nlohmann::json& object, const char* key) {
  const auto value = NumberField(object, key);
  return value ? FormatNumber(*value) : "";
}

std::string EffectCell(const nlohmann::json& statistics) {
  const auto effect = statistics.find("effect");
  if (effect == statistics.end() || !effect->is_object()) return "";
  const auto value = NumberField(*effect, "value");
  if (!value) return "";
  std::string out = MarkdownCellEscape(StringField(*effect, "name", "effect")) + " = " + FormatNumber(*value);
  const auto interval = effect->find("interval");
  if (interval != effect->end() && interval->is_array() && interval->size() == 2 && (*interval)[0].is_number() &&
      (*interval)[1].is_number()) {
    out += " [" + FormatNumber((*interval)[0].get<double>()) + ", " + FormatNumber((*interval)[1].get<double>()) + "]";
  }
  return out;
}

}  // namespace

std::string MarkdownSummary(const nlohmann::json& report) {
  const auto stages = SummariseReportByStage(report);
  int passed = 0, failed = 0, skipped = 0;
  for (const auto& s : stages) passed += s.passed, failed += s.failed, skipped += s.skipped;

  std::string out = "# sampcheck conformance: backend " +
                    MarkdownCellEscape(report.value("backend", std::string("?"))) + "\n\n";
  out += std::to_string(passed + failed + skipped) + " cases: " + std::to_string(passed) + " passed, " +
         std::to_string(failed) + " failed, " + std::to_string(skipped) + " skipped. Golden set: " +
         MarkdownCellEscape(report.value("golden", std::string("?"))) + ".\n\n";
  if (!ReportIsComplete(report)) out += "**Incomplete run**: the report was written before the last case.\n\n";

  out += Row({"stage", "pass", "fail", "skip"}) + "| --- | ---: | ---: | ---: |\n";
  for (const auto& s : stages) {
    out += Row({MarkdownCellEscape(s.stage), std::to_string(s.passed), std::to_string(s.failed), std::to_string(s.skipped)});
  }
  out += Row({"**total**", std::to_string(passed), std::to_string(failed), std::to_string(skipped)});

  if (failed > 0) {
    out += "\n## Failing cases\n\n" + Row({"case", "reason"}) + "| --- | --- |\n";
    std::size_t rows = 0;
    for (const auto& c : report["cases"]) {
      if (c["verdict"] != "fail" || rows++ >= kMaxMarkdownRows) continue;
      std::string reason = c.value("reason", std::string());
      if (c.contains("statistics") && c["statistics"].is_object()) {
        reason += '\n';  // appended separately: GCC 12 -Wrestrict misfires on "\n" + std::string
        reason += StatisticsSummary(c["statistics"]);
      }
      out += Row({MarkdownCellEscape(c["id"].get<std::string>()), MarkdownCellEscape(reason)});
    }
    out += Omitted(rows, "failing");
  }

  std::string statistical;
  std::size_t statistical_rows = 0;
  for (const auto& c : report["cases"]) {
    if (!c.contains("statistics") || !c["statistics"].is_object() || statistical_rows++ >= kMaxMarkdownRows) continue;
    const auto& s = c["statistics"];
    statistical += Row({MarkdownCellEscape(c["id"].get<std::string>()), c["verdict"].get<std::string>(),
                        MarkdownCellEscape(StringField(s, "test", "")), NumberCell(s, "p_value"),
                        NumberCell(s, "p_adjusted"), NumberCell(s, "alpha"), EffectCell(s)});
  }
  if (!statistical.empty()) {
    out += "\n## Statistical cases\n\n" + Row({"case", "verdict", "test", "p", "p (Holm)", "alpha", "effect"}) +
           "| --- | --- | --- | ---: | ---: | ---: | --- |\n" + statistical + Omitted(statistical_rows, "statistical");
  }
  return out;
}

}  // namespace sampcheck::reports
