// The small pieces the pages are written with: escaping, number formatting,
// and the page shell with its one stylesheet. No JavaScript, no front-end build.
#pragma once

#include <string>

namespace ucmoh::server::html {

// Text and attribute values: & < > " ' escaped.
std::string Escape(const std::string& text);

// "0.8731", or "–" for NaN (not evaluated).
std::string Metric(double value);

// "+0.0134" / "-0.0201": a change, with its sign (BWT).
std::string SignedMetric(double value);

// "2026-11-24 17:22 UTC", "-" for 0.
std::string Time(int64_t unix_seconds);

// A whole page: title, the navigation bar, `body` (already HTML).
std::string Page(const std::string& title, const std::string& body);

}  // namespace ucmoh::server::html
