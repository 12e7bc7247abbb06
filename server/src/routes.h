// The server's routes as a plain function of a request: no sockets, no Beast,
// so every answer can be read (and tested) without a network. Reads are in
// routes.cpp, writes (behind a bearer token) in write_routes.cpp. docs/serve.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "access_tokens.h"
#include "artifact_cache.h"
#include "job_queue.h"
#include "request_target.h"
#include "store_view.h"
#include "ucmoh/plugin_loader.h"

namespace ucmoh::server {

struct HttpRequest {
  std::string method;         // "GET", "HEAD", ...
  std::string target;         // path and query, as sent
  std::string if_none_match;  // the If-None-Match header, "" when absent
  std::string authorization;  // the Authorization header, "" when absent
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;       // the payload, unless file_path is set
  std::string file_path;  // a file to send as the payload
  uint64_t file_size = 0;
  std::string etag;       // quoted strong ETag, "" for none
  bool immutable = false; // content addressed: cache forever
  bool ask_for_token = false;  // 401: send WWW-Authenticate: Bearer
};

// What the write routes need besides the read view.
struct WriteAccess {
  std::string db_path;
  const AccessTokens* tokens = nullptr;  // null: writes are disabled
  JobQueue* jobs = nullptr;
  bool private_reads = false;            // reads need a read or write token too
};

class Router {
 public:
  Router(StoreView& store, ArtifactCache& artifacts, const PluginSet& plugins, WriteAccess writes)
      : store_(store), artifacts_(artifacts), plugins_(plugins), writes_(std::move(writes)) {}

  HttpResponse Handle(const HttpRequest& request);

 private:
  HttpResponse Get(const registry::RegistryStore& store, const RequestTarget& target);
  HttpResponse Version(const registry::RegistryStore& store, const std::string& ref, const std::string& rest);
  HttpResponse ArtifactFile(const registry::RegistryStore& store, const std::string& version,
                            const std::string& file);
  HttpResponse Blob(const registry::RegistryStore& store, const std::string& sha256);
  HttpResponse Jobs(const std::string& rest);
  std::optional<HttpResponse> Page(const registry::RegistryStore& store, const std::string& path);

  // write_routes.cpp
  std::optional<HttpResponse> Refuse(Access needed, const std::string& authorization) const;
  HttpResponse Write(const HttpRequest& request, const std::string& path);
  HttpResponse UploadRecords(const std::string& body);
  HttpResponse SetAlias(const std::string& name, const std::string& body);
  HttpResponse DeleteAlias(const std::string& name);
  HttpResponse SubmitJob(const std::string& body);

  StoreView& store_;
  ArtifactCache& artifacts_;
  const PluginSet& plugins_;
  const WriteAccess writes_;
};

// Status -> HTTP status: NotFound 404, InvalidArgument 400, Busy 409, else 500.
HttpResponse FromStatus(const Status& s);
HttpResponse JsonResponse(const nlohmann::json& j, int status = 200);

// A JSON error body {"error": message} with the status.
HttpResponse ErrorResponse(int status, const std::string& message);

}  // namespace ucmoh::server
