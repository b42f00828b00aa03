// SPDX-License-Identifier: Apache-2.0
// One-line text of a statistical case (reports/statistics_summary.h).
#include "reports/statistics_summary.h"

#include <cstdio>

namespace sampcheck::reports {

std::optional<double> NumberField(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string StringField(const nlohmann::json& object, const char* key, const std::string& fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::string FormatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string FormatFixed(double value, int decimals) {
  // 310 digits before the point for DBL_MAX, the decimals, sign and point: 400 is enough for
  // any decimals up to 80.
  char text[400];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string FormatCount(double value) { return FormatFixed(value, 0); }

std::string StatisticsSummary(const nlohmann::json& s) {
  if (!s.is_object()) return "";
  std::string out = StringField(s, "test", "test");
  const auto p = NumberField(s, "p_value");
  const auto p_adjusted = NumberField(s, "p_adjusted");
  const auto alpha = NumberField(s, "alpha");
  if (p) out += ": p = " + FormatNumber(*p);
  if (p_adjusted) out += std::string(p ? "," : ":") + " Holm-adjusted " + FormatNumber(*p_adjusted);
  if (p_adjusted && alpha) out += (*p_adjusted < *alpha ? " < alpha " : " >= alpha ") + FormatNumber(*alpha);
  std::string sample;
  if (const auto n = NumberField(s, "n")) sample = "n = " + FormatCount(*n);
  if (const auto bins = NumberField(s, "bins"); bins && *bins > 0) {
    sample += (sample.empty() ? "" : ", ") + FormatCount(*bins) + " bins";
  }
  if (!sample.empty()) out += "; " + sample;
  if (const auto effect = s.find("effect"); effect != s.end() && effect->is_object()) {
    if (const auto value = NumberField(*effect, "value")) {
      out += "; " + StringField(*effect, "name", "effect") + " = " + FormatNumber(*value);
      const auto interval = effect->find("interval");
      if (interval != effect->end() && interval->is_array() && interval->size() == 2 && (*interval)[0].is_number() &&
          (*interval)[1].is_number()) {
        out += " [" + FormatNumber((*interval)[0].get<double>()) + ", " + FormatNumber((*interval)[1].get<double>()) + "]";
        if (const auto level = NumberField(*effect, "level")) out += " (" + FormatNumber(*level * 100) + "%)";
      }
    }
  }
  if (const auto top = s.find("top_bins"); top != s.end() && top->is_array() && !top->empty() && (*top)[0].is_object()) {
    const auto& bin = (*top)[0];
    const auto observed = NumberField(bin, "observed");
    const auto expected = NumberField(bin, "expected");
    if (observed && expected) {
      out += "; top bin " + StringField(bin, "label", "?") + ": observed " + FormatCount(*observed) +
             ", expected " + FormatNumber(*expected);
    }
  }
  return out;
}

}  // namespace sampcheck::reports
