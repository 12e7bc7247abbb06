// The HTTP/1.1 front of `registry serve` (ucmoh/server/serve.h) on
// Boost.Beast: one thread per connection (keep-alive, bounded count), TLS
// through OpenSSL when given a certificate, each request answered by the Router. Beast is included here and in
// http_client.cpp only.
#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <charconv>
#include <filesystem>
#include <optional>
#include <thread>

#include "routes.h"
#include "ucmoh/server/serve.h"

namespace ucmoh::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

void SetTimeouts(tcp::socket& socket, int seconds) {
  timeval tv{seconds, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

template <class Response>
void SetHeaders(Response& res, const HttpResponse& r, bool keep_alive) {
  res.set(http::field::server, "ucmoh-registry");
  res.set(http::field::content_type, r.content_type);
  if (!r.etag.empty()) res.set(http::field::etag, r.etag);
  if (r.immutable) res.set(http::field::cache_control, "public, max-age=31536000, immutable");
  if (r.ask_for_token) res.set(http::field::www_authenticate, "Bearer");
  res.keep_alive(keep_alive);
}

// Writes the answer; HEAD gets the same headers and no payload.
template <class Stream>
void Write(Stream& socket, const HttpResponse& r, bool head, bool keep_alive, beast::error_code& ec) {
  const auto status = static_cast<http::status>(r.status);
  if (!r.file_path.empty() && !head) {
    http::response<http::file_body> res{status, 11};
    res.body().open(r.file_path.c_str(), beast::file_mode::scan, ec);
    if (ec) return;
    SetHeaders(res, r, keep_alive);
    res.prepare_payload();
    http::write(socket, res, ec);
    return;
  }
  http::response<http::string_body> res{status, 11};
  SetHeaders(res, r, keep_alive);
  if (head) {
    res.content_length(r.file_path.empty() ? r.body.size() : r.file_size);
    http::response_serializer<http::string_body> sr{res};
    http::write_header(socket, sr, ec);
    return;
  }
  res.body() = r.body;
  res.prepare_payload();
  http::write(socket, res, ec);
}

// A request the parser refused: 431 / 413 / 400, with what was wrong.
HttpResponse ParseError(const beast::error_code& ec) {
  if (ec == http::error::header_limit) return ErrorResponse(431, "request header too large");
  if (ec == http::error::body_limit) return ErrorResponse(413, "request body too large");
  return ErrorResponse(400, "malformed request: " + ec.message());
}

// Reads one request: the header first, then a body up to the limit its
// route allows (a records upload may be large, nothing else is).
template <class Stream>
bool ReadRequest(Stream& socket, beast::flat_buffer& buffer, const ServeOptions& options,
                 HttpRequest* out, bool* head, bool* keep_alive, beast::error_code& ec) {
  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<uint32_t>(options.max_header_bytes));
  http::read_header(socket, buffer, parser, ec);
  if (ec) return false;
  const bool upload = parser.get().method() == http::verb::post && parser.get().target() == "/api/records";
  parser.body_limit(upload ? options.max_upload_bytes : options.max_body_bytes);
  http::read(socket, buffer, parser, ec);
  if (ec) return false;
  const auto& req = parser.get();
  *head = req.method() == http::verb::head;
  *keep_alive = req.keep_alive();
  *out = {std::string(req.method_string()), std::string(req.target()), std::string(req[http::field::if_none_match]),
          std::string(req[http::field::authorization]), std::move(parser.release().body())};
  return true;
}

// Requests on one connection, plain or TLS, until it closes or idles out.
template <class Stream>
void ServeRequests(Stream& stream, Router& router, const ServeOptions& options) {
  beast::flat_buffer buffer;
  for (;;) {
    HttpRequest request;
    bool head = false, keep_alive = false;
    beast::error_code ec;
    if (!ReadRequest(stream, buffer, options, &request, &head, &keep_alive, ec)) {
      const bool quiet_end = ec == http::error::end_of_stream || ec == asio::error::connection_reset ||
                             ec == asio::error::would_block || ec == asio::error::try_again ||
                             ec == asio::error::timed_out || ec == asio::ssl::error::stream_truncated;
      if (!quiet_end) Write(stream, ParseError(ec), false, false, ec);
      break;
    }
    const HttpResponse response = router.Handle(request);
    Write(stream, response, head, keep_alive, ec);
    if (ec || !keep_alive) break;
  }
}

void ServeConnection(tcp::socket socket, Router& router, const ServeOptions& options, asio::ssl::context* tls) {
  SetTimeouts(socket, options.idle_timeout_s);
  beast::error_code ec;
  if (tls) {
    beast::ssl_stream<tcp::socket> stream(std::move(socket), *tls);
    stream.handshake(asio::ssl::stream_base::server, ec);
    if (ec) return;  // not TLS, or a client that does not trust us: nothing to answer
    ServeRequests(stream, router, options);
    stream.shutdown(ec);
    return;
  }
  ServeRequests(socket, router, options);
  socket.shutdown(tcp::socket::shutdown_send, ec);
}

// The TLS context from --tls-cert / --tls-key (PEM); TLS 1.2 and later only.
Expected<std::unique_ptr<asio::ssl::context>> TlsContext(const ServeOptions& options) {
  if (options.tls_cert.empty() != options.tls_key.empty())
    return Status::InvalidArgument("--tls-cert and --tls-key go together");
  if (options.tls_cert.empty()) return std::unique_ptr<asio::ssl::context>();
  auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
  beast::error_code ec;
  ctx->use_certificate_chain_file(options.tls_cert, ec);
  if (ec) return Status::InvalidArgument(options.tls_cert + ": not a PEM certificate chain: " + ec.message());
  ctx->use_private_key_file(options.tls_key, asio::ssl::context::pem, ec);
  if (ec) return Status::InvalidArgument(options.tls_key + ": not a PEM private key for it: " + ec.message());
  return ctx;
}

// The cache folder: the given one, or a fresh temporary one.
Expected<std::string> CacheDir(const ServeOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string dir = options.cache_dir;
  if (dir.empty()) dir = (fs::temp_directory_path() / ("ucmoh-serve-" + std::to_string(::getpid()))).string();
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError(dir + ": " + ec.message());
  return dir;
}

}  // namespace

Status ParseListenAddress(const std::string& text, ServeOptions* options) {
  const size_t colon = text.rfind(':');
  const std::string bad = "--listen '" + text + "' is not HOST:PORT (e.g. 127.0.0.1:8080, 0.0.0.0:0)";
  if (colon == std::string::npos || colon == 0) return Status::InvalidArgument(bad);
  unsigned port = 0;
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, port);
  if (ec != std::errc() || end != last || first == last || port > 65535) return Status::InvalidArgument(bad);
  options->host = text.substr(0, colon);
  options->port = static_cast<uint16_t>(port);
  return Status::Ok();
}

namespace {

// What the connection threads share. Held by shared_ptr, so a thread still
// answering after Serve returned (SIGTERM mid-request) never sees it freed.
struct ServerState {
  ServerState(const ServeOptions& o, const std::string& cache_dir, const PluginSet& plugins,
              std::optional<AccessTokens> access, std::unique_ptr<asio::ssl::context> tls_context)
      : options(o), tokens(std::move(access)), tls(std::move(tls_context)), store(o.db_path, std::chrono::milliseconds(o.refresh_ms)),
        artifacts(cache_dir), jobs(o.db_path, plugins, [this] { store.Invalidate(); }),
        router(store, artifacts, plugins, WriteAccess{o.db_path, tokens ? &*tokens : nullptr, &jobs, o.private_reads}) {}
  const ServeOptions options;
  const std::optional<AccessTokens> tokens;
  const std::unique_ptr<asio::ssl::context> tls;  // null: plain HTTP
  StoreView store;
  ArtifactCache artifacts;
  JobQueue jobs;
  Router router;
  std::atomic<int> open_connections{0};
};

// One thread per connection, or 503 when max_connections are open.
void Dispatch(const std::shared_ptr<ServerState>& state, tcp::socket socket) {
  if (state->open_connections.load() >= state->options.max_connections) {
    beast::error_code ec;
    Write(socket, ErrorResponse(503, "too many connections"), false, false, ec);
    return;
  }
  ++state->open_connections;
  std::thread([state, s = std::move(socket)]() mutable {
    ServeConnection(std::move(s), state->router, state->options, state->tls.get());
    --state->open_connections;
  }).detach();
}

Expected<tcp::acceptor> Listen(asio::io_context& io, const ServeOptions& options) {
  beast::error_code ec;
  const auto address = asio::ip::make_address(options.host, ec);
  if (ec) return Status::InvalidArgument("--listen: '" + options.host + "' is not an IP address");
  tcp::acceptor acceptor(io);
  const tcp::endpoint endpoint(address, options.port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return Status::IOError("cannot listen on " + options.host + ":" + std::to_string(options.port) + ": " +
                           ec.message());
  return acceptor;
}

}  // namespace

Status Serve(const ServeOptions& options, const PluginSet& plugins,
             const std::function<void(const std::string& bound)>& on_listening) {
  auto cache_dir = CacheDir(options);
  if (!cache_dir.ok()) return cache_dir.status();
  std::optional<AccessTokens> tokens;
  if (options.private_reads && options.tokens_path.empty())
    return Status::InvalidArgument("--private needs --tokens FILE (who may read)");
  if (!options.tokens_path.empty()) {
    auto loaded = AccessTokens::Load(options.tokens_path);
    if (!loaded.ok()) return loaded.status();
    tokens = std::move(*loaded);
  }
  auto tls = TlsContext(options);
  if (!tls.ok()) return tls.status();
  auto state = std::make_shared<ServerState>(options, *cache_dir, plugins, std::move(tokens), std::move(*tls));
  if (auto first = state->store.Current(); !first.ok()) return first.status();  // a missing registry fails now
  asio::io_context io;
  auto acceptor = Listen(io, options);
  if (!acceptor.ok()) return acceptor.status();
  const auto bound = acceptor->local_endpoint();
  on_listening(std::string(state->tls ? "https://" : "http://") + bound.address().to_string() + ":" +
               std::to_string(bound.port()));

  std::function<void()> accept_next = [&] {
    acceptor->async_accept([&](beast::error_code ec, tcp::socket socket) {
      if (!acceptor->is_open()) return;
      if (!ec) Dispatch(state, std::move(socket));
      accept_next();
    });
  };
  accept_next();
  // SIGINT / SIGTERM close the acceptor; io.run() then returns.
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const beast::error_code&, int) { acceptor->close(); });
  io.run();
  return Status::Ok();
}

}  // namespace ucmoh::server
