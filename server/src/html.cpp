// Page pieces (html.h).
#include "html.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace ucmoh::server::html {

std::string Escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string Metric(double value) {
  if (std::isnan(value)) return "\u2013";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", value);
  return buf;
}

std::string SignedMetric(double value) {
  if (std::isnan(value)) return "\u2013";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.4f", value);
  return buf;
}

std::string Time(int64_t unix_seconds) {
  if (unix_seconds == 0) return "-";
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

namespace {

constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d2433; background: #f7f8fa; }
nav { background: #1d2433; padding: 10px 24px; }
nav a { color: #e8ecf4; margin-right: 20px; text-decoration: none; font-weight: 600; }
main { padding: 16px 24px; max-width: 1200px; }
h1 { font-size: 22px; margin: 8px 0 12px; } h2 { font-size: 17px; margin: 22px 0 8px; }
table { border-collapse: collapse; background: white; }
th, td { border: 1px solid #d9dde5; padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #eef1f6; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 12px; } .alias { background: #dfe9ff; border-radius: 3px; padding: 0 5px; margin-right: 4px; }
.muted { color: #69718a; } svg { background: white; border: 1px solid #d9dde5; }
)";

}  // namespace

std::string Page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + Escape(title) +
         " \u00b7 UCMoH registry</title><style>" + kStyle +
         "</style></head><body><nav><a href=\"/\">Versions</a><a href=\"/plugins\">Plugins</a>"
         "<a href=\"/events\">Events</a><a href=\"/api/versions\">API</a></nav><main>" + body +
         "</main></body></html>\n";
}

}  // namespace ucmoh::server::html
