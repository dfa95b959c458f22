#include "preprocess/report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <locale>
#include <sstream>

namespace seqfuse::preprocess {
namespace {

// Plot area inside a fixed-size SVG; the page scales it with CSS.
constexpr double kWidth = 760, kHeight = 280;
constexpr double kLeft = 60, kRight = 130, kTop = 15, kBottom = 45;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;

std::string number(double v, int decimals) {
  std::ostringstream s;
  s.imbue(std::locale::classic());
  s << std::fixed << std::setprecision(decimals) << v;
  return s.str();
}

// A "nice" tick step (1, 2 or 5 times a power of ten) giving about `ticks`
// intervals over `span`.
double tick_step(double span, int ticks) {
  if (span <= 0) return 1;
  const double raw = span / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (raw <= m * magnitude) return m * magnitude;
  }
  return 10 * magnitude;
}

int decimals_for(double step) {
  return step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step)));
}

struct Frame {
  double x_min, x_max, y_min, y_max;
  [[nodiscard]] double x(double v) const {
    return kLeft + (x_max > x_min ? (v - x_min) / (x_max - x_min) : 0.5) * kPlotWidth;
  }
  [[nodiscard]] double y(double v) const {
    return kTop + kPlotHeight - (y_max > y_min ? (v - y_min) / (y_max - y_min) : 0) * kPlotHeight;
  }
};

void open_svg(std::ostream& out) {
  out << "<svg class='chart' viewBox='0 0 " << kWidth << " " << kHeight
      << "' xmlns='http://www.w3.org/2000/svg' font-family='sans-serif' font-size='11'>\n";
}

// Axes, grid lines, tick labels and axis titles.
void write_frame(std::ostream& out, const Frame& f, const ChartAxes& axes) {
  out << "<rect x='" << kLeft << "' y='" << kTop << "' width='" << kPlotWidth << "' height='"
      << kPlotHeight << "' fill='#fbfbfb' stroke='#999'/>\n";
  const double y_step = tick_step(f.y_max - f.y_min, 5);
  const int y_decimals = decimals_for(y_step);
  for (double v = std::ceil(f.y_min / y_step) * y_step; v <= f.y_max + y_step * 1e-9; v += y_step) {
    const double y = f.y(v);
    out << "<line x1='" << kLeft << "' x2='" << kLeft + kPlotWidth << "' y1='" << number(y, 1)
        << "' y2='" << number(y, 1) << "' stroke='#e4e4e4'/>"
        << "<text x='" << kLeft - 6 << "' y='" << number(y + 4, 1) << "' text-anchor='end'>"
        << number(v, y_decimals) << "</text>\n";
  }
  const double x_step = tick_step(f.x_max - f.x_min, 8);
  for (double v = std::ceil(f.x_min / x_step) * x_step; v <= f.x_max + x_step * 1e-9; v += x_step) {
    out << "<text x='" << number(f.x(v), 1) << "' y='" << kTop + kPlotHeight + 16
        << "' text-anchor='middle'>" << number(v, decimals_for(x_step)) << "</text>\n";
  }
  out << "<text x='" << kLeft + kPlotWidth / 2 << "' y='" << kHeight - 8
      << "' text-anchor='middle'>" << html_escaped(axes.x_label) << "</text>\n";
  out << "<text transform='translate(14," << kTop + kPlotHeight / 2
      << ") rotate(-90)' text-anchor='middle'>" << html_escaped(axes.y_label) << "</text>\n";
}

}  // namespace

std::string html_escaped(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void write_svg_line_chart(std::ostream& out, const std::vector<ChartSeries>& series,
                          const ChartAxes& axes) {
  std::size_t points = 0;
  double y_max = axes.y_max;
  for (const ChartSeries& s : series) {
    points = std::max(points, s.values.size());
    for (const double v : s.values) {
      if (std::isfinite(v)) y_max = std::max(y_max, v);
    }
  }
  const Frame frame{1, static_cast<double>(std::max<std::size_t>(points, 2)), axes.y_min, y_max};
  open_svg(out);
  write_frame(out, frame, axes);
  double legend_y = kTop + 10;
  for (const ChartSeries& s : series) {
    if (!s.values.empty()) {
      out << "<polyline fill='none' stroke-width='1.5' stroke='" << html_escaped(s.color)
          << "' points='";
      for (std::size_t i = 0; i < s.values.size(); ++i) {
        const double v = std::isfinite(s.values[i]) ? s.values[i] : 0;
        out << (i == 0 ? "" : " ") << number(frame.x(static_cast<double>(i + 1)), 1) << ","
            << number(frame.y(v), 1);
      }
      out << "'><title>" << html_escaped(s.name) << "</title></polyline>\n";
    }
    const double lx = kLeft + kPlotWidth + 12;
    out << "<line x1='" << lx << "' x2='" << lx + 18 << "' y1='" << legend_y << "' y2='" << legend_y
        << "' stroke='" << html_escaped(s.color) << "' stroke-width='2'/>"
        << "<text x='" << lx + 24 << "' y='" << legend_y + 4 << "'>" << html_escaped(s.name)
        << "</text>\n";
    legend_y += 16;
  }
  out << "</svg>\n";
}

void write_svg_bar_chart(std::ostream& out, const std::vector<std::uint64_t>& counts,
                         const ChartAxes& axes, const std::string& color) {
  double y_max = axes.y_max;
  for (const std::uint64_t n : counts) y_max = std::max(y_max, static_cast<double>(n));
  const double x_max = counts.empty() ? 1 : static_cast<double>(counts.size());
  const Frame frame{0, x_max, axes.y_min, y_max};
  open_svg(out);
  write_frame(out, frame, axes);
  const double bar = kPlotWidth / x_max;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    const double top = frame.y(static_cast<double>(counts[i]));
    out << "<rect x='" << number(frame.x(static_cast<double>(i)), 2) << "' y='" << number(top, 1)
        << "' width='" << number(std::max(bar, 0.5), 2) << "' height='"
        << number(kTop + kPlotHeight - top, 1) << "' fill='" << html_escaped(color) << "'><title>"
        << i << ": " << counts[i] << "</title></rect>\n";
  }
  out << "</svg>\n";
}

}  // namespace seqfuse::preprocess
