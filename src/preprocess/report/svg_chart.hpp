// Small inline-SVG charts for the HTML report: line charts of per-cycle
// curves and a bar chart of a histogram, drawn as text so the page needs no
// script or network.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace seqfuse::preprocess {

struct ChartSeries {
  std::string name;
  std::string color;           // any CSS color
  std::vector<double> values;  // y at x = 1, 2, ...
};

struct ChartAxes {
  std::string x_label;
  std::string y_label;
  double y_min = 0;
  double y_max = 1;  // raised to the data's maximum when that is larger
};

// A line chart, one polyline per series (an empty series draws nothing).
void write_svg_line_chart(std::ostream& out, const std::vector<ChartSeries>& series,
                          const ChartAxes& axes);

// A bar chart of counts at x = 0, 1, ... (insert sizes).
void write_svg_bar_chart(std::ostream& out, const std::vector<std::uint64_t>& counts,
                         const ChartAxes& axes, const std::string& color);

// Text made safe for HTML element content and attribute values.
[[nodiscard]] std::string html_escaped(const std::string& text);

}  // namespace seqfuse::preprocess
