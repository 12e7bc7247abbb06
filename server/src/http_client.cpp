// The GET behind `registry pull http://...` (http_client.h).
#include "http_client.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace ucmoh::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

Expected<HttpUrl> ParseHttpUrl(const std::string& url) {
  if (url.rfind("https://", 0) == 0)
    return Status::Unsupported("'" + url + "': https:// is not supported yet; serve over http:// on a trusted network");
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) return Status::InvalidArgument("'" + url + "' is not an http:// URL");
  const size_t slash = url.find('/', scheme.size());
  const std::string authority = url.substr(scheme.size(), slash == std::string::npos ? std::string::npos
                                                                                     : slash - scheme.size());
  HttpUrl out;
  out.path = slash == std::string::npos ? "/" : url.substr(slash);
  const size_t colon = authority.rfind(':');
  out.host = authority.substr(0, colon);
  out.port = colon == std::string::npos ? "80" : authority.substr(colon + 1);
  if (out.host.empty() || out.port.empty() || out.port.find_first_not_of("0123456789") != std::string::npos)
    return Status::InvalidArgument("'" + url + "': expected http://HOST:PORT/...");
  return out;
}

Expected<HttpReply> HttpGet(const HttpUrl& server, const std::string& path, uint64_t limit, int timeout_s) {
  const std::string where = "http://" + server.host + ":" + server.port + path;
  asio::io_context io;
  tcp::resolver resolver(io);
  tcp::socket socket(io);
  beast::error_code ec;
  const auto endpoints = resolver.resolve(server.host, server.port, ec);
  if (!ec) asio::connect(socket, endpoints, ec);
  if (ec) return Status::IOError(where + ": cannot connect: " + ec.message());
  timeval tv{timeout_s, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  http::request<http::empty_body> req{http::verb::get, path, 11};
  req.set(http::field::host, server.host);
  req.set(http::field::user_agent, "ucmoh-registry");
  req.keep_alive(false);
  http::write(socket, req, ec);
  if (ec) return Status::IOError(where + ": " + ec.message());
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(limit);
  http::read(socket, buffer, parser, ec);
  if (ec == http::error::body_limit) return Status::IOError(where + ": the answer is larger than " + std::to_string(limit) + " bytes");
  if (ec) return Status::IOError(where + ": the answer broke off: " + ec.message());
  beast::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  return HttpReply{static_cast<int>(parser.get().result_int()), std::move(parser.get().body())};
}

}  // namespace ucmoh::server
