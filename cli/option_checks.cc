// SPDX-License-Identifier: Apache-2.0
// Range checks for numeric options (cli/option_checks.h).
#include "cli/option_checks.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>

namespace sampcheck::cli {

namespace {

std::string Number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

CLI::Validator FiniteInRange(double min, double max, bool min_open) {
  const std::string range = (min_open ? "(" : "[") + Number(min) + ", " + Number(max) + "]";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool parsed = !text.empty() && end == text.c_str() + text.size();
        if (!parsed || !std::isfinite(v) || (min_open ? !(v > min) : !(v >= min)) || !(v <= max)) {
          return text + " is not a number in " + range;
        }
        return std::string();
      },
      "NUMBER in " + range);
}

CLI::Validator Uint64Text() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string max = std::to_string(std::numeric_limits<std::uint64_t>::max());
        const std::string why = text + " is not an integer in [0, " + max + "]";
        if (text.empty() || text.size() > max.size()) return why;
        for (char ch : text) {
          if (ch < '0' || ch > '9') return why;
        }
        if (text.size() == max.size() && text > max) return why;  // same length: compare as text
        return std::string();
      },
      "UINT64");
}

}  // namespace sampcheck::cli
