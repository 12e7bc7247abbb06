#include "http_request.h"

#include <boost/asio/buffer.hpp>

namespace ucmoh::server {

namespace http = beast_http;

bool IsUpload(const http::request_header<>& header) {
  return header.method() == http::verb::post && header.target() == "/api/records";
}

uint64_t BodyLimitFor(const http::request_header<>& header, const ServeOptions& options) {
  return IsUpload(header) ? options.max_upload_bytes : options.max_body_bytes;
}

HttpRequest ToHttpRequest(http::request<http::string_body>& req) {
  return {std::string(req.method_string()), std::string(req.target()), std::string(req[http::field::if_none_match]),
          std::string(req[http::field::authorization]), std::move(req.body())};
}

HttpResponse ParseError(const boost::beast::error_code& ec) {
  if (ec == http::error::header_limit) return ErrorResponse(431, "request header too large");
  if (ec == http::error::body_limit) return ErrorResponse(413, "request body too large");
  return ErrorResponse(400, "malformed request: " + ec.message());
}

std::variant<ParsedRequest, HttpResponse> ParseRequestBytes(std::string_view bytes, const ServeOptions& options) {
  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<uint32_t>(options.max_header_bytes));
  boost::beast::error_code ec;
  size_t used = 0;
  // The header first, then the body under its route's limit, as a session reads.
  while (!parser.is_header_done() && used < bytes.size()) {
    used += parser.put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), ec);
    if (ec == http::error::need_more) return ParseError(http::error::partial_message);
    if (ec) return ParseError(ec);
  }
  if (!parser.is_header_done()) return ParseError(http::error::partial_message);
  parser.body_limit(BodyLimitFor(parser.get(), options));
  parser.eager(true);
  while (!parser.is_done() && used < bytes.size()) {
    used += parser.put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), ec);
    if (ec == http::error::need_more) break;
    if (ec) return ParseError(ec);
  }
  if (!parser.is_done()) {
    parser.put_eof(ec);
    if (ec || !parser.is_done()) return ParseError(ec ? ec : http::error::partial_message);
  }
  auto& req = parser.get();
  ParsedRequest parsed;
  parsed.head = req.method() == http::verb::head;
  parsed.keep_alive = req.keep_alive();
  parsed.request = ToHttpRequest(req);
  return parsed;
}

}  // namespace ucmoh::server
