// SPDX-License-Identifier: Apache-2.0
#pragma once
// One line of text for the `statistics` object of a statistical case (docs/spec/report.md
// "Statistical cases"), shared by the JUnit, Markdown and HTML renderers and the gate, e.g.
//   cressie-read(2/3): p = 2.1e-09, Holm-adjusted 4.2e-07 < alpha 1e-06; n = 100000, 37 bins;
//   TV = 0.0051 [0.0042, 0.0060] (99%); top bin 17: observed 612, expected 500.0
// Fields that are absent are left out, so a partial object still gives a readable line.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace sampcheck::reports {

std::string StatisticsSummary(const nlohmann::json& statistics);

// A string from `object[key]`, or `fallback` when it is absent or not a string (the
// statistics object is written by other tools too; a wrong type must not abort a rendering).
std::string StringField(const nlohmann::json& object, const char* key, const std::string& fallback);

// A number from `object[key]`, or nullopt when it is absent or not a number.
std::optional<double> NumberField(const nlohmann::json& object, const char* key);

// The number formatters of every renderer (text, Markdown, HTML, SVG, the gate):
// "%.4g"-style text for a double, as the renderers print numbers;
std::string FormatNumber(double value);
// "%.*f" with `decimals` digits after the point (SVG coordinates: 2);
std::string FormatFixed(double value, int decimals);
// a count (n, bins, observed) in full: "%.0f", so 100000 is not shortened to 1e+05.
std::string FormatCount(double value);

}  // namespace sampcheck::reports
