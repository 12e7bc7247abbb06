// From bytes on the wire to the Router's HttpRequest: the limits a request's
// body gets by route, the conversion of Beast's parsed request, and the whole
// step over a buffer of bytes. The server's sessions (http_session.h) and the
// request-path fuzz target (tests/fuzz/request_path_fuzz.cpp) share it.
#pragma once

#include <boost/beast/http.hpp>
#include <string_view>
#include <variant>

#include "routes.h"
#include "ucmoh/server/serve.h"

namespace ucmoh::server {

namespace beast_http = boost::beast::http;

// A records upload may be large; nothing else is.
bool IsUpload(const beast_http::request_header<>& header);
uint64_t BodyLimitFor(const beast_http::request_header<>& header, const ServeOptions& options);

// The parsed request as the Router takes it (the body is moved out).
HttpRequest ToHttpRequest(beast_http::request<beast_http::string_body>& request);

// A request the parser refused: 431 / 413 / 400, with what was wrong.
HttpResponse ParseError(const boost::beast::error_code& ec);

struct ParsedRequest {
  HttpRequest request;
  bool head = false;
  bool keep_alive = false;
};

// One request from `bytes` under the server's header and body limits: the
// request, or the error answer the server would send.
std::variant<ParsedRequest, HttpResponse> ParseRequestBytes(std::string_view bytes, const ServeOptions& options);

}  // namespace ucmoh::server
