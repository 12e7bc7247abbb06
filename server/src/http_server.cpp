// The HTTP/1.1 front of `registry serve` (ucmoh/server/serve.h) on
// Boost.Beast: a fixed pool of I/O threads runs every connection
// asynchronously (http_session.h), a separate pool runs the Router, and
// ConnectionLimits bounds connections in all and per client address. TLS
// through OpenSSL when given a certificate. Beast is included here,
// http_session.h and http_client.cpp only.
#include <sys/resource.h>

#include <algorithm>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <charconv>
#include <filesystem>
#include <optional>
#include <thread>
#include <vector>

#include "http_session.h"
#include "routes.h"
#include "ucmoh/server/serve.h"

namespace ucmoh::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

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

// What the sessions share. Held by shared_ptr (each session keeps it), so a
// route still running when Serve returns never sees it freed.
struct ServerState {
  ServerState(const ServeOptions& o, const std::string& cache_dir, const PluginSet& plugins,
              std::optional<AccessTokens> access, std::unique_ptr<asio::ssl::context> tls_context)
      : options(o), tokens(std::move(access)), tls(std::move(tls_context)), store(o.db_path, std::chrono::milliseconds(o.refresh_ms)),
        artifacts(cache_dir), jobs(o.db_path, plugins, [this] { store.Invalidate(); }),
        router(store, artifacts, plugins, WriteAccess{o.db_path, tokens ? &*tokens : nullptr, &jobs, o.private_reads}),
        limits(o.max_connections, o.max_connections_per_client), handlers(ThreadsOf(o.handler_threads)) {}
  static size_t ThreadsOf(int asked) {
    return asked > 0 ? static_cast<size_t>(asked) : std::max(2u, std::thread::hardware_concurrency());
  }
  const ServeOptions options;
  const std::optional<AccessTokens> tokens;
  const std::unique_ptr<asio::ssl::context> tls;  // null: plain HTTP
  StoreView store;
  ArtifactCache artifacts;
  JobQueue jobs;
  Router router;
  ConnectionLimits limits;
  asio::thread_pool handlers;  // runs the Router, off the I/O threads
};

// Past a limit: a plain client gets 503 and the reason (within 5 s, or it is
// dropped); a TLS client is closed before the handshake.
void Refuse(const std::shared_ptr<ServerState>& state, tcp::socket socket, const std::string& why) {
  if (state->tls) return;
  auto stream = std::make_shared<beast::tcp_stream>(std::move(socket));
  const HttpResponse answer = ErrorResponse(503, why);
  auto res = std::make_shared<http::response<http::string_body>>(http::status::service_unavailable, 11);
  SetHeaders(*res, answer, /*keep_alive=*/false);
  res->body() = answer.body;
  res->prepare_payload();
  stream->expires_after(std::chrono::seconds(5));
  http::async_write(*stream, *res, [stream, res](beast::error_code, size_t) {
    beast::error_code ec;
    stream->socket().shutdown(tcp::socket::shutdown_send, ec);
  });
}

// A new connection: a session if the limits admit it, else Refuse.
void Admit(const std::shared_ptr<ServerState>& state, tcp::socket socket) {
  beast::error_code ec;
  const std::string address = socket.remote_endpoint(ec).address().to_string();
  if (ec) return;
  std::string refusal;
  auto ticket = state->limits.Admit(address, &refusal);
  if (!ticket) return Refuse(state, std::move(socket), refusal);
  SessionServices services{&state->options, &state->router, &state->handlers, state};
  if (state->tls) {
    std::make_shared<HttpSession<TlsStream>>(TlsStream(beast::tcp_stream(std::move(socket)), *state->tls),
                                             std::move(services), std::move(*ticket))
        ->Start();
  } else {
    std::make_shared<HttpSession<beast::tcp_stream>>(beast::tcp_stream(std::move(socket)), std::move(services),
                                                     std::move(*ticket))
        ->Start();
  }
}

// Each connection is a descriptor: take the hard limit (the soft one is often
// 1,024), so --max-connections, not the process, bounds them.
void RaiseDescriptorLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &limit);
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
  RaiseDescriptorLimit();
  asio::io_context io;
  auto acceptor = Listen(io, options);
  if (!acceptor.ok()) return acceptor.status();
  const auto bound = acceptor->local_endpoint();
  on_listening(std::string(state->tls ? "https://" : "http://") + bound.address().to_string() + ":" +
               std::to_string(bound.port()));

  // Accept on a strand per connection; when out of descriptors, pause a
  // moment instead of spinning.
  asio::steady_timer pause(io);
  std::function<void()> accept_next = [&] {
    acceptor->async_accept(asio::make_strand(io), [&](beast::error_code ec, tcp::socket socket) {
      if (!acceptor->is_open()) return;
      if (!ec) Admit(state, std::move(socket));
      if (ec == asio::error::no_descriptors) {
        pause.expires_after(std::chrono::milliseconds(100));
        pause.async_wait([&](beast::error_code) { accept_next(); });
        return;
      }
      accept_next();
    });
  };
  accept_next();
  // SIGINT / SIGTERM stop accepting and stop the pool; routes still running
  // finish (their answers are not sent) before Serve returns.
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const beast::error_code&, int) {
    acceptor->close();
    io.stop();
  });
  std::vector<std::thread> io_threads;
  for (size_t i = 1; i < ServerState::ThreadsOf(options.io_threads); ++i) io_threads.emplace_back([&] { io.run(); });
  io.run();
  for (std::thread& t : io_threads) t.join();
  state->handlers.join();
  return Status::Ok();
}

}  // namespace ucmoh::server
