// SPDX-License-Identifier: Apache-2.0
// Inline SVG plots (reports/svg_plot.h). Geometry from the header's layout: a 640 x 260 canvas,
// plot area x in [56, 628], y in [28, 216] (188 units tall). Expected coordinates below are
// worked out by hand from those numbers.
#include "reports/svg_plot.h"

#include <string>

#include <gtest/gtest.h>

namespace sampcheck::reports {
namespace {

std::size_t Count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

TEST(FrequencyPlotSvg, DrawsOneBarAndOneExpectedTickPerBin) {
  const std::string svg = FrequencyPlotSvg({"t", {"a", "b", "c", "d"}, {25, 25, 25, 25}, {50, 100, 0, 0}, {"b"}});
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\"", 0), 0u);
  EXPECT_EQ(Count(svg, "<rect class=\"observed"), 4u);
  EXPECT_EQ(Count(svg, "class=\"expected\""), 4u);
  // y_max = 100: observed 50 is 94 units tall, its top at 216 - 94 = 122; bins are 143 wide,
  // bars 80% of that (114.4) centred: x = 56 + 14.3.
  EXPECT_NE(svg.find("<rect class=\"observed\" x=\"70.30\" y=\"122.00\" width=\"114.40\" height=\"94.00\""),
            std::string::npos)
      << svg;
  // Expected 25 -> y = 216 - 47 = 169, across the first bin [56, 199].
  EXPECT_NE(svg.find("<line x1=\"56.00\" y1=\"169.00\" x2=\"199.00\" y2=\"169.00\" class=\"expected\""),
            std::string::npos);
}

TEST(FrequencyPlotSvg, MarksTheTopResidualBinsAndEscapesLabels) {
  const std::string svg =
      FrequencyPlotSvg({"<case & co>", {"x<1>", "y"}, {10, 10}, {20, 0}, {"x<1>", "not a bin"}});
  EXPECT_EQ(Count(svg, "class=\"observed marked\""), 1u);
  EXPECT_NE(svg.find("<title>&lt;case &amp; co&gt;</title>"), std::string::npos);
  EXPECT_NE(svg.find(">x&lt;1&gt;</text>"), std::string::npos);
  EXPECT_EQ(svg.find("x<1>"), std::string::npos);
}

TEST(FrequencyPlotSvg, LabelsTheAxisOnlyForFewBins) {
  std::vector<double> counts(25, 4.0);
  const std::string many = FrequencyPlotSvg({"t", {}, counts, counts, {}});
  EXPECT_EQ(Count(many, "font-size=\"10\""), 0u);
  counts.resize(24);
  const std::string few = FrequencyPlotSvg({"t", {}, counts, counts, {}});
  EXPECT_EQ(Count(few, "font-size=\"10\""), 24u);
  EXPECT_NE(few.find(">23</text>"), std::string::npos);  // unlabelled bins are numbered
}

TEST(FrequencyPlotSvg, DrawsManyBinsAsPolylines) {
  // 200 bins (> 128): no bars; two polylines of 200 points; the one marked bin as a dot.
  std::vector<double> expected(200, 10.0), observed(200, 10.0);
  observed[7] = 20;
  const std::string svg = FrequencyPlotSvg({"t", {}, expected, observed, {"7"}});
  EXPECT_EQ(Count(svg, "<rect class=\"observed"), 0u);
  EXPECT_EQ(Count(svg, "<polyline class=\"observed\""), 1u);
  EXPECT_EQ(Count(svg, "<polyline class=\"expected\""), 1u);
  EXPECT_EQ(Count(svg, "<circle class=\"observed marked\""), 1u);
  // Bin 7's centre: 56 + 572 * 7.5 / 200 = 77.45; y_max = 20 puts it at the top, y = 28.
  EXPECT_NE(svg.find("cx=\"77.45\" cy=\"28.00\""), std::string::npos) << svg.substr(0, 2000);
  const std::size_t start = svg.find("<polyline class=\"observed\" points=\"");
  const std::size_t end = svg.find('"', start + 36);
  EXPECT_EQ(Count(svg.substr(start, end - start), ","), 200u);
}

TEST(PValueQqSvg, PlacesOnePointAtItsUniformQuantile) {
  // One p-value 0.01: x = -log10(0.5) = 0.30103, y = 2; the axis runs to ceil(2) = 2, so
  // cx = 56 + 572 * 0.30103 / 2 = 142.09 and cy = 216 - 188 = 28.
  const std::string svg = PValueQqSvg({0.01}, 0.0, "qq");
  EXPECT_NE(svg.find("<circle class=\"p-value\" cx=\"142.09\" cy=\"28.00\""), std::string::npos) << svg;
  EXPECT_EQ(svg.find("class=\"alpha\""), std::string::npos);
}

TEST(PValueQqSvg, DrawsTheAlphaLineAndCapsZero) {
  // alpha = 1e-6 stretches the axis to 6 decades; p = 0 sits at the cap (300 decades).
  const std::string svg = PValueQqSvg({0.5, 0.0}, 1e-6, "qq");
  EXPECT_NE(svg.find("class=\"alpha\""), std::string::npos);
  EXPECT_NE(svg.find("alpha = 1e-06"), std::string::npos);
  EXPECT_NE(svg.find("cy=\"28.00\""), std::string::npos);  // -log10(0) = 300 = the axis top
  EXPECT_EQ(Count(svg, "<circle"), 2u);
}

TEST(PValueQqSvg, AnEmptyRunStillHasAxes) {
  const std::string svg = PValueQqSvg({}, 0.0, "qq");
  EXPECT_EQ(Count(svg, "<circle"), 0u);
  EXPECT_NE(svg.find("class=\"diagonal\""), std::string::npos);
}

}  // namespace
}  // namespace sampcheck::reports
