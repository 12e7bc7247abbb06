// `registry serve` (issue 17): one registry over HTTP/1.1 for a fleet of
// compilers. Read-only over the RocksDB directory, so the one writer
// (add-intrinsic, records add, alias set) keeps working beside it; commits
// appear within `refresh_ms`. Writes (records upload, aliases, add-intrinsic
// jobs) need a bearer token and open the registry for writing only while they
// run. docs/serve.md lists the routes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ucmoh/plugin_loader.h"
#include "ucmoh/status.h"

namespace ucmoh::server {

struct ServeOptions {
  std::string db_path;                // the registry directory
  std::string host = "127.0.0.1";     // --listen HOST:PORT
  uint16_t port = 8080;               // 0: any free port (printed when listening)
  int max_connections = 4096;         // open at once; beyond: 503 and close
  int max_connections_per_client = 256;  // from one client address; beyond: 503 and close
  int64_t refresh_ms = 1000;          // how stale the read view may get
  uint64_t max_header_bytes = 8192;   // larger: 431
  uint64_t max_body_bytes = 1 << 20;  // larger: 413 (except a records upload)
  uint64_t max_upload_bytes = 256ull << 20;  // POST /api/records; larger: 413
  // Deadlines: a client past one is closed (http_session.h).
  int header_timeout_s = 10;          // TLS handshake; a request header from its first byte
  int idle_timeout_s = 30;            // waiting for the next request on a kept-alive connection
  int body_timeout_s = 30;            // a request body (at most max_body_bytes)
  int upload_timeout_s = 600;         // a records upload's body
  int write_timeout_s = 300;          // sending one answer
  int io_threads = 0;                 // the pool that runs every connection; 0: max(2, cores)
  int handler_threads = 0;            // the pool that runs routes; 0: max(2, cores)
  std::string cache_dir;              // built artifacts; "" = a temporary directory
  std::string tokens_path;            // bearer tokens for writes; "" = writes disabled
  bool private_reads = false;         // reads need a token too (needs tokens_path)
  std::string tls_cert, tls_key;      // PEM files: serve HTTPS (TLS 1.2+); "" = plain HTTP
};

// Binds, calls `on_listening("http://HOST:PORT")` (https:// with TLS), and serves until SIGINT or
// SIGTERM. `plugins` answers /api/plugins and /api/intrinsics.
Status Serve(const ServeOptions& options, const PluginSet& plugins,
             const std::function<void(const std::string& bound)>& on_listening);

// "HOST:PORT" -> host, port; a clear error naming the text otherwise.
Status ParseListenAddress(const std::string& text, ServeOptions* options);

}  // namespace ucmoh::server
