// SPDX-License-Identifier: Apache-2.0
// Self-contained HTML rendering of a report (reports/html_report.h).
#include "reports/html_report.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "reports/report_reader.h"
#include "reports/statistics_summary.h"
#include "reports/svg_plot.h"
#include "reports/text_escape.h"

namespace sampcheck::reports {
namespace {

constexpr char kStyle[] = R"(body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em;color:#222;max-width:70em}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #bbb;padding:.3em .7em;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}tr.fail td{background:#fde2e1}tfoot td{font-weight:bold}
.reason{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:.9em}
.banner{background:#fff3cd;border:1px solid #e0c060;padding:.5em 1em}
details{margin:.5em 0}summary{cursor:pointer}.verdict-fail{color:#b00020;font-weight:bold}
svg{display:block;margin:.5em 0;font-family:inherit;font-size:11px}
)";

std::string Cell(const std::string& text, const char* cls = nullptr) {
  return std::string("<td") + (cls ? std::string(" class=\"") + cls + "\"" : "") + ">" + text + "</td>";
}

std::vector<double> NumberArray(const nlohmann::json& object, const char* key) {
  std::vector<double> out;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const auto& v : *it) out.push_back(v.is_number() ? v.get<double>() : 0.0);
  return out;
}

std::vector<std::string> StringArray(const nlohmann::json& object, const char* key, const char* member = nullptr) {
  std::vector<std::string> out;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    const nlohmann::json& s = member ? (v.is_object() && v.contains(member) ? v[member] : nlohmann::json()) : v;
    out.push_back(s.is_string() ? s.get<std::string>() : s.dump());
  }
  return out;
}

std::string StatisticalSection(const nlohmann::json& report) {
  std::vector<double> p_values;
  double alpha = std::numeric_limits<double>::infinity();
  std::string cases;
  for (const auto& c : report["cases"]) {
    if (!c.contains("statistics") || !c["statistics"].is_object()) continue;
    const auto& s = c["statistics"];
    // Only hypothesis tests (alpha > 0) have p-values that are U(0,1) under the null; a
    // structural check (alpha 0) reports p = 0 or 1 and would bend the QQ plot.
    const auto a = NumberField(s, "alpha");
    const auto p = NumberField(s, "p_value");
    if (a && *a > 0 && p) {
      p_values.push_back(*p);
      alpha = std::min(alpha, *a);
    }
    const bool failed = c["verdict"] == "fail";
    cases += std::string("<details") + (failed ? " open=\"open\"" : "") + "><summary><span class=\"verdict-" +
             XmlEscape(c["verdict"].get<std::string>()) + "\">" + XmlEscape(c["verdict"].get<std::string>()) +
             "</span> " + XmlEscape(c["id"].get<std::string>()) + "</summary><p class=\"reason\">" +
             XmlEscape(StatisticsSummary(s)) + "</p>";
    FrequencyPlot plot{"expected vs observed counts: " + c["id"].get<std::string>(), StringArray(s, "labels"),
                       NumberArray(s, "expected"), NumberArray(s, "observed"), StringArray(s, "top_bins", "label")};
    if (!plot.expected.empty() && plot.expected.size() == plot.observed.size()) cases += FrequencyPlotSvg(plot);
    cases += "</details>\n";
  }
  if (cases.empty()) return "";
  std::string out = "<h2>Statistical cases</h2>\n<figure>" +
                    PValueQqSvg(p_values, std::isfinite(alpha) ? alpha : 0.0, "p-value QQ plot against U(0,1)") +
                    "<figcaption>Raw p-values of the " + std::to_string(p_values.size()) +
                    " hypothesis tests (statistical cases with alpha &gt; 0; structural checks left out) against "
                    "the uniform law, -log10 scales; the dashed line is the smallest alpha. Points far above the "
                    "diagonal are rejections.</figcaption></figure>\n";
  return out + cases;
}

}  // namespace

std::string HtmlReport(const nlohmann::json& report) {
  const auto stages = SummariseReportByStage(report);
  int passed = 0, failed = 0, skipped = 0;
  for (const auto& s : stages) passed += s.passed, failed += s.failed, skipped += s.skipped;
  const std::string backend = XmlEscape(report.value("backend", std::string("?")));

  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>"
      "<title>sampcheck report: " + backend + "</title><style>" + kStyle + "</style></head><body>\n";
  out += "<h1>sampcheck conformance: backend <code>" + backend + "</code></h1>\n";
  out += "<p class=\"summary\">" + std::to_string(passed + failed + skipped) + " cases: " + std::to_string(passed) +
         " passed, " + std::to_string(failed) + " failed, " + std::to_string(skipped) + " skipped. Golden set <code>" +
         XmlEscape(report.value("golden", std::string("?"))) + "</code>.</p>\n";
  if (!ReportIsComplete(report)) {
    out += "<p class=\"banner\">Incomplete run: this report was written before the last case.</p>\n";
  }

  out += "<h2>Stages</h2>\n<table id=\"stages\"><thead><tr><th>stage</th><th class=\"n\">pass</th>"
         "<th class=\"n\">fail</th><th class=\"n\">skip</th></tr></thead><tbody>\n";
  for (const auto& s : stages) {
    out += std::string("<tr") + (s.failed ? " class=\"fail\"" : "") + ">" + Cell(XmlEscape(s.stage)) +
           Cell(std::to_string(s.passed), "n") + Cell(std::to_string(s.failed), "n") +
           Cell(std::to_string(s.skipped), "n") + "</tr>\n";
  }
  out += "</tbody><tfoot><tr>" + Cell("total") + Cell(std::to_string(passed), "n") + Cell(std::to_string(failed), "n") +
         Cell(std::to_string(skipped), "n") + "</tr></tfoot></table>\n";

  if (failed > 0) {
    out += "<h2>Failing cases</h2>\n<table id=\"failures\"><thead><tr><th>case</th><th>reason</th></tr></thead><tbody>\n";
    for (const auto& c : report["cases"]) {
      if (c["verdict"] != "fail") continue;
      out += "<tr class=\"fail\">" + Cell("<code>" + XmlEscape(c["id"].get<std::string>()) + "</code>") +
             Cell(XmlEscape(c.value("reason", std::string())), "reason") + "</tr>\n";
    }
    out += "</tbody></table>\n";
  }
  if (skipped > 0) {
    out += "<details><summary>Skipped cases (" + std::to_string(skipped) +
           ")</summary>\n<table id=\"skipped\"><thead><tr><th>case</th><th>reason</th></tr></thead><tbody>\n";
    for (const auto& c : report["cases"]) {
      if (c["verdict"] != "skip") continue;
      out += "<tr>" + Cell("<code>" + XmlEscape(c["id"].get<std::string>()) + "</code>") +
             Cell(XmlEscape(c.value("reason", std::string())), "reason") + "</tr>\n";
    }
    out += "</tbody></table></details>\n";
  }
  out += StatisticalSection(report);
  const nlohmann::json tool = report.value("tool", nlohmann::json::object());
  const auto tool_field = [&](const char* key) {
    return tool.is_object() && tool.contains(key) && tool[key].is_string() ? tool[key].get<std::string>() : "";
  };
  out += "<p><small>" + XmlEscape(tool_field("name")) + " " + XmlEscape(tool_field("version")) + ", report format " +
         std::to_string(report["format_version"].get<int>()) + "</small></p>\n</body></html>\n";
  return out;
}

}  // namespace sampcheck::reports
