// `registry serve` and `registry pull http://...` end to end (issue 17): a
// real registry built by the CLI from CUTLASS rows, the real server binary on
// a free loopback port, real sockets. Covers the JSON API against the CLI's
// own --json, a remote pull against a local one, the refusals (404, 400 for
// traversal, 405, 413, 431, malformed), ETag/304, a version committed while
// serving, many clients at once during a commit, a download that does not
// verify, and SIGKILL mid-request. Skips only where ../shared/data is absent.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "child_process.h"
#include "command_runner.h"
#include "http_client.h"
#include "shared_data.h"
#include "ucmoh/file_bytes.h"
#include "ucmoh/registry/registry_store.h"
#include "ucmoh/server/remote_pull.h"
#include "ucmoh/ucmoh.h"

namespace fs = std::filesystem;

namespace {

using ucmoh::registry::testing::ChildProcess;
using ucmoh::server::HttpGet;
using ucmoh::server::HttpUrl;

std::string Dir() {
  static const std::string d = ucmoh::testing::ScratchDir("serve_test");
  return d;
}

std::string Db() { return Dir() + "/r.db"; }

ucmoh::testing::CommandResult Registry(const std::string& args) {
  return ucmoh::testing::RunCommand(std::string(UCMOH_REGISTRY_BIN) + " --plugins " + UCMOH_SOURCE_DIR +
                                    "/plugins.json --db " + Db() + " " + args);
}

std::string CutlassSubset(int rows) { return ucmoh::testing::WriteCutlassSubset(rows, Dir() + "/subset.csv"); }

// Sends `bytes` on a fresh connection and returns everything the server
// answers until it closes.
std::string RawExchange(int port, const std::string& bytes) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "";
  }
  ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  ::shutdown(fd, SHUT_WR);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

// One request with an optional bearer token and body; the raw answer.
std::string Request(int port, const std::string& method, const std::string& path, const std::string& body,
                    const std::string& token) {
  std::string head = method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  if (!token.empty()) head += "Authorization: Bearer " + token + "\r\n";
  return RawExchange(port, head + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
}

nlohmann::json BodyOf(const std::string& answer) {
  const size_t at = answer.find("\r\n\r\n");
  return at == std::string::npos ? nlohmann::json() : nlohmann::json::parse(answer.substr(at + 4), nullptr, false);
}

// A connection from `source` (a loopback address: 127.0.0.1, 127.0.0.2, ...)
// that sends `bytes` and keeps the socket open; -1 when it cannot connect.
int OpenFrom(const char* source, int port, const std::string& bytes) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, source, &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return -1;
  }
  if (!bytes.empty()) ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  return fd;
}

// What the server sends on `fd` until it closes it, waiting at most
// `seconds`; "<open>" appended when it was still open then.
std::string ReadUntilClosed(int fd, int seconds) {
  timeval tv{seconds, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) { out.append(buf, static_cast<size_t>(n)); continue; }
    if (n < 0) out += "<open>";
    return out;
  }
}

const char kWriteToken[] = "write-token-0123456789abcdef";
const char kReadToken[] = "read-token-0123456789abcdef";

int StatusOf(const std::string& answer) {
  return answer.size() > 12 && answer.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(answer.substr(9, 3)) : -1;
}

class RegistryServe : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!ucmoh::testing::HasSharedData()) return;
    ASSERT_EQ(Registry("init").rc, 0);
    auto r = Registry("records import cutlass " + CutlassSubset(366));
    ASSERT_EQ(r.rc, 0) << r.out;
    r = Registry("add-intrinsic tensorcore.i8816 --epochs 2 -q");
    ASSERT_EQ(r.rc, 0) << r.out;
    ASSERT_EQ(Registry("alias set stable ucmoh@1").rc, 0);
    std::ofstream(Dir() + "/tokens") << "# scope token\nwrite " << kWriteToken << "\nread " << kReadToken << "\n";
  }

  void SetUp() override {
    UCMOH_SKIP_WITHOUT_SHARED_DATA();
    server_ = StartServer({"--refresh-ms", "100", "--cache", Dir() + "/cache", "--tokens", Dir() + "/tokens"},
                          "http://", &port_);
    ASSERT_NE(port_, 0);
    url_ = {"127.0.0.1", std::to_string(port_), "/"};
  }

  // `registry serve` on a free loopback port with `flags`; its port, read from
  // the line it prints once listening at `scheme`127.0.0.1:PORT/.
  static std::unique_ptr<ChildProcess> StartServer(const std::vector<std::string>& flags, const std::string& scheme,
                                                   int* port) {
    std::vector<std::string> argv = {UCMOH_REGISTRY_BIN, "--plugins", std::string(UCMOH_SOURCE_DIR) + "/plugins.json",
                                     "--db", Db(), "serve", "--listen", "127.0.0.1:0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto server = std::make_unique<ChildProcess>(argv);
    const std::string line = server->ReadLine(30000);
    const size_t at = line.find(scheme + "127.0.0.1:");
    EXPECT_NE(at, std::string::npos) << "no listening line from the server: '" << line << "'";
    *port = at == std::string::npos ? 0 : std::stoi(line.substr(at + scheme.size() + 10));
    return server;
  }

  nlohmann::json GetJson(const std::string& path, int want_status = 200) {
    auto reply = HttpGet(url_, path, 1 << 24);
    EXPECT_TRUE(reply.ok()) << reply.status().message();
    if (!reply.ok()) return nullptr;
    EXPECT_EQ(reply->status, want_status) << path << ": " << reply->body;
    return nlohmann::json::parse(reply->body, nullptr, false);
  }

  std::string Base() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }

  std::unique_ptr<ChildProcess> server_;
  int port_ = 0;
  HttpUrl url_;
};

// /api/versions pages as /api/events does: from a version number, at most limit.
TEST_F(RegistryServe, VersionsArePaged) {
  const nlohmann::json all = GetJson("/api/versions");
  ASSERT_TRUE(all.is_array());
  ASSERT_GE(all.size(), 1u);
  const int64_t last = all.back()["version"];
  EXPECT_EQ(GetJson("/api/versions?limit=1"), nlohmann::json::array({all.front()}));
  EXPECT_EQ(GetJson("/api/versions?from=" + std::to_string(last)), nlohmann::json::array({all.back()}));
  EXPECT_EQ(GetJson("/api/versions?from=" + std::to_string(last + 1)), nlohmann::json::array());
  EXPECT_EQ(GetJson("/api/versions?limit=0"), nlohmann::json::array());
  EXPECT_EQ(GetJson("/api/versions?limit=x", 400)["error"], "query parameter 'limit' must be a non-negative integer, got 'x'");
}

TEST_F(RegistryServe, JsonApiIsTheCliJson) {
  auto cli = Registry("versions --json");
  ASSERT_EQ(cli.rc, 0) << cli.out;
  EXPECT_EQ(GetJson("/api/versions"), nlohmann::json::parse(cli.out));
  cli = Registry("eval ucmoh@stable --json");
  ASSERT_EQ(cli.rc, 0) << cli.out;
  EXPECT_EQ(GetJson("/api/versions/ucmoh@stable/evaluation"), nlohmann::json::parse(cli.out));
  cli = Registry("show 1");
  EXPECT_EQ(GetJson("/api/versions/1"), nlohmann::json::parse(cli.out));
  cli = Registry("intrinsics --json");
  auto intrinsics = GetJson("/api/intrinsics");
  EXPECT_EQ(intrinsics, nlohmann::json::parse(cli.out));
  bool learned = false;
  for (const auto& i : intrinsics)
    learned |= i["intrinsic"] == "tensorcore.i8816" && i["learned_in_version"] == 1 && i["records"] > 100;
  EXPECT_TRUE(learned) << intrinsics.dump();
  EXPECT_GE(GetJson("/api/plugins")["plugins"].size(), 3u);
  bool stable = false;
  for (const auto& a : GetJson("/api/aliases")) stable |= a["name"] == "stable" && a["version"] == 1;
  EXPECT_TRUE(stable);
  EXPECT_FALSE(GetJson("/api/events?from=0&limit=2").empty());
  EXPECT_EQ(GetJson("/api/events?limit=2").size(), 2u);
}

TEST_F(RegistryServe, RemotePullMatchesTheLocalPullAndVerifies) {
  const std::string local = Dir() + "/local", remote = Dir() + "/remote";
  ASSERT_EQ(Registry("pull ucmoh@stable -o " + local).rc, 0);
  auto r = Registry("pull " + Base() + "ucmoh@stable -o " + remote);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("each verified"), std::string::npos) << r.out;
  for (const char* file : {"weights.bin", "forgetting/state.json", "forgetting/rehearsal.jsonl"})
    EXPECT_EQ(*ucmoh::ReadFileBytes(local + "/" + file), *ucmoh::ReadFileBytes(remote + "/" + file)) << file;
  auto manifest = nlohmann::json::parse(*ucmoh::ReadFileBytes(remote + "/manifest.json"));
  EXPECT_EQ(manifest["registry_version"], 1);
  EXPECT_EQ(manifest["weights_sha256"],
            nlohmann::json::parse(*ucmoh::ReadFileBytes(local + "/manifest.json"))["weights_sha256"]);
  // Pulling again over an existing folder replaces its files.
  r = Registry("pull " + Base() + "ucmoh@1 -o " + remote);
  EXPECT_EQ(r.rc, 0) << r.out;
  // A ref the server does not know: a one-line error, no folder.
  r = Registry("pull " + Base() + "ucmoh@99 -o " + Dir() + "/none");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("HTTP 404"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(Dir() + "/none"));
}

TEST_F(RegistryServe, RefusesWhatItShouldByStatus) {
  EXPECT_EQ(GetJson("/api/versions/ucmoh@99", 404)["error"].is_string(), true);
  EXPECT_EQ(GetJson("/nope", 404)["error"].is_string(), true);
  EXPECT_EQ(GetJson("/api/events?from=x", 400)["error"].is_string(), true);
  EXPECT_EQ(GetJson("/blobs/not-a-sha", 400)["error"].is_string(), true);
  EXPECT_EQ(GetJson("/artifacts/1/../../../etc/passwd", 400)["error"].is_string(), true);
  EXPECT_EQ(GetJson("/artifacts/1/%2e%2e/x", 400)["error"].is_string(), true);
  EXPECT_EQ(GetJson("/artifacts/1/secret.txt", 404)["error"].is_string(), true);
  EXPECT_EQ(StatusOf(RawExchange(port_, "PATCH /api/versions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")), 405);
  EXPECT_EQ(StatusOf(Request(port_, "POST", "/api/versions", "", kWriteToken)), 405);
  EXPECT_EQ(StatusOf(RawExchange(port_, "GET / HTTP/1.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n")), 431);
  EXPECT_EQ(StatusOf(RawExchange(port_, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n")), 413);
  EXPECT_EQ(StatusOf(RawExchange(port_, "NOT HTTP AT ALL\r\n\r\n")), 400);
  // A path that is not UTF-8 is quoted in the error as U+FFFD (the fuzz
  // target request_path found that it once ended the server).
  const std::string not_utf8 = RawExchange(port_, "GET /healt\xafz HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(StatusOf(not_utf8), 400) << not_utf8;
  EXPECT_NE(not_utf8.find("\xef\xbf\xbd"), std::string::npos) << not_utf8;
  // Still serving after all of that.
  EXPECT_EQ(GetJson("/healthz")["ok"], true);
}

TEST_F(RegistryServe, ArtifactsCarryTheirShaAsETag) {
  auto index = GetJson("/api/versions/ucmoh@stable/files");
  ASSERT_TRUE(index.is_object()) << index.dump();
  std::string sha;
  uint64_t size = 0;
  for (const auto& f : index["files"])
    if (f["path"] == "model.pt") sha = f["sha256"], size = f["size"];
  ASSERT_EQ(sha.size(), 64u);
  const std::string get = "GET /artifacts/1/model.pt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  const std::string full = RawExchange(port_, get + "\r\n");
  EXPECT_EQ(StatusOf(full), 200);
  EXPECT_NE(full.find("ETag: \"" + sha + "\""), std::string::npos);
  EXPECT_NE(full.find("Content-Length: " + std::to_string(size)), std::string::npos);
  EXPECT_EQ(full.size() - full.find("\r\n\r\n") - 4, size);
  EXPECT_EQ(StatusOf(RawExchange(port_, get + "If-None-Match: \"" + sha + "\"\r\n\r\n")), 304);
  const std::string head = RawExchange(port_, "HEAD /artifacts/1/model.pt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(StatusOf(head), 200);
  EXPECT_EQ(head.substr(head.find("\r\n\r\n") + 4), "");  // headers only
}

// The writer commits a version while 50 clients read and pull: every answer
// is whole, every pull verifies, and the new version appears.
TEST_F(RegistryServe, ManyClientsDuringACommitSeeOnlyWholeVersions) {
  const size_t before = GetJson("/api/versions").size();
  std::atomic<int> failures{0};
  std::atomic<bool> committing{true};
  std::thread writer([&] {
    auto r = Registry("add-intrinsic tensorcore.i16832 --epochs 1 -q");
    EXPECT_EQ(r.rc, 0) << r.out;
    committing = false;
  });
  std::vector<std::thread> clients;
  for (int c = 0; c < 50; ++c)
    clients.emplace_back([&, c] {
      for (int i = 0; i < 4 || (c < 2 && committing); ++i) {
        auto reply = HttpGet(url_, "/api/versions", 1 << 24);
        if (!reply.ok() || reply->status != 200 || !nlohmann::json::parse(reply->body, nullptr, false).is_array())
          ++failures;
      }
      if (c % 10 == 0) {
        auto pulled = ucmoh::server::PullFromServer(Base() + "ucmoh@latest", Dir() + "/many" + std::to_string(c));
        if (!pulled.ok()) ++failures;
      }
    });
  for (auto& t : clients) t.join();
  writer.join();
  EXPECT_EQ(failures.load(), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // > --refresh-ms
  EXPECT_EQ(GetJson("/api/versions").size(), before + 1);
  EXPECT_EQ(GetJson("/api/versions/ucmoh@latest")["version"], before + 1);
}

TEST_F(RegistryServe, WritesNeedAWriteToken) {
  const std::string alias = R"({"version": "ucmoh@1"})";
  std::string answer = Request(port_, "PUT", "/api/aliases/prod", alias, "");
  EXPECT_EQ(StatusOf(answer), 401);
  EXPECT_NE(answer.find("WWW-Authenticate: Bearer"), std::string::npos) << answer;
  EXPECT_EQ(StatusOf(Request(port_, "PUT", "/api/aliases/prod", alias, "not-a-known-token-at-all")), 401);
  EXPECT_EQ(StatusOf(Request(port_, "PUT", "/api/aliases/prod", alias, kReadToken)), 403);
  answer = Request(port_, "PUT", "/api/aliases/prod", alias, kWriteToken);
  ASSERT_EQ(StatusOf(answer), 200) << answer;
  auto show = Registry("versions --json");
  EXPECT_NE(show.out.find("\"prod\""), std::string::npos) << show.out;  // the CLI sees it: it is in RocksDB
  EXPECT_EQ(StatusOf(Request(port_, "PUT", "/api/aliases/prod", R"({"version": "ucmoh@99"})", kWriteToken)), 404);
  EXPECT_EQ(StatusOf(Request(port_, "PUT", "/api/aliases/prod", "{not json", kWriteToken)), 400);
  EXPECT_EQ(StatusOf(Request(port_, "DELETE", "/api/aliases/prod", "", kWriteToken)), 200);
  // A record its plugin cannot take: refused by line, nothing stored.
  const auto before = GetJson("/api/intrinsics");
  answer = Request(port_, "POST", "/api/records", "{\"target\":\"x86\"}\n", kWriteToken);
  EXPECT_EQ(StatusOf(answer), 400);
  EXPECT_NE(BodyOf(answer)["error"].get<std::string>().find("upload:1:"), std::string::npos) << answer;
  EXPECT_EQ(StatusOf(Request(port_, "POST", "/api/records", "\n", kWriteToken)), 400);
  EXPECT_EQ(GetJson("/api/intrinsics"), before);
  EXPECT_EQ(StatusOf(Request(port_, "POST", "/api/jobs", R"({"intrinsic": "x", "bogus": 1})", kWriteToken)), 400);
  EXPECT_EQ(StatusOf(Request(port_, "PATCH", "/api/versions", "", kWriteToken)), 405);
}

// Another process holds the write lock: a write gets 409 naming that, reads
// go on; once it lets go, the same write succeeds.
TEST_F(RegistryServe, AWriteWhileAnotherProcessWritesGets409) {
  ChildProcess holder({UCMOH_REGISTRY_HELPER, "hold", Db()});
  ASSERT_EQ(holder.ReadLine(20000), "ready");
  const std::string alias = R"({"version": 1})";
  std::string answer = Request(port_, "PUT", "/api/aliases/held", alias, kWriteToken);
  EXPECT_EQ(StatusOf(answer), 409) << answer;
  EXPECT_NE(answer.find("another process holds it"), std::string::npos) << answer;
  EXPECT_TRUE(GetJson("/api/versions").is_array());
  holder.CloseStdin();
  holder.Wait();
  EXPECT_EQ(StatusOf(Request(port_, "PUT", "/api/aliases/held", alias, kWriteToken)), 200);
}

// Records uploaded over HTTP, then add-intrinsic as a job polled to its end:
// a new version the read API and the CLI both see.
TEST_F(RegistryServe, UploadAndAddIntrinsicJobCommitAVersion) {
  const std::string csv = ucmoh::testing::WriteCutlassSubset(300, Dir() + "/fp16.csv",
                                                             "resnet50_cutlass_profiler_result_fp16_fp32_accum.csv");
  const std::string jsonl = Dir() + "/fp16.jsonl";
  ASSERT_EQ(Registry("import cutlass " + csv + " -o " + jsonl).rc, 0);
  const size_t versions = GetJson("/api/versions").size();
  std::string answer = Request(port_, "POST", "/api/records", *ucmoh::ReadFileBytes(jsonl), kWriteToken);
  ASSERT_EQ(StatusOf(answer), 200) << answer;
  EXPECT_EQ(BodyOf(answer)["read"], 300);
  answer = Request(port_, "POST", "/api/jobs", R"({"intrinsic": "tensorcore.s16816", "epochs": 2})", kWriteToken);
  ASSERT_EQ(StatusOf(answer), 202) << answer;
  const int64_t id = BodyOf(answer)["id"];
  nlohmann::json job;
  for (int i = 0; i < 600; ++i) {
    job = GetJson("/api/jobs/" + std::to_string(id));
    if (job["state"] == "done" || job["state"] == "failed") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(job["state"], "done") << job.dump();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(GetJson("/api/versions").size(), versions + 1);
  EXPECT_EQ(GetJson("/api/versions/ucmoh@latest")["version"], job["version"]);
  EXPECT_EQ(Registry("verify").rc, 0);
}

// The scores libucmoh gives for `records` through a model opened at
// (path, ref); empty (with a failure) when it cannot open or score.
std::vector<float> ScoreThroughCApi(const std::string& path, const std::string& ref, const std::string& records) {
  ucmoh_model* model = nullptr;
  const std::string plugins = std::string(UCMOH_SOURCE_DIR) + "/plugins.json";
  if (ucmoh_open_registry(path.c_str(), ref.c_str(), plugins.c_str(), &model) != UCMOH_OK) {
    ADD_FAILURE() << "open " << path << " " << ref << ": " << ucmoh_last_error();
    return {};
  }
  std::vector<float> scores(4096);
  size_t count = 0;
  const ucmoh_code code = ucmoh_score(model, UCMOH_FORMAT_RECORDS, records.data(), records.size(), scores.data(),
                                      scores.size(), &count);
  EXPECT_EQ(code, UCMOH_OK) << ucmoh_last_error();
  ucmoh_close(model);
  scores.resize(code == UCMOH_OK ? count : 0);
  return scores;
}

// A compiler opens "http://HOST:PORT" with a ref through the C API: the
// version is pulled into the cache, verified, and scores exactly as the same
// version opened from the registry directory.
TEST_F(RegistryServe, CApiOpensAServer) {
  const std::string records = Dir() + "/score.jsonl";
  ASSERT_EQ(Registry("import cutlass " + Dir() + "/subset.csv -o " + records).rc, 0);
  ::setenv("UCMOH_CACHE_DIR", (Dir() + "/client-cache").c_str(), 1);
  const std::string text = *ucmoh::ReadFileBytes(records);
  const auto local = ScoreThroughCApi(Db(), "ucmoh@stable", text);
  const auto remote = ScoreThroughCApi("http://127.0.0.1:" + std::to_string(port_), "ucmoh@stable", text);
  ASSERT_FALSE(local.empty());
  EXPECT_EQ(remote, local);
  EXPECT_TRUE(fs::exists(Dir() + "/client-cache/http/127.0.0.1_" + std::to_string(port_) + "/ucmoh@stable/weights.bin"));
  // A ref the server does not have: the server's 404, named.
  ucmoh_model* model = nullptr;
  EXPECT_EQ(ucmoh_open_registry(("http://127.0.0.1:" + std::to_string(port_)).c_str(), "ucmoh@99", nullptr, &model),
            UCMOH_NOT_FOUND);
  EXPECT_NE(std::string(ucmoh_last_error()).find("HTTP 404"), std::string::npos) << ucmoh_last_error();
}

// The same through the Python package (Debian's python3; left out of the
// sanitizer suite with the other Python tests: the interpreter is not built
// with ASan).
TEST_F(RegistryServe, PythonPackageOpensAServer) {
  const std::string py = "UCMOH_LIBRARY=" + std::string(UCMOH_LIBUCMOH) + " PYTHONPATH=" + UCMOH_SOURCE_DIR +
                         "/python /usr/bin/python3 -c \"import ucmoh; m = ucmoh.open('http://127.0.0.1:" +
                         std::to_string(port_) + "', 'ucmoh@stable', plugins='" + UCMOH_SOURCE_DIR +
                         "/plugins.json'); print(m.info['registry_version'], m.info['source'])\"";
  auto r = ucmoh::testing::RunCommand(py);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out, "1 pulled\n");
}

// What headless Chromium (Debian's, installed by tools/setup) renders for a
// page: the DOM after layout, and a screenshot's PNG width and height.
struct Rendered {
  std::string dom;
  uint32_t width = 0, height = 0;
};

Rendered RenderInChromium(const std::string& url, const std::string& png) {
  const std::string chromium = "chromium --headless --no-sandbox --disable-gpu --hide-scrollbars ";
  Rendered r;
  r.dom = ucmoh::testing::RunCommand("timeout 120 " + chromium + "--dump-dom '" + url + "' 2>/dev/null").out;
  ucmoh::testing::RunCommand("timeout 120 " + chromium + "--window-size=1100,800 --screenshot=" + png + " '" + url + "'");
  auto bytes = ucmoh::ReadFileBytes(png);
  if (bytes.ok() && bytes->size() > 24 && bytes->compare(1, 3, "PNG") == 0) {
    auto be32 = [&](size_t at) {
      return uint32_t(uint8_t((*bytes)[at])) << 24 | uint32_t(uint8_t((*bytes)[at + 1])) << 16 |
             uint32_t(uint8_t((*bytes)[at + 2])) << 8 | uint32_t(uint8_t((*bytes)[at + 3]));
    };
    r.width = be32(16);  // IHDR
    r.height = be32(20);
  }
  return r;
}

// Each page, as a browser shows it: the lineage graph, the R heatmap with the
// numbers the API gives, the plugins' intrinsics, the event log.
TEST_F(RegistryServe, PagesRenderInChromium) {
  ASSERT_EQ(ucmoh::testing::RunCommand("command -v chromium").rc, 0) << "chromium is missing: run tools/setup";
  Rendered index = RenderInChromium(Base(), Dir() + "/index.png");
  EXPECT_EQ(index.width, 1100u);
  EXPECT_EQ(index.height, 800u);
  EXPECT_NE(index.dom.find("aria-label=\"lineage\""), std::string::npos) << index.dom.substr(0, 2000);
  EXPECT_NE(index.dom.find("href=\"/versions/1\""), std::string::npos);
  EXPECT_NE(index.dom.find("@stable"), std::string::npos);

  Rendered version = RenderInChromium(Base() + "versions/ucmoh@stable", Dir() + "/version.png");
  EXPECT_EQ(version.width, 1100u);
  auto eval = GetJson("/api/versions/ucmoh@stable/evaluation");
  char pca[32];
  std::snprintf(pca, sizeof pca, "%.4f", eval["pca"][0][0].get<double>());
  EXPECT_NE(version.dom.find("aria-label=\"PCA matrix\""), std::string::npos) << version.dom.substr(0, 2000);
  EXPECT_NE(version.dom.find("aria-label=\"top-1 matrix\""), std::string::npos);
  EXPECT_NE(version.dom.find(std::string(">") + pca + "</text>"), std::string::npos) << pca;
  EXPECT_NE(version.dom.find("tensorcore.i8816"), std::string::npos);

  Rendered plugins = RenderInChromium(Base() + "plugins", Dir() + "/plugins.png");
  EXPECT_NE(plugins.dom.find("tensorcore.i16832"), std::string::npos);
  EXPECT_NE(plugins.dom.find("x86.avx512"), std::string::npos);
  Rendered events = RenderInChromium(Base() + "events", Dir() + "/events.png");
  EXPECT_NE(events.dom.find("commit_version"), std::string::npos) << events.dom.substr(0, 2000);
  // An unknown version is a 404 page, not a broken one.
  EXPECT_EQ(GetJson("/versions/ucmoh@99", 404)["error"].is_string(), true);
}

// With a certificate the server speaks HTTPS only: a pull that trusts the
// certificate ($UCMOH_CA_FILE) verifies and succeeds, one that does not is
// refused at the handshake and leaves nothing, plain HTTP gets no answer.
TEST_F(RegistryServe, ServesHttpsWithACertificate) {
  const std::string cert = Dir() + "/cert.pem", key = Dir() + "/key.pem";
  auto made = ucmoh::testing::RunCommand("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 "
                                         "-addext subjectAltName=IP:127.0.0.1 -keyout " + key + " -out " + cert);
  ASSERT_EQ(made.rc, 0) << made.out;
  int port = 0;
  auto tls_server = StartServer({"--tls-cert", cert, "--tls-key", key}, "https://", &port);
  ASSERT_NE(port, 0);
  const std::string url = "https://127.0.0.1:" + std::to_string(port) + "/ucmoh@stable";
  auto r = Registry("pull " + url + " -o " + Dir() + "/untrusted");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("certificate verify failed"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(Dir() + "/untrusted"));
  r = ucmoh::testing::RunCommand("UCMOH_CA_FILE=" + cert + " " + UCMOH_REGISTRY_BIN + " pull " + url + " -o " + Dir() +
                                 "/trusted");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(fs::exists(Dir() + "/trusted/weights.bin"));
  EXPECT_EQ(StatusOf(RawExchange(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")), -1);
  // A key that is not the certificate's: the server refuses to start, naming it.
  auto wrong = ucmoh::testing::RunCommand("openssl genrsa -out " + Dir() + "/other.pem 2048");
  ASSERT_EQ(wrong.rc, 0);
  r = Registry("serve --listen 127.0.0.1:0 --tls-cert " + cert + " --tls-key " + Dir() + "/other.pem");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("other.pem"), std::string::npos) << r.out;
}

// --private: every read needs a token (read or write scope); /healthz stays
// open for load balancers.
TEST_F(RegistryServe, PrivateReadsNeedAToken) {
  int port = 0;
  auto private_server = StartServer({"--private", "--tokens", Dir() + "/tokens"}, "http://", &port);
  ASSERT_NE(port, 0);
  EXPECT_EQ(StatusOf(Request(port, "GET", "/api/versions", "", "")), 401);
  EXPECT_EQ(StatusOf(Request(port, "GET", "/", "", "")), 401);
  EXPECT_EQ(StatusOf(Request(port, "GET", "/api/versions", "", "wrong-token-0123456789")), 401);
  EXPECT_EQ(StatusOf(Request(port, "GET", "/api/versions", "", kReadToken)), 200);
  EXPECT_EQ(StatusOf(Request(port, "GET", "/api/versions", "", kWriteToken)), 200);
  EXPECT_EQ(StatusOf(Request(port, "PUT", "/api/aliases/x", R"({"version": 1})", kReadToken)), 403);
  EXPECT_EQ(StatusOf(Request(port, "GET", "/healthz", "", "")), 200);
  auto r = Registry("serve --listen 127.0.0.1:0 --private");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("--private needs --tokens"), std::string::npos) << r.out;
}

// The server killed with SIGKILL while an add-intrinsic job trains: no
// version appears, nothing half-written, verify passes, and the CLI can
// write again (the job's lock died with the process).
TEST_F(RegistryServe, KilledDuringAJobCommitsNothing) {
  const auto before = nlohmann::json::parse(Registry("versions --json").out);
  std::string answer = Request(port_, "POST", "/api/jobs", R"({"intrinsic": "tensorcore.i16832", "epochs": 60, "relearn": true})",
                               kWriteToken);
  ASSERT_EQ(StatusOf(answer), 202) << answer;
  const int64_t id = BodyOf(answer)["id"];
  nlohmann::json job;
  for (int i = 0; i < 300; ++i) {
    job = GetJson("/api/jobs/" + std::to_string(id));
    if (job["state"] != "queued" && !job["progress"].get<std::string>().empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(job["state"], "running") << job.dump();
  server_->Kill(SIGKILL);
  server_->Wait();
  EXPECT_EQ(nlohmann::json::parse(Registry("versions --json").out), before);
  auto r = Registry("verify");
  EXPECT_EQ(r.rc, 0) << r.out;
  r = Registry("alias set after-kill ucmoh@1");
  EXPECT_EQ(r.rc, 0) << r.out;
}

// A download that does not match what the index lists leaves nothing: a
// one-connection fake server answers the index, then a damaged file.
TEST_F(RegistryServe, ADownloadThatDoesNotVerifyLeavesNothing) {
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  socklen_t len = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  const std::string index = R"({"version":1,"files":[{"path":"a.txt","size":5,"sha256":")" + std::string(64, '0') + R"("}]})";
  std::thread fake([&] {
    for (const std::string& body : {index, std::string("hello")}) {
      int fd = ::accept(listener, nullptr, nullptr);
      char buf[4096];
      (void)::recv(fd, buf, sizeof buf, 0);
      const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                                 "\r\nConnection: close\r\n\r\n" + body;
      ::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(fd);
    }
  });
  const std::string out = Dir() + "/damaged";
  auto pulled = ucmoh::server::PullFromServer("http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/x", out);
  fake.join();
  ::close(listener);
  ASSERT_FALSE(pulled.ok());
  EXPECT_NE(pulled.status().message().find("does not match the size and sha256"), std::string::npos)
      << pulled.status().message();
  EXPECT_FALSE(fs::exists(out));
  for (const auto& e : fs::directory_iterator(Dir()))
    EXPECT_EQ(e.path().filename().string().find(".damaged.partial"), std::string::npos) << e.path();
}

// SIGKILL while writes (alias PUTs) and downloads stream in: the kill must
// cut requests off (else the test proves nothing), every write the server
// acknowledged is in the registry afterwards, and the registry verifies.
TEST_F(RegistryServe, KilledMidRequestKeepsEveryAcknowledgedWrite) {
  std::atomic<bool> stop{false};
  std::atomic<int> cut{0};
  std::atomic<size_t> acknowledged_count{0};
  std::vector<std::string> acknowledged;  // the writer's; read after it joins
  std::thread writer([&] {
    for (int i = 0; !stop; ++i) {
      const std::string name = "kill-" + std::to_string(i);
      const int status = StatusOf(Request(port_, "PUT", "/api/aliases/" + name, R"({"version": 1})", kWriteToken));
      if (status == 200) {
        acknowledged.push_back(name);
        ++acknowledged_count;
      }
      if (status != 200) ++cut;
      if (status < 0) return;  // the server is gone
    }
  });
  std::thread reader([&] {
    while (!stop)
      if (!HttpGet(url_, "/artifacts/1/weights.bin", 1 << 26, 5).ok()) ++cut;
  });
  while (acknowledged_count < 5) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  server_->Kill(SIGKILL);
  server_->Wait();
  stop = true;
  writer.join();
  reader.join();
  EXPECT_GT(cut.load(), 0) << "the kill interrupted no request";
  auto r = Registry("verify");
  EXPECT_EQ(r.rc, 0) << r.out;
  auto store = ucmoh::registry::RegistryStore::Open(Db(), ucmoh::registry::OpenMode::kReadOnly);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto aliases = (*store)->ListAliases();
  ASSERT_TRUE(aliases.ok());
  std::set<std::string> kept;
  for (const auto& a : *aliases) kept.insert(a.name);
  for (const auto& name : acknowledged) EXPECT_TRUE(kept.count(name)) << "acknowledged alias " << name << " was lost";
}

}  // namespace

// Issue 40's attack: 300 connections that each send half a request line and
// wait. On the asynchronous server they cost no thread: /healthz from another
// client is answered at once, the attacker's address is held to its
// per-client limit (the rest get 503), and every half request is closed when
// its header deadline passes.
TEST_F(RegistryServe, SlowClientsCannotTakeTheServerDown) {
  int port = 0;
  auto server = StartServer({"--header-timeout", "2", "--max-connections-per-client", "256"}, "http://", &port);
  std::vector<int> slow;
  int refused = 0;
  for (int i = 0; i < 300; ++i) {
    const int fd = OpenFrom("127.0.0.2", port, "GET /api/vers");
    ASSERT_GE(fd, 0);
    slow.push_back(fd);
  }
  // The 257th and later from 127.0.0.2 are refused with the reason.
  for (size_t i = 256; i < slow.size(); ++i) {
    const std::string answer = ReadUntilClosed(slow[i], 10);
    refused += StatusOf(answer) == 503 && answer.find("too many connections from 127.0.0.2") != std::string::npos;
  }
  EXPECT_EQ(refused, 44);
  const std::string health = Request(port, "GET", "/healthz", "", "");
  EXPECT_EQ(StatusOf(health), 200) << health;
  // Each half request ends when its 2 s header deadline passes, unanswered.
  for (size_t i = 0; i < 256; ++i) EXPECT_EQ(ReadUntilClosed(slow[i], 15), "") << i;
  for (int fd : slow) ::close(fd);
  EXPECT_EQ(StatusOf(Request(port, "GET", "/healthz", "", "")), 200);
}

// A kept-alive connection that says nothing is closed after --idle-timeout; one
// that finishes its request in time is answered; one client's connections are
// bounded without touching another's.
TEST_F(RegistryServe, IdleAndGreedyClientsAreBounded) {
  int port = 0;
  auto server = StartServer({"--idle-timeout", "1", "--header-timeout", "5", "--max-connections-per-client", "3"},
                            "http://", &port);
  const int keep = OpenFrom("127.0.0.1", port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_GE(keep, 0);
  const std::string kept = ReadUntilClosed(keep, 15);  // answered, then closed after 1 s idle
  EXPECT_EQ(StatusOf(kept), 200) << kept;
  EXPECT_EQ(kept.find("<open>"), std::string::npos) << kept;
  ::close(keep);
  std::vector<int> held;
  for (int i = 0; i < 3; ++i) held.push_back(OpenFrom("127.0.0.3", port, "G"));
  const int fourth = OpenFrom("127.0.0.3", port, "");
  const std::string refused = ReadUntilClosed(fourth, 10);
  EXPECT_EQ(StatusOf(refused), 503) << refused;
  EXPECT_NE(refused.find("too many connections from 127.0.0.3 (3 open)"), std::string::npos) << refused;
  EXPECT_EQ(StatusOf(Request(port, "GET", "/healthz", "", "")), 200);  // 127.0.0.1 is not 127.0.0.3
  for (int fd : held) ::close(fd);
  ::close(fourth);
}

// A client that sends half of a records upload and hangs up leaves nothing:
// the body never completed, so no route ran and no record was stored.
TEST_F(RegistryServe, AnUploadCutOffMidBodyStoresNothing) {
  const std::string csv = ucmoh::testing::WriteCutlassSubset(200, Dir() + "/cut.csv",
                                                             "resnet50_cutlass_profiler_result.csv");
  const std::string jsonl = Dir() + "/cut.jsonl";
  ASSERT_EQ(Registry("import cutlass " + csv + " -o " + jsonl).rc, 0);
  const std::string body = *ucmoh::ReadFileBytes(jsonl);
  const auto before = Registry("intrinsics --json");
  ASSERT_EQ(before.rc, 0);
  const int fd = OpenFrom("127.0.0.1", port_,
                          "POST /api/records HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + std::string(kWriteToken) +
                              "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
                              body.substr(0, body.size() / 2));
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(StatusOf(Request(port_, "GET", "/healthz", "", "")), 200);
  EXPECT_EQ(Registry("intrinsics --json").out, before.out);  // no record was added
  // The same upload, whole, does add them.
  const std::string answer = Request(port_, "POST", "/api/records", body, kWriteToken);
  ASSERT_EQ(StatusOf(answer), 200) << answer;
  EXPECT_NE(Registry("intrinsics --json").out, before.out);
}

