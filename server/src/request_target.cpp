#include "request_target.h"

#include <uriparser/Uri.h>


namespace ucmoh::server {

namespace {

// Owns a parsed UriUriA.
struct ParsedUri {
  UriUriA uri{};
  bool parsed = false;
  ~ParsedUri() {
    if (parsed) uriFreeUriMembersA(&uri);
  }
  Status Parse(const std::string& text, const std::string& what) {
    const char* error = nullptr;
    if (uriParseSingleUriA(&uri, text.c_str(), &error) != URI_SUCCESS)
      return Status::InvalidArgument("malformed " + what + " '" + text + "' (at offset " +
                                     std::to_string(error ? error - text.c_str() : 0) + ")");
    parsed = true;
    return Status::Ok();
  }
};

std::string Text(const UriTextRangeA& range) {
  return range.first ? std::string(range.first, range.afterLast) : std::string();
}

std::string Unescape(std::string text) {
  text.push_back('\0');
  const char* end = uriUnescapeInPlaceExA(text.data(), URI_FALSE, URI_BR_DONT_TOUCH);
  text.resize(static_cast<size_t>(end - text.data()));
  return text;
}

bool PlainSegment(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f || c == '/' || c == '\\') return false;
  return true;
}

Status ReadQuery(const UriUriA& uri, RequestTarget* out) {
  if (!uri.query.first || uri.query.first == uri.query.afterLast) return Status::Ok();
  UriQueryListA* list = nullptr;
  int count = 0;
  if (uriDissectQueryMallocA(&list, &count, uri.query.first, uri.query.afterLast) != URI_SUCCESS)
    return Status::InvalidArgument("malformed query '" + Text(uri.query) + "'");
  for (const UriQueryListA* q = list; q; q = q->next) out->query.emplace_back(q->key, q->value ? q->value : "");
  uriFreeQueryListA(list);
  return Status::Ok();
}

}  // namespace

std::string RequestTarget::QueryValue(const std::string& key) const {
  for (const auto& [k, v] : query)
    if (k == key) return v;
  return "";
}

Expected<RequestTarget> ParseRequestTarget(const std::string& target) {
  if (target.empty() || target[0] != '/') return Status::InvalidArgument("malformed path '" + target + "'");
  ParsedUri parsed;
  UCMOH_RETURN_IF_ERROR(parsed.Parse(target, "path"));
  const UriUriA& uri = parsed.uri;
  if (uri.scheme.first || uri.hostText.first || uri.fragment.first)
    return Status::InvalidArgument("malformed path '" + target + "' (expected /PATH[?QUERY])");
  RequestTarget out;
  for (const UriPathSegmentA* s = uri.pathHead; s; s = s->next) {
    const std::string segment = Unescape(Text(s->text));
    const bool trailing = !s->next && segment.empty();  // "/api/jobs/" ends in an empty segment
    if (!trailing && !PlainSegment(segment)) return Status::InvalidArgument("malformed path '" + target + "'");
    out.path += "/" + segment;
  }
  if (out.path.empty()) out.path = "/";
  UCMOH_RETURN_IF_ERROR(ReadQuery(uri, &out));
  return out;
}

Expected<HttpUrl> ParseHttpUrl(const std::string& url) {
  ParsedUri parsed;
  UCMOH_RETURN_IF_ERROR(parsed.Parse(url, "URL"));
  const UriUriA& uri = parsed.uri;
  const std::string scheme = Text(uri.scheme);
  if (scheme != "http" && scheme != "https")
    return Status::InvalidArgument("'" + url + "' is not an http:// or https:// URL");
  HttpUrl out;
  out.tls = scheme == "https";
  out.host = Text(uri.hostText);  // without the brackets of an IPv6 literal
  out.port = uri.portText.first ? Text(uri.portText) : (out.tls ? "443" : "80");
  if (out.host.empty() || out.port.empty() || out.port.find_first_not_of("0123456789") != std::string::npos)
    return Status::InvalidArgument("'" + url + "': expected http://HOST:PORT/...");
  // The path as sent, from the end of the authority to the fragment.
  const size_t authority = url.find("://") + 3;
  const size_t at = url.find_first_of("/?#", authority);
  const size_t hash = url.find('#', authority);
  std::string path = at == std::string::npos || at == hash ? "" : url.substr(at, hash == std::string::npos ? hash : hash - at);
  out.path = path.empty() || path[0] != '/' ? "/" + path : path;
  return out;
}

}  // namespace ucmoh::server
