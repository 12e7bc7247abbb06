// The write routes of `registry serve` (routes.h, docs/serve.md): records
// upload, aliases, add-intrinsic jobs. Each needs a write token; each opens
// the registry for writing only for its own duration, so the CLI can still
// write between requests (and a request gets 409 while the CLI holds the lock).
#include <nlohmann/json.hpp>
#include <optional>

#include "routes.h"
#include "ucmoh/registry/registry_ops.h"

namespace ucmoh::server {

using nlohmann::json;

namespace {

HttpResponse Unauthorized(const std::string& message) {
  HttpResponse r = ErrorResponse(401, message);
  r.ask_for_token = true;
  return r;
}

Expected<std::unique_ptr<registry::RegistryStore>> OpenForWriting(const std::string& db_path) {
  return registry::RegistryStore::Open(db_path, registry::OpenMode::kReadWrite);
}

}  // namespace

// 401 / 403 for a request without a token that grants `needed`; nullopt
// when it may go on.
std::optional<HttpResponse> Router::Refuse(Access needed, const std::string& authorization) const {
  if (!writes_.tokens) return ErrorResponse(403, "writes are disabled: start `registry serve` with --tokens FILE");
  if (authorization.empty()) return Unauthorized("this needs 'Authorization: Bearer TOKEN'");
  const Access granted = writes_.tokens->Check(authorization);
  if (granted == Access::kNone) return Unauthorized("unknown token");
  if (needed == Access::kWrite && granted != Access::kWrite) return ErrorResponse(403, "this token may only read");
  return std::nullopt;
}

HttpResponse Router::Write(const HttpRequest& request, const std::string& path) {
  if (auto refused = Refuse(Access::kWrite, request.authorization)) return *refused;
  const std::string aliases = "/api/aliases/";
  if (path == "/api/records" && request.method == "POST") return UploadRecords(request.body);
  if (path == "/api/jobs" && request.method == "POST") return SubmitJob(request.body);
  if (path.compare(0, aliases.size(), aliases) == 0 && path.size() > aliases.size()) {
    const std::string name = path.substr(aliases.size());
    if (request.method == "PUT") return SetAlias(name, request.body);
    if (request.method == "DELETE") return DeleteAlias(name);
  }
  return ErrorResponse(405, request.method + " " + path + " is not a write route");
}

// POST /api/records: JSONL records, all or nothing (errors name "upload:LINE").
HttpResponse Router::UploadRecords(const std::string& body) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos)
    return ErrorResponse(400, "the upload holds no records (JSON Lines, one record per line)");
  auto store = OpenForWriting(writes_.db_path);
  if (!store.ok()) return FromStatus(store.status());
  auto r = registry::AddRecordsText(**store, plugins_, body, "upload");
  if (!r.ok()) return FromStatus(r.status());
  store_.Invalidate();
  return JsonResponse({{"read", r->read}, {"added", r->stored.added}, {"replaced", r->stored.replaced},
                       {"by_intrinsic", r->by_intrinsic}});
}

// PUT /api/aliases/NAME {"version": REF}.
HttpResponse Router::SetAlias(const std::string& name, const std::string& body) {
  const json j = json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("version") || (!j["version"].is_string() && !j["version"].is_number_integer()))
    return ErrorResponse(400, "expected {\"version\": REF}, REF a number or a reference like \"ucmoh@3\"");
  const std::string ref = j["version"].is_string() ? j["version"].get<std::string>()
                                                   : std::to_string(j["version"].get<int64_t>());
  auto store = OpenForWriting(writes_.db_path);
  if (!store.ok()) return FromStatus(store.status());
  auto n = (*store)->ResolveRef(ref);
  if (!n.ok()) return FromStatus(n.status());
  if (Status s = (*store)->SetAlias(name, *n); !s.ok()) return FromStatus(s);
  store_.Invalidate();
  return JsonResponse({{"name", name}, {"version", *n}});
}

HttpResponse Router::DeleteAlias(const std::string& name) {
  auto store = OpenForWriting(writes_.db_path);
  if (!store.ok()) return FromStatus(store.status());
  if (Status s = (*store)->DeleteAlias(name); !s.ok()) return FromStatus(s);
  store_.Invalidate();
  return JsonResponse({{"name", name}, {"deleted", true}});
}

// POST /api/jobs {"intrinsic": NAME, ...}: 202 with the job; poll /api/jobs/ID.
HttpResponse Router::SubmitJob(const std::string& body) {
  auto job = AddIntrinsicJobFromJson(body);
  if (!job.ok()) return FromStatus(job.status());
  auto id = writes_.jobs->Submit(std::move(*job));
  if (!id.ok()) return ErrorResponse(503, id.status().message());
  auto view = writes_.jobs->Get(*id);
  return JsonResponse(view.ok() ? *view : json{{"id", *id}}, 202);
}

}  // namespace ucmoh::server
