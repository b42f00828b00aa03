// SPDX-License-Identifier: Apache-2.0
// Inline SVG plots of the HTML report (reports/svg_plot.h).
#include "reports/svg_plot.h"

#include <algorithm>
#include <cmath>

#include "reports/statistics_summary.h"
#include "reports/text_escape.h"

namespace sampcheck::reports {
namespace {

// Plot geometry in SVG user units (CSS pixels at 100% zoom).
constexpr double kWidth = 640, kHeight = 260;
constexpr double kLeft = 56, kRight = 12, kTop = 28, kBottom = 44;
constexpr std::size_t kMaxLabelledBins = 24;  // more labels than this overlap at 640 px
// Above this many bins a bar would be under 4.5 px wide (572 px of plot): the counts are drawn
// as two polylines instead, which also keeps a 150k-bin table from bloating the page.
constexpr std::size_t kMaxBarBins = 128;
constexpr double kMaxMinusLog10 = 300;        // -log10 of p = 0 (DBL_TRUE_MIN is 10^-323.3)

// Coordinates with two decimals; tick and tooltip values as every renderer prints numbers.
std::string Fixed(double value) { return FormatFixed(value, 2); }
std::string Tick(double value) { return FormatNumber(value); }

std::string Open(const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" + Fixed(kWidth) + "\" height=\"" +
         Fixed(kHeight) + "\" viewBox=\"0 0 " + Fixed(kWidth) + " " + Fixed(kHeight) + "\"><title>" +
         XmlEscape(title) + "</title>";
}

std::string Text(double x, double y, const std::string& text, const std::string& extra = "") {
  return "<text x=\"" + Fixed(x) + "\" y=\"" + Fixed(y) + "\"" + extra + ">" + XmlEscape(text) + "</text>";
}

std::string Line(double x1, double y1, double x2, double y2, const std::string& style) {
  return "<line x1=\"" + Fixed(x1) + "\" y1=\"" + Fixed(y1) + "\" x2=\"" + Fixed(x2) + "\" y2=\"" + Fixed(y2) +
         "\" " + style + "/>";
}

// Axes with four ticks on y from 0 to y_max, and x ticks supplied by the caller.
std::string Axes(double y_max, const std::string& y_label, const std::string& x_label) {
  const double plot_bottom = kHeight - kBottom;
  std::string out = Line(kLeft, kTop, kLeft, plot_bottom, "stroke=\"#333\"") +
                    Line(kLeft, plot_bottom, kWidth - kRight, plot_bottom, "stroke=\"#333\"");
  for (int i = 0; i <= 4; ++i) {
    const double value = y_max * i / 4;
    const double y = plot_bottom - (plot_bottom - kTop) * i / 4;
    out += Line(kLeft - 4, y, kLeft, y, "stroke=\"#333\"") + Text(kLeft - 6, y + 4, Tick(value), " text-anchor=\"end\"");
  }
  out += Text(14, kTop - 10, y_label) + Text(kWidth - kRight, kHeight - 6, x_label, " text-anchor=\"end\"");
  return out;
}

}  // namespace

std::string FrequencyPlotSvg(const FrequencyPlot& plot) {
  const std::size_t bins = std::min(plot.expected.size(), plot.observed.size());
  double y_max = 0;
  for (std::size_t i = 0; i < bins; ++i) y_max = std::max({y_max, plot.expected[i], plot.observed[i]});
  if (!(y_max > 0)) y_max = 1;
  const double plot_bottom = kHeight - kBottom, plot_width = kWidth - kLeft - kRight;
  const double bin_width = bins ? plot_width / static_cast<double>(bins) : plot_width;
  const auto y_of = [&](double count) { return plot_bottom - (plot_bottom - kTop) * count / y_max; };

  std::string out = Open(plot.title) + Axes(y_max, "count", "bin");
  if (bins > kMaxBarBins) {
    std::string observed, expected, marks;
    for (std::size_t i = 0; i < bins; ++i) {
      const double x = kLeft + bin_width * (static_cast<double>(i) + 0.5);
      observed += Fixed(x) + "," + Fixed(y_of(plot.observed[i])) + " ";
      expected += Fixed(x) + "," + Fixed(y_of(plot.expected[i])) + " ";
      const std::string label = i < plot.labels.size() ? plot.labels[i] : std::to_string(i);
      if (std::find(plot.marked.begin(), plot.marked.end(), label) == plot.marked.end()) continue;
      marks += "<circle class=\"observed marked\" cx=\"" + Fixed(x) + "\" cy=\"" + Fixed(y_of(plot.observed[i])) +
               "\" r=\"4\" fill=\"#d62728\"><title>" +
               XmlEscape(label + ": observed " + Tick(plot.observed[i]) + ", expected " + Tick(plot.expected[i])) +
               "</title></circle>" +
               Text(x, y_of(plot.observed[i]) - 6, label, " text-anchor=\"middle\" fill=\"#d62728\"");
    }
    observed.pop_back();
    expected.pop_back();
    out += "<polyline class=\"observed\" points=\"" + observed + "\" fill=\"none\" stroke=\"#4e79a7\"/>" +
           "<polyline class=\"expected\" points=\"" + expected + "\" fill=\"none\" stroke=\"#111\"/>" + marks;
  }
  for (std::size_t i = 0; i < bins && bins <= kMaxBarBins; ++i) {
    const std::string label = i < plot.labels.size() ? plot.labels[i] : std::to_string(i);
    const bool marked = std::find(plot.marked.begin(), plot.marked.end(), label) != plot.marked.end();
    const double x = kLeft + bin_width * static_cast<double>(i);
    const double bar = std::max(bin_width * 0.8, 0.5);
    const double top = y_of(plot.observed[i]);
    out += "<rect class=\"" + std::string(marked ? "observed marked" : "observed") + "\" x=\"" +
           Fixed(x + (bin_width - bar) / 2) + "\" y=\"" + Fixed(top) + "\" width=\"" + Fixed(bar) + "\" height=\"" +
           Fixed(std::max(0.0, plot_bottom - top)) + "\" fill=\"" + (marked ? "#d62728" : "#4e79a7") + "\"><title>" +
           XmlEscape(label + ": observed " + Tick(plot.observed[i]) + ", expected " + Tick(plot.expected[i])) +
           "</title></rect>";
    out += Line(x, y_of(plot.expected[i]), x + bin_width, y_of(plot.expected[i]),
                "class=\"expected\" stroke=\"#111\" stroke-width=\"2\"");
    if (marked) out += Text(x + bin_width / 2, top - 4, label, " text-anchor=\"middle\" fill=\"#d62728\"");
    if (bins <= kMaxLabelledBins) {
      out += Text(x + bin_width / 2, plot_bottom + 14, label, " text-anchor=\"middle\" font-size=\"10\"");
    }
  }
  // Legend.
  out += "<rect x=\"" + Fixed(kWidth - 250) + "\" y=\"6\" width=\"10\" height=\"10\" fill=\"#4e79a7\"/>" +
         Text(kWidth - 236, 15, "observed") +
         Line(kWidth - 170, 11, kWidth - 158, 11, "stroke=\"#111\" stroke-width=\"2\"") +
         Text(kWidth - 154, 15, "expected") + "<rect x=\"" + Fixed(kWidth - 92) +
         "\" y=\"6\" width=\"10\" height=\"10\" fill=\"#d62728\"/>" + Text(kWidth - 78, 15, "top residual");
  return out + "</svg>";
}

std::string PValueQqSvg(std::vector<double> p_values, double alpha, const std::string& title) {
  std::sort(p_values.begin(), p_values.end());
  const auto minus_log10 = [](double p) {
    if (!(p > 0)) return kMaxMinusLog10;  // 0 (and NaN, which has no place on the plot)
    return std::min(kMaxMinusLog10, std::max(0.0, -std::log10(std::min(p, 1.0))));
  };
  const std::size_t n = p_values.size();
  double axis_max = 1;  // at least one decade, so an empty or calibrated run still has a scale
  for (std::size_t i = 0; i < n; ++i) {
    axis_max = std::max({axis_max, minus_log10(p_values[i]), minus_log10((static_cast<double>(i) + 0.5) / n)});
  }
  if (alpha > 0) axis_max = std::max(axis_max, minus_log10(alpha));
  axis_max = std::ceil(axis_max);
  const double plot_bottom = kHeight - kBottom, plot_right = kWidth - kRight;
  const auto x_of = [&](double v) { return kLeft + (plot_right - kLeft) * v / axis_max; };
  const auto y_of = [&](double v) { return plot_bottom - (plot_bottom - kTop) * v / axis_max; };

  std::string out = Open(title) + Axes(axis_max, "-log10 observed p", "-log10 expected p (uniform)");
  for (int i = 0; i <= 4; ++i) {
    const double v = axis_max * i / 4;
    out += Text(x_of(v), plot_bottom + 14, Tick(v), " text-anchor=\"middle\" font-size=\"10\"");
  }
  out += Line(x_of(0), y_of(0), x_of(axis_max), y_of(axis_max), "class=\"diagonal\" stroke=\"#999\"");
  if (alpha > 0) {
    out += Line(x_of(0), y_of(minus_log10(alpha)), x_of(axis_max), y_of(minus_log10(alpha)),
                "class=\"alpha\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"") +
           Text(x_of(axis_max), y_of(minus_log10(alpha)) - 4, "alpha = " + Tick(alpha),
                " text-anchor=\"end\" fill=\"#d62728\"");  // right end: clear of the y-axis title
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double x = minus_log10((static_cast<double>(i) + 0.5) / n), y = minus_log10(p_values[i]);
    out += "<circle class=\"p-value\" cx=\"" + Fixed(x_of(x)) + "\" cy=\"" + Fixed(y_of(y)) +
           "\" r=\"3\" fill=\"#4e79a7\"><title>p = " + Tick(p_values[i]) + "</title></circle>";
  }
  return out + "</svg>";
}

}  // namespace sampcheck::reports
