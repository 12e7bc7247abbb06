// registry serve --listen HOST:PORT [--tokens FILE]: the registry over HTTP
// (docs/serve.md).
#include <fmt/format.h>

#include <cstdio>

#include "commands.h"
#include "ucmoh/registry/registry_path.h"
#include "ucmoh/server/serve.h"

namespace ucmoh::cli {

Command AddServeCommand(CLI::App& app, const GlobalOptions& global) {
  auto* sub = app.add_subcommand("serve", "Serve the registry over HTTP: JSON API and pullable artifacts (read-only)");
  auto listen = std::make_shared<std::string>("127.0.0.1:8080");
  auto options = std::make_shared<server::ServeOptions>();
  sub->add_option("--listen", *listen, "HOST:PORT to listen on; port 0 picks a free one")->capture_default_str();
  sub->add_option("--refresh-ms", options->refresh_ms, "How often the server reopens its view to see new versions")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{3600000}));
  sub->add_option("--max-connections", options->max_connections, "Open connections beyond this get 503")
      ->capture_default_str()->check(CLI::Range(1, 1000000));
  sub->add_option("--max-connections-per-client", options->max_connections_per_client,
                  "Open connections from one client address beyond this get 503")
      ->capture_default_str()->check(CLI::Range(1, 1000000));
  sub->add_option("--header-timeout", options->header_timeout_s,
                  "Seconds a client has for the TLS handshake and for a request header once it starts")
      ->capture_default_str()->check(CLI::Range(1, 3600));
  sub->add_option("--idle-timeout", options->idle_timeout_s,
                  "Seconds a kept-alive connection may wait for its next request")
      ->capture_default_str()->check(CLI::Range(1, 3600));
  sub->add_option("--io-threads", options->io_threads, "Threads that run every connection (0: max(2, cores))")
      ->capture_default_str()->check(CLI::Range(0, 1024));
  sub->add_option("--handler-threads", options->handler_threads, "Threads that run routes (0: max(2, cores))")
      ->capture_default_str()->check(CLI::Range(0, 1024));
  sub->add_option("--cache", options->cache_dir, "Folder for built artifacts (default: a temporary folder)");
  sub->add_option("--tls-cert", options->tls_cert, "PEM certificate chain: serve HTTPS (with --tls-key)");
  sub->add_option("--tls-key", options->tls_key, "PEM private key of --tls-cert");
  sub->add_option("--tokens", options->tokens_path,
                  "File of bearer tokens ('write TOKEN' / 'read TOKEN' per line); without it, writes are refused");
  sub->add_flag("--private", options->private_reads, "Reads need a token too (read or write scope), pages included");
  return {sub, [&global, listen, options]() {
            auto plugins = Plugins(global);
            if (!plugins.ok()) return Fail(plugins.status());
            server::ServeOptions o = *options;
            if (Status s = server::ParseListenAddress(*listen, &o); !s.ok()) return Fail(s);
            o.db_path = registry::ResolveRegistryPath(global.db_path);
            Status s = server::Serve(o, **plugins, [&](const std::string& bound) {
              fmt::print("serving {} at {}/\n", o.db_path, bound);
              std::fflush(stdout);
            });
            return s.ok() ? 0 : Fail(s);
          }};
}

}  // namespace ucmoh::cli
