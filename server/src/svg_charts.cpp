// Inline SVG for the pages (svg_charts.h).
#include "svg_charts.h"

#include <algorithm>
#include <cmath>

#include "html.h"

namespace ucmoh::server {

namespace {

std::string Num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

std::string Text(double x, double y, const std::string& text, const std::string& attrs = "") {
  return "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" " + attrs + ">" + html::Escape(text) + "</text>";
}

// 0 -> near white, 1 -> deep blue; values below 0.5 keep the light end.
std::string Shade(double v) {
  const double t = std::clamp((v - 0.5) / 0.5, 0.0, 1.0);
  const int r = static_cast<int>(240 - t * (240 - 31)), g = static_cast<int>(244 - t * (244 - 78)),
            b = static_cast<int>(250 - t * (250 - 160));
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

// Depth of each version in its lineage (a root is 0).
std::map<int64_t, int> Depths(const std::vector<registry::ModelVersion>& versions) {
  std::map<int64_t, int> depth;
  for (const auto& v : versions) depth[v.number] = v.parent && depth.count(v.parent) ? depth[v.parent] + 1 : 0;
  return depth;
}

}  // namespace

std::string LineageSvg(const std::vector<registry::ModelVersion>& versions,
                       const std::map<int64_t, std::vector<std::string>>& aliases) {
  const double row = 34, step = 28, left = 20, top = 22;
  const auto depth = Depths(versions);
  std::map<int64_t, std::pair<double, double>> at;
  for (size_t i = 0; i < versions.size(); ++i)
    at[versions[i].number] = {left + depth.at(versions[i].number) * step, top + i * row};
  std::string edges, nodes;
  for (const auto& v : versions) {
    const auto [x, y] = at[v.number];
    if (v.parent && at.count(v.parent)) {
      const auto [px, py] = at[v.parent];
      edges += "<path d=\"M" + Num(px) + "," + Num(py) + " V" + Num(y - 8) + " Q" + Num(px) + "," + Num(y) + " " +
               Num(x) + "," + Num(y) + "\" fill=\"none\" stroke=\"#8a93a8\" stroke-width=\"2\"/>";
    }
    std::string label = "v" + std::to_string(v.number) + "  +" + (v.intrinsics.empty() ? "" : v.intrinsics.back());
    auto a = aliases.find(v.number);
    if (a != aliases.end())
      for (const auto& name : a->second) label += "  @" + name;
    nodes += "<a href=\"/versions/" + std::to_string(v.number) + "\"><circle cx=\"" + Num(x) + "\" cy=\"" + Num(y) +
             "\" r=\"7\" fill=\"#2f5fb3\"><title>version " + std::to_string(v.number) + "</title></circle>" +
             Text(x + 14, y + 4, label, "font-size=\"13\" fill=\"#1d2433\"") + "</a>";
  }
  int max_depth = 0;
  for (const auto& [n, d] : depth) max_depth = std::max(max_depth, d);
  const double width = left + max_depth * step + 520, height = top + versions.size() * row;
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"lineage\" width=\"" + Num(width) +
         "\" height=\"" + Num(height) + "\">" + edges + nodes + "</svg>";
}

std::string HeatmapSvg(const registry::LineageMatrix& m, bool top1) {
  const auto& values = top1 ? m.top1 : m.pca;
  const double cell_w = 118, cell_h = 30, left = 70, top = 120;
  std::string out;
  for (size_t j = 0; j < m.intrinsics.size(); ++j)  // column heads, slanted
    out += Text(left + j * cell_w + 10, top - 8, m.intrinsics[j],
                "font-size=\"12\" transform=\"rotate(-30 " + Num(left + j * cell_w + 10) + "," + Num(top - 8) + ")\"");
  for (size_t i = 0; i < m.versions.size(); ++i) {
    const double y = top + i * cell_h;
    out += Text(8, y + 20, "v" + std::to_string(m.versions[i]), "font-size=\"12\"");
    for (size_t j = 0; j < m.intrinsics.size(); ++j) {
      const double v = values[i][j], x = left + j * cell_w;
      const bool dark = !std::isnan(v) && v > 0.8;
      out += "<rect x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" width=\"" + Num(cell_w - 2) + "\" height=\"" +
             Num(cell_h - 2) + "\" fill=\"" + (std::isnan(v) ? std::string("#e3e5ea") : Shade(v)) + "\"><title>v" +
             std::to_string(m.versions[i]) + " on " + html::Escape(m.intrinsics[j]) + ": " + html::Metric(v) +
             "</title></rect>" +
             Text(x + cell_w / 2 - 1, y + 19, html::Metric(v),
                  std::string("font-size=\"12\" text-anchor=\"middle\" fill=\"") + (dark ? "white" : "#1d2433") + "\"");
    }
  }
  const double width = left + m.intrinsics.size() * cell_w + 10, height = top + m.versions.size() * cell_h + 8;
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"" + std::string(top1 ? "top-1" : "PCA") +
         " matrix\" width=\"" + Num(width) + "\" height=\"" + Num(height) + "\">" + out + "</svg>";
}

}  // namespace ucmoh::server
