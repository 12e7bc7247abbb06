// One HTTP/1.1 connection of `registry serve`, plain or TLS, driven by
// asynchronous Beast operations on a strand of the server's fixed I/O pool:
// a connection costs a socket and its buffers, never a thread, so slow or
// idle clients cannot exhaust the server. Every wait has a deadline (TLS
// handshake and request header: header_timeout_s; the wait for the next
// request on a kept-alive connection: idle_timeout_s; a body: body_timeout_s,
// an upload upload_timeout_s; an answer: write_timeout_s); a client past one
// is closed. The Router's work runs on the separate handler pool, so a slow
// route holds no I/O thread. Included by http_server.cpp only (Beast stays
// inside the server's sources).
#pragma once

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <type_traits>

#include "connection_limits.h"
#include "http_request.h"
#include "routes.h"
#include "ucmoh/file_bytes.h"
#include "ucmoh/server/serve.h"

namespace ucmoh::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// What a session needs from the server; `owner` keeps it alive.
struct SessionServices {
  const ServeOptions* options = nullptr;
  Router* router = nullptr;
  asio::thread_pool* handlers = nullptr;
  std::shared_ptr<void> owner;
};

template <class Response>
void SetHeaders(Response& res, const HttpResponse& r, bool keep_alive) {
  res.set(http::field::server, "ucmoh-registry");
  res.set(http::field::content_type, r.content_type);
  if (!r.etag.empty()) res.set(http::field::etag, r.etag);
  if (r.immutable) res.set(http::field::cache_control, "public, max-age=31536000, immutable");
  if (r.ask_for_token) res.set(http::field::www_authenticate, "Bearer");
  res.keep_alive(keep_alive);
}

// The connection ended without a request to answer: closed, reset, past a
// deadline, or the server stopping.
inline bool QuietEnd(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == beast::error::timeout || ec == asio::error::operation_aborted ||
         ec == asio::ssl::error::stream_truncated;
}

template <class Stream>
class HttpSession : public std::enable_shared_from_this<HttpSession<Stream>> {
 public:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

  HttpSession(Stream stream, SessionServices services, ConnectionLimits::Ticket ticket)
      : stream_(std::move(stream)), services_(std::move(services)), ticket_(std::move(ticket)) {}

  void Start() {
    if constexpr (kTls) {
      Deadline(options().header_timeout_s);
      stream_.async_handshake(asio::ssl::stream_base::server, [self = this->shared_from_this()](beast::error_code ec) {
        if (ec) return;  // not TLS, or a client that does not trust us: nothing to answer
        self->WaitForRequest();
      });
    } else {
      WaitForRequest();
    }
  }

 private:
  static constexpr size_t kReadChunk = 4096;
  static constexpr uint64_t kInMemoryFileBytes = 16 << 20;

  const ServeOptions& options() const { return *services_.options; }
  void Deadline(int seconds) { beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(seconds)); }

  // The next request's first bytes may take idle_timeout_s (the first
  // request's, header_timeout_s); from then on its header has header_timeout_s.
  void WaitForRequest() {
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(options().max_header_bytes));
    if (buffer_.size() > 0) return ReadHeader();  // pipelined: already here
    Deadline(answered_ ? options().idle_timeout_s : options().header_timeout_s);
    stream_.async_read_some(buffer_.prepare(kReadChunk),
                            [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->Fail(ec);
                              self->buffer_.commit(n);
                              self->ReadHeader();
                            });
  }

  void ReadHeader() {
    Deadline(options().header_timeout_s);
    http::async_read_header(stream_, buffer_, *parser_, [self = this->shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->Fail(ec);
      self->ReadBody();
    });
  }

  // A records upload may be large and slow; nothing else is.
  void ReadBody() {
    parser_->body_limit(BodyLimitFor(parser_->get(), options()));
    Deadline(IsUpload(parser_->get()) ? options().upload_timeout_s : options().body_timeout_s);
    http::async_read(stream_, buffer_, *parser_, [self = this->shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->Fail(ec);
      self->Handle();
    });
  }

  // The route runs on the handler pool; its answer is written on this
  // connection's strand. The client's deadline does not run meanwhile.
  void Handle() {
    auto& req = parser_->get();
    const bool head = req.method() == http::verb::head;
    const bool keep_alive = req.keep_alive();
    HttpRequest request = ToHttpRequest(req);
    beast::get_lowest_layer(stream_).expires_never();
    asio::post(*services_.handlers, [self = this->shared_from_this(), request = std::move(request), head,
                                     keep_alive]() mutable {
      HttpResponse response;
      try {  // a route that throws answers 500; it must not end the server
        response = self->services_.router->Handle(request);
      } catch (const std::exception& e) {
        response = ErrorResponse(500, std::string("internal error: ") + e.what());
      }
      asio::post(self->stream_.get_executor(), [self, response = std::move(response), head, keep_alive]() mutable {
        self->Respond(std::move(response), head, keep_alive);
      });
    });
  }

  void Fail(const beast::error_code& ec) {
    if (QuietEnd(ec)) return Close();
    Respond(ParseError(ec), false, false);
  }

  // Writes the answer; HEAD gets the same headers and no payload.
  void Respond(HttpResponse r, bool head, bool keep_alive) {
    answered_ = true;
    Deadline(options().write_timeout_s);
    const auto status = static_cast<http::status>(r.status);
    auto after = [self = this->shared_from_this(), keep_alive](beast::error_code ec) {
      if (ec || !keep_alive) return self->Close();
      self->WaitForRequest();
    };
    // An artifact up to kInMemoryFileBytes is read whole and sent in one
    // write: Beast's file_body writes 4 KiB at a time, one completion each.
    if (!r.file_path.empty() && !head && r.file_size <= kInMemoryFileBytes) {
      auto bytes = ReadFileBytes(r.file_path);
      if (!bytes.ok()) return Respond(ErrorResponse(500, "cannot read a built artifact: " + bytes.status().message()), head, false);
      r.body = std::move(*bytes);
      r.file_path.clear();
    }
    if (!r.file_path.empty() && !head) {
      auto res = std::make_shared<http::response<http::file_body>>(status, 11);
      beast::error_code ec;
      res->body().open(r.file_path.c_str(), beast::file_mode::scan, ec);
      if (ec) return Respond(ErrorResponse(500, "cannot read a built artifact: " + ec.message()), head, false);
      SetHeaders(*res, r, keep_alive);
      res->prepare_payload();
      http::async_write(stream_, *res, [res, after](beast::error_code ec, size_t) { after(ec); });
      return;
    }
    auto res = std::make_shared<http::response<http::string_body>>(status, 11);
    SetHeaders(*res, r, keep_alive);
    if (head) {
      res->content_length(r.file_path.empty() ? r.body.size() : r.file_size);
      auto serializer = std::make_shared<http::response_serializer<http::string_body>>(*res);
      http::async_write_header(stream_, *serializer,
                               [res, serializer, after](beast::error_code ec, size_t) { after(ec); });
      return;
    }
    res->body() = std::move(r.body);
    res->prepare_payload();
    http::async_write(stream_, *res, [res, after](beast::error_code ec, size_t) { after(ec); });
  }

  void Close() {
    beast::error_code ec;
    if constexpr (kTls) {
      Deadline(5);
      stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) {});
    } else {
      stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ec);
    }
  }

  Stream stream_;
  SessionServices services_;
  ConnectionLimits::Ticket ticket_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool answered_ = false;  // a request was answered: the next wait is an idle one
};

}  // namespace ucmoh::server
