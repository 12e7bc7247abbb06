// The request path of `registry serve` (server/src/http_request.cpp, then the
// Router): raw bytes from the network are parsed under the server's limits
// and routed on a small real registry, with the tokens file of a real server.
// Every refusal is a 4xx with a message (never a 5xx), and nothing is written
// without a token: the fuzzer cannot know the write token, so a write method
// answered with a 2xx is a finding.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <variant>

#include "access_tokens.h"
#include "artifact_cache.h"
#include "fuzz_target.h"
#include "http_request.h"
#include "job_queue.h"
#include "routes.h"
#include "store_view.h"
#include "ucmoh/registry/registry_store.h"

namespace {

using namespace ucmoh;
using namespace ucmoh::server;

// One registry, tokens file and router per process.
struct Server {
  // The view is never refreshed: nothing writes the registry (a write would be a finding).
  Server() : dir(Scratch()), store(dir + "/r.db", std::chrono::hours(24)), artifacts(dir + "/cache"),
             jobs(dir + "/r.db", plugins, [] {}),
             router(store, artifacts, plugins, WriteAccess{dir + "/r.db", &*tokens, &jobs, false}) {}

  static std::string Scratch() {
    const std::string dir = std::filesystem::temp_directory_path().string() + "/ucmoh-fuzz-serve-" +
                            std::to_string(getpid());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    auto created = registry::RegistryStore::Open(dir + "/r.db", registry::OpenMode::kCreate);
    UCMOH_FUZZ_CHECK(created.ok(), "cannot create the fuzz registry");
    std::ofstream(dir + "/tokens") << "write a-write-token-the-fuzzer-cannot-guess-0123456789\n";
    return dir;
  }

  std::string dir;
  PluginSet plugins;
  std::optional<AccessTokens> tokens = [this] {
    auto loaded = AccessTokens::Load(dir + "/tokens");
    UCMOH_FUZZ_CHECK(loaded.ok(), "cannot load the fuzz tokens");
    return std::optional<AccessTokens>(std::move(*loaded));
  }();
  StoreView store;
  ArtifactCache artifacts;
  JobQueue jobs;
  Router router;
};

void CheckRefusalAnswer(const HttpResponse& response) {
  UCMOH_FUZZ_CHECK(response.status < 500, "a request was answered with a 5xx");
  if (response.status < 400) return;
  auto body = nlohmann::json::parse(response.body, nullptr, false);
  UCMOH_FUZZ_CHECK(body.is_object() && body.contains("error") && body["error"].is_string() &&
                       !body["error"].get<std::string>().empty(),
                   "a refusal without an error message");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Server* server = new Server();  // lives as long as the process
  ServeOptions options;
  options.max_upload_bytes = 1 << 20;  // as large as a fuzz input gets
  auto parsed = ParseRequestBytes(fuzz::Bytes(data, size), options);
  if (auto* refused = std::get_if<HttpResponse>(&parsed)) {
    UCMOH_FUZZ_CHECK(refused->status >= 400 && refused->status < 500, "a parse error is not a 4xx");
    CheckRefusalAnswer(*refused);
    return 0;
  }
  const HttpRequest& request = std::get<ParsedRequest>(parsed).request;
  const HttpResponse response = server->router.Handle(request);
  CheckRefusalAnswer(response);
  const bool read = request.method == "GET" || request.method == "HEAD";
  UCMOH_FUZZ_CHECK(read || response.status >= 400, "a write was accepted without the token");
  return 0;
}
