// The GET behind `registry pull http://...` (http_client.h).
#include "http_client.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdlib>

namespace ucmoh::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// One GET over a connected stream (a socket, or a TLS stream on one).
template <class Stream>
Expected<HttpReply> Exchange(Stream& stream, const HttpUrl& server, const std::string& path, uint64_t limit,
                             const std::string& where) {
  beast::error_code ec;
  http::request<http::empty_body> req{http::verb::get, path, 11};
  req.set(http::field::host, server.host);
  req.set(http::field::user_agent, "ucmoh-registry");
  req.keep_alive(false);
  http::write(stream, req, ec);
  if (ec) return Status::IOError(where + ": " + ec.message());
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(limit);
  http::read(stream, buffer, parser, ec);
  if (ec == http::error::body_limit)
    return Status::IOError(where + ": the answer is larger than " + std::to_string(limit) + " bytes");
  if (ec) return Status::IOError(where + ": the answer broke off: " + ec.message());
  return HttpReply{static_cast<int>(parser.get().result_int()), std::move(parser.get().body())};
}

// The client's TLS context: the system's CAs, or $UCMOH_CA_FILE; the peer's
// certificate and host name (or IP) must verify.
Status PrepareTls(asio::ssl::context& ctx, beast::ssl_stream<tcp::socket>& stream, const std::string& host) {
  beast::error_code ec;
  const char* ca = std::getenv("UCMOH_CA_FILE");
  if (ca && *ca) ctx.load_verify_file(ca, ec);
  else ctx.set_default_verify_paths(ec);
  if (ec) return Status::InvalidArgument(std::string(ca ? ca : "system CAs") + ": cannot load: " + ec.message());
  stream.set_verify_mode(asio::ssl::verify_peer);
  stream.set_verify_callback(asio::ssl::host_name_verification(host));
  if (!SSL_set_tlsext_host_name(stream.native_handle(), host.c_str()))
    return Status::IOError(host + ": cannot set the TLS server name");
  return Status::Ok();
}

}  // namespace

Expected<HttpReply> HttpGet(const HttpUrl& server, const std::string& path, uint64_t limit, int timeout_s) {
  const std::string where = (server.tls ? "https://" : "http://") + server.host + ":" + server.port + path;
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
  if (!server.tls) return Exchange(socket, server, path, limit, where);
  asio::ssl::context ctx(asio::ssl::context::tls_client);
  beast::ssl_stream<tcp::socket> stream(std::move(socket), ctx);
  UCMOH_RETURN_IF_ERROR(PrepareTls(ctx, stream, server.host));
  stream.handshake(asio::ssl::stream_base::client, ec);
  if (ec) return Status::IOError(where + ": TLS handshake failed (is the certificate trusted? $UCMOH_CA_FILE): " +
                                 ec.message());
  auto reply = Exchange(stream, server, path, limit, where);
  stream.shutdown(ec);  // the server may close first; its answer is complete either way
  return reply;
}

}  // namespace ucmoh::server
