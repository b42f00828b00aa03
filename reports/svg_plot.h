// SPDX-License-Identifier: Apache-2.0
#pragma once
// Inline SVG plots for the HTML report (docs/spec/report.md "HTML"): plain <svg> markup with
// no script, no external font or image, every text escaped (reports/text_escape.h), so the
// page stays one self-contained file.
//
// FrequencyPlotSvg: one statistical case's table. Per bin, in bin order: a bar of the
// observed count and a horizontal tick at the expected count; the bins named in `marked`
// (the case's top residual bins) are drawn in a warning colour and labelled with their bin
// label above the bar. Bin labels are written under the axis when there are at most 24 bins.
// Above 128 bins (bars would be under 4.5 px) observed and expected counts are drawn as two
// polylines through the bin centres instead, and marked bins as labelled red dots.
// The y axis runs from 0 to the largest of all counts.
//
// PValueQqSvg: the run's statistical p-values against U(0,1), on -log10 scales: the i-th
// smallest of n p-values is plotted at x = -log10((i + 0.5) / n), y = -log10(p), so a
// calibrated run lies near the diagonal and a rejection stands far above it. p = 0 is drawn
// at the top of the plot (-log10 capped at 300, below the smallest positive double's 323.3).
// A dashed horizontal line marks -log10(alpha) when alpha > 0.
//
// Both return a complete <svg ...>...</svg> element with role="img" and a <title>.

#include <string>
#include <vector>

namespace sampcheck::reports {

struct FrequencyPlot {
  std::string title;
  std::vector<std::string> labels;   // one per bin (may be empty: bins are then numbered)
  std::vector<double> expected;      // expected count per bin
  std::vector<double> observed;      // observed count per bin, same length as expected
  std::vector<std::string> marked;   // labels of the bins to highlight
};

std::string FrequencyPlotSvg(const FrequencyPlot& plot);
std::string PValueQqSvg(std::vector<double> p_values, double alpha, const std::string& title);

}  // namespace sampcheck::reports
