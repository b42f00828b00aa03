// SPDX-License-Identifier: Apache-2.0
#pragma once
// report.html: a report as one self-contained HTML page (docs/spec/report.md "HTML"): inline
// CSS and inline SVG only; no script, no external font, image or style sheet, and a
// Content-Security-Policy of default-src 'none' so a browser fetches nothing even if a
// renderer bug let markup through. Every user-supplied text is escaped
// (reports/text_escape.h). The markup is also well-formed XML (void elements self-closed, only
// XML's five entities and numeric references), so tests parse it with an XML parser.
//
// Sections, in order: title and totals (plus a banner when the run is incomplete); the
// per-stage table <table id="stages"> (stage, pass, fail, skip; a total row in <tfoot>);
// failing cases <table id="failures"> with their reasons (omitted when none failed); skipped
// cases with their reasons, <table id="skipped"> in a closed <details> (omitted when none);
// and for statistical cases the QQ plot of the p-values of those with alpha > 0 (structural
// checks, alpha 0, report p = 0 or 1 and are left out) against U(0,1), then per case
// a <details> block (open when the case failed) with its one-line statistics summary and a
// plot of expected vs observed counts per bin with the top residual bins marked
// (reports/svg_plot.h).

#include <string>

#include <nlohmann/json.hpp>

namespace sampcheck::reports {

// `report` must have passed ValidateReport (reports/report_reader.h).
std::string HtmlReport(const nlohmann::json& report);

}  // namespace sampcheck::reports
