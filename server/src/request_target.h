// A request's target (origin form, "/path?query") and a server URL, parsed
// and percent-decoded by uriparser (liburiparser, RFC 3986), the one place the
// server and its client read URLs.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ucmoh/status.h"

namespace ucmoh::server {

struct RequestTarget {
  std::string path;  // percent-decoded, "/a/b"
  std::vector<std::pair<std::string, std::string>> query;  // decoded ('+' is a space), in order
  // The first value of `key`, or "" when absent.
  std::string QueryValue(const std::string& key) const;
};

// Refuses (InvalidArgument, naming the target) what is not an absolute path
// with an optional query, and paths that could steer a route outside what it
// names: empty, "." or ".." segments, and segments that decode to '/', '\' or
// control bytes.
Expected<RequestTarget> ParseRequestTarget(const std::string& target);

struct HttpUrl {
  std::string host, port;  // port "80" (http) or "443" (https) when the URL names none
  std::string path;        // from the first '/' on (query included, as sent), "/" when empty
  bool tls = false;        // https://
};

// "http://HOST[:PORT]/PATH" or "https://..."; HOST may be a name, an IPv4
// address or a bracketed IPv6 literal ("http://[::1]:8080/"; host "::1").
Expected<HttpUrl> ParseHttpUrl(const std::string& url);

}  // namespace ucmoh::server
