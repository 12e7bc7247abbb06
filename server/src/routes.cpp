// The routes of `registry serve` (routes.h, docs/serve.md).
#include "routes.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "pages.h"
#include "request_target.h"
#include "ucmoh/registry/registry_json.h"
#include "ucmoh/registry/registry_ops.h"

namespace ucmoh::server {

using nlohmann::json;

namespace {

int HttpStatusOf(const Status& s) {
  switch (s.code()) {
    case Status::Code::kNotFound: return 404;
    case Status::Code::kInvalidArgument: return 400;
    case Status::Code::kAlreadyExists: return 409;
    case Status::Code::kBusy: return 409;  // another writer holds the registry's lock
    default: return 500;
  }
}

}  // namespace

HttpResponse FromStatus(const Status& s) { return ErrorResponse(HttpStatusOf(s), s.message()); }

HttpResponse JsonResponse(const json& j, int status) {
  HttpResponse r;
  r.status = status;
  r.body = j.dump(-1, ' ', false, json::error_handler_t::replace);  // bytes from a request may not be UTF-8
  return r;
}

namespace {

// "a/b/c" after `prefix`, or nullopt when the path does not start with it.
std::optional<std::string> After(const std::string& path, const std::string& prefix) {
  if (path.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  return path.substr(prefix.size());
}

// The whole of `text` as a number >= 0, or nullopt ("", "1x", "-2", too large).
std::optional<int64_t> WholeNumber(const std::string& text) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 0) return std::nullopt;
  return n;
}

Expected<uint64_t> QueryNumber(const RequestTarget& target, const std::string& key, uint64_t fallback) {
  const std::string text = target.QueryValue(key);
  if (text.empty()) return fallback;
  auto n = WholeNumber(text);
  if (!n) return Status::InvalidArgument("query parameter '" + key + "' must be a non-negative integer, got '" + text + "'");
  return static_cast<uint64_t>(*n);
}

// ?from=&limit= of a list route: from 0 and 1000 entries by default, at most
// max_limit. WholeNumber bounds both to int64.
struct PageRange {
  int64_t from = 0;
  size_t limit = 0;
};

Expected<PageRange> PageRangeOf(const RequestTarget& target, uint64_t max_limit) {
  auto from = QueryNumber(target, "from", 0);
  if (!from.ok()) return from.status();
  auto limit = QueryNumber(target, "limit", 1000);
  if (!limit.ok()) return limit.status();
  return PageRange{static_cast<int64_t>(*from), static_cast<size_t>(std::min(*limit, max_limit))};
}

bool IsSha256Hex(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

HttpResponse ErrorResponse(int status, const std::string& message) {
  HttpResponse r;
  r.status = status;
  // The message may quote the request (a path, a header): bytes that are not
  // UTF-8 become U+FFFD rather than an exception.
  r.body = json{{"error", message}}.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

HttpResponse Router::Handle(const HttpRequest& request) {
  auto target = ParseRequestTarget(request.target);
  if (!target.ok()) return FromStatus(target.status());
  const std::string& path = target->path;
  if (request.method == "POST" || request.method == "PUT" || request.method == "DELETE")
    return Write(request, path);
  if (request.method != "GET" && request.method != "HEAD")
    return ErrorResponse(405, "method " + request.method + " is not allowed (GET, HEAD, POST, PUT, DELETE)");
  if (path == "/healthz") return JsonResponse({{"ok", true}});
  if (writes_.private_reads)
    if (auto refused = Refuse(Access::kRead, request.authorization)) return *refused;
  auto store = store_.Current();
  if (!store.ok()) return FromStatus(store.status());
  HttpResponse r = Get(**store, *target);
  // A read error may be a file the writer compacted away under an old
  // handle: the next request reopens.
  if (r.status == 500) store_.Invalidate();
  if (!r.etag.empty() && r.etag == request.if_none_match) {
    r.status = 304;
    r.body.clear();
    r.file_path.clear();
    r.file_size = 0;
  }
  return r;
}

HttpResponse Router::Get(const registry::RegistryStore& store, const RequestTarget& target) {
  const std::string& path = target.path;
  if (auto page = Page(store, path)) return *page;
  if (path == "/api/versions") {  // paged as events are: ?from=NUMBER&limit=N (at most 1000)
    auto page = PageRangeOf(target, 1000);
    if (!page.ok()) return FromStatus(page.status());
    auto j = registry::VersionsJson(store, page->from, page->limit);
    return j.ok() ? JsonResponse(*j) : FromStatus(j.status());
  }
  if (auto rest = After(path, "/api/versions/")) {
    const size_t slash = rest->find('/');
    return Version(store, rest->substr(0, slash), slash == std::string::npos ? "" : rest->substr(slash + 1));
  }
  if (path == "/api/intrinsics") {
    auto j = registry::IntrinsicsJson(store, plugins_);
    return j.ok() ? JsonResponse(*j) : FromStatus(j.status());
  }
  if (path == "/api/plugins") return JsonResponse(registry::PluginsToJson(plugins_));
  if (path == "/api/aliases") {
    auto a = store.ListAliases();
    return a.ok() ? JsonResponse(registry::AliasesToJson(*a)) : FromStatus(a.status());
  }
  if (path == "/api/events") {
    auto page = PageRangeOf(target, 100000);
    if (!page.ok()) return FromStatus(page.status());
    auto e = store.ListEvents(static_cast<uint64_t>(page->from), page->limit);
    return e.ok() ? JsonResponse(registry::EventsToJson(*e)) : FromStatus(e.status());
  }
  if (auto rest = After(path, "/artifacts/")) {
    const size_t slash = rest->find('/');
    if (slash == std::string::npos) return ErrorResponse(404, "no such artifact '" + path + "'");
    return ArtifactFile(store, rest->substr(0, slash), rest->substr(slash + 1));
  }
  if (auto rest = After(path, "/blobs/")) return Blob(store, *rest);
  if (path == "/api/jobs") return writes_.jobs ? JsonResponse(writes_.jobs->List()) : JsonResponse(json::array());
  if (auto rest = After(path, "/api/jobs/")) return Jobs(*rest);
  return ErrorResponse(404, "no route for '" + path + "'");
}

// /api/versions/REF, REF/evaluation, REF/files.
HttpResponse Router::Version(const registry::RegistryStore& store, const std::string& ref, const std::string& rest) {
  auto number = store.ResolveRef(ref);
  if (!number.ok()) return FromStatus(number.status());
  if (rest.empty()) {
    auto j = registry::VersionDetailJson(store, *number);
    return j.ok() ? JsonResponse(*j) : FromStatus(j.status());
  }
  if (rest == "evaluation") {
    auto m = registry::EvaluationMatrix(store, *number);
    return m.ok() ? JsonResponse(registry::EvaluationMatrixToJson(*m)) : FromStatus(m.status());
  }
  if (rest == "files") {
    auto artifact = artifacts_.Get(store, *number);
    if (!artifact.ok()) return FromStatus(artifact.status());
    HttpResponse r;
    r.body = (*artifact)->index_json;
    return r;
  }
  return ErrorResponse(404, "no route for version '" + ref + "' and '" + rest + "'");
}

// /artifacts/N/FILE: only files the version's index lists, so nothing else
// on the disk can be named.
HttpResponse Router::ArtifactFile(const registry::RegistryStore& store, const std::string& version,
                                  const std::string& file) {
  const auto n = WholeNumber(version);
  if (!n || *n == 0) return ErrorResponse(400, "artifact version must be a positive number, got '" + version + "'");
  auto artifact = artifacts_.Get(store, *n);
  if (!artifact.ok()) return FromStatus(artifact.status());
  const auto* f = (*artifact)->Find(file);
  if (!f) return ErrorResponse(404, "version " + version + " has no file '" + file + "'");
  HttpResponse r;
  r.content_type = "application/octet-stream";
  r.file_path = (*artifact)->dir + "/" + f->path;
  r.file_size = f->size;
  r.etag = "\"" + f->sha256 + "\"";
  r.immutable = true;
  return r;
}

// The HTML pages; nullopt for a path that is not one.
std::optional<HttpResponse> Router::Page(const registry::RegistryStore& store, const std::string& path) {
  Expected<std::string> page = Status::NotFound("");
  if (path == "/") page = VersionsPage(store);
  else if (path == "/plugins") page = PluginsPage(store, plugins_);
  else if (path == "/events") page = EventsPage(store);
  else if (auto ref = After(path, "/versions/")) page = VersionPage(store, *ref);
  else return std::nullopt;
  if (!page.ok()) return FromStatus(page.status());
  HttpResponse r;
  r.content_type = "text/html; charset=utf-8";
  r.body = std::move(*page);
  return r;
}

HttpResponse Router::Jobs(const std::string& id_text) {
  const auto id = WholeNumber(id_text);
  if (!id || !writes_.jobs) return ErrorResponse(404, "no job '" + id_text + "'");
  auto job = writes_.jobs->Get(*id);
  return job.ok() ? JsonResponse(*job) : FromStatus(job.status());
}

HttpResponse Router::Blob(const registry::RegistryStore& store, const std::string& sha256) {
  if (!IsSha256Hex(sha256)) return ErrorResponse(400, "'" + sha256 + "' is not a lowercase sha256");
  auto bytes = store.GetBlob(sha256);
  if (!bytes.ok()) return FromStatus(bytes.status());
  HttpResponse r;
  r.content_type = "application/octet-stream";
  r.body = std::move(*bytes);
  r.etag = "\"" + sha256 + "\"";
  r.immutable = true;
  return r;
}

}  // namespace ucmoh::server
