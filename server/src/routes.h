// The server's routes as a plain function of a request: no sockets, no Beast,
// so every answer can be read (and tested) without a network. docs/serve.md.
#pragma once

#include <cstdint>
#include <string>

#include "artifact_cache.h"
#include "store_view.h"
#include "ucmoh/plugin_loader.h"

namespace ucmoh::server {

struct HttpRequest {
  std::string method;         // "GET", "HEAD", ...
  std::string target;         // path and query, as sent
  std::string if_none_match;  // the If-None-Match header, "" when absent
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;       // the payload, unless file_path is set
  std::string file_path;  // a file to send as the payload
  uint64_t file_size = 0;
  std::string etag;       // quoted strong ETag, "" for none
  bool immutable = false; // content addressed: cache forever
};

class Router {
 public:
  Router(StoreView& store, ArtifactCache& artifacts, const PluginSet& plugins)
      : store_(store), artifacts_(artifacts), plugins_(plugins) {}

  HttpResponse Handle(const HttpRequest& request);

 private:
  HttpResponse Get(const registry::RegistryStore& store, const std::string& path, const std::string& query);
  HttpResponse Version(const registry::RegistryStore& store, const std::string& ref, const std::string& rest);
  HttpResponse ArtifactFile(const registry::RegistryStore& store, const std::string& version,
                            const std::string& file);
  HttpResponse Blob(const registry::RegistryStore& store, const std::string& sha256);

  StoreView& store_;
  ArtifactCache& artifacts_;
  const PluginSet& plugins_;
};

// A JSON error body {"error": message} with the status.
HttpResponse ErrorResponse(int status, const std::string& message);

}  // namespace ucmoh::server
