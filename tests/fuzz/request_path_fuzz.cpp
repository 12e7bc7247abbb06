// The request path of `registry serve` (server/src/http_request.cpp, then the
// Router): raw bytes from the network are parsed under the server's limits
// and routed on a small real registry (two versions of a lineage learned from
// the committed H100 records, an alias, events, every artifact), with the
// project's plugins and the tokens file of a real server.
// Every refusal is a 4xx with a message (never a 5xx), and nothing is written
// without a token: the fuzzer cannot know the write token, so a write method
// answered with a 2xx is a finding.
#include <cstdlib>
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
#include "ucmoh/plugin_loader.h"
#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/registry/registry_store.h"

namespace {

using namespace ucmoh;
using namespace ucmoh::server;

// One registry, tokens file and router per process.
struct Server {
  // The view is never refreshed: nothing writes the registry (a write would be a finding).
  Server() : dir(Scratch()), plugins(Plugins()), store(Populated(dir + "/r.db", plugins), std::chrono::hours(24)),
             artifacts(dir + "/cache"), jobs(dir + "/r.db", plugins, [] {}),
             router(store, artifacts, plugins, WriteAccess{dir + "/r.db", &*tokens, &jobs, false}) {
    // The registry really holds what the routes read: a fuzz run against an
    // empty one would only ever exercise the 404s.
    for (const char* target : {"/api/versions/2", "/api/versions/stable/evaluation", "/artifacts/1/model.pt"})
      UCMOH_FUZZ_CHECK(router.Handle(HttpRequest{"GET", target, "", "", ""}).status == 200,
                       "the fuzz registry does not answer a version route");
    static const std::string scratch = dir;  // left on exit, not on a finding (the registry is evidence)
    std::atexit([] { std::filesystem::remove_all(scratch); });
  }

  static std::string Scratch() {
    const std::string dir = std::filesystem::temp_directory_path().string() + "/ucmoh-fuzz-serve-" +
                            std::to_string(getpid());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/tokens") << "write a-write-token-the-fuzzer-cannot-guess-0123456789\n";
    return dir;
  }

  static PluginSet Plugins() {
    auto loaded = LoadPlugins(std::string(UCMOH_SOURCE_DIR) + "/plugins.json");
    UCMOH_FUZZ_CHECK(loaded.ok(), "the project's plugins do not load (build them first)");
    return std::move(*loaded);
  }

  // Versions 1 and 2 (tensorcore.h1688, then tensorcore.s1688: a lineage with
  // a parent, evaluation rows and rehearsal keys), alias `stable` on 1: what
  // the version, evaluation, artifact and page routes answer from. A small
  // network and one epoch: seconds, once per process.
  static std::string Populated(const std::string& db, const PluginSet& plugins) {
    auto store = registry::RegistryStore::Open(db, registry::OpenMode::kCreate);
    UCMOH_FUZZ_CHECK(store.ok(), "cannot create the fuzz registry");
    const std::string records = std::string(UCMOH_SOURCE_DIR) + "/data/tensorcore/nvidia-h100-80gb-hbm3.jsonl.gz";
    UCMOH_FUZZ_CHECK(registry::AddRecordsFiles(**store, plugins, {records}).ok(), "cannot store the H100 records");
    registry::AddIntrinsicOptions o;
    o.step.network.hidden = 8;
    o.step.network.heads = 2;
    o.step.training.epochs = 1;
    o.step.rehearsal_programs = 16;
    for (const char* name : {"tensorcore.h1688", "tensorcore.s1688"})
      UCMOH_FUZZ_CHECK(registry::AddIntrinsic(**store, plugins, name, o).ok(), "add-intrinsic failed on the fuzz registry");
    UCMOH_FUZZ_CHECK((*store)->SetAlias("stable", 1).ok(), "cannot set the fuzz registry's alias");
    return db;
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

Server* fuzz_server = nullptr;  // lives as long as the process

}  // namespace

// The registry is trained here, once, not under the first input's timeout.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz_server = new Server();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ServeOptions options;
  options.max_upload_bytes = 1 << 20;  // as large as a fuzz input gets
  auto parsed = ParseRequestBytes(fuzz::Bytes(data, size), options);
  if (auto* refused = std::get_if<HttpResponse>(&parsed)) {
    UCMOH_FUZZ_CHECK(refused->status >= 400 && refused->status < 500, "a parse error is not a 4xx");
    CheckRefusalAnswer(*refused);
    return 0;
  }
  const HttpRequest& request = std::get<ParsedRequest>(parsed).request;
  const HttpResponse response = fuzz_server->router.Handle(request);
  CheckRefusalAnswer(response);
  const bool read = request.method == "GET" || request.method == "HEAD";
  UCMOH_FUZZ_CHECK(read || response.status >= 400, "a write was accepted without the token");
  return 0;
}
