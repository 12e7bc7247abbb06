// `registry pull http://HOST:PORT/REF -o DIR` (ucmoh/server/remote_pull.h):
// the index, every file checked, then one move into DIR.
#include "ucmoh/server/remote_pull.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "http_client.h"
#include "ucmoh/file_bytes.h"
#include "ucmoh/sha256.h"

namespace ucmoh::server {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kIndexLimit = 1 << 20;
constexpr uint64_t kFileLimit = 4ull << 30;

struct RemoteFile {
  std::string path, sha256;
  uint64_t size = 0;
};

// A listed path must stay inside DIR: relative, no dot segments.
bool IsSafeRelativePath(const std::string& p) {
  if (p.empty() || p[0] == '/' || p.find('\\') != std::string::npos) return false;
  for (const auto& part : fs::path(p))
    if (part == ".." || part == "." || part.empty()) return false;
  return true;
}

Status ReplyStatus(const HttpReply& reply, const std::string& what) {
  if (reply.status == 200) return Status::Ok();
  auto doc = nlohmann::json::parse(reply.body, nullptr, false);
  const std::string message = doc.is_object() && doc.contains("error") && doc["error"].is_string()
                                  ? doc["error"].get<std::string>() : reply.body.substr(0, 200);
  const std::string text = what + ": HTTP " + std::to_string(reply.status) + ": " + message;
  return reply.status == 404 ? Status::NotFound(text) : Status::IOError(text);
}

// GET /api/versions/REF/files -> the version and its files.
Expected<std::pair<int64_t, std::vector<RemoteFile>>> FetchIndex(const HttpUrl& server, const std::string& ref) {
  const std::string path = "/api/versions/" + ref + "/files";
  auto reply = HttpGet(server, path, kIndexLimit);
  if (!reply.ok()) return reply.status();
  UCMOH_RETURN_IF_ERROR(ReplyStatus(*reply, path));
  const std::string bad = path + ": the server's file index is malformed";
  auto doc = nlohmann::json::parse(reply->body, nullptr, false);
  if (!doc.is_object() || !doc.contains("version") || !doc["version"].is_number_integer() ||
      !doc.contains("files") || !doc["files"].is_array())
    return Status::Corruption(bad);
  std::vector<RemoteFile> files;
  for (const auto& f : doc["files"]) {
    if (!f.is_object() || !f.contains("path") || !f["path"].is_string() || !f.contains("sha256") ||
        !f["sha256"].is_string() || !f.contains("size") || !f["size"].is_number_unsigned())
      return Status::Corruption(bad);
    RemoteFile file{f["path"].get<std::string>(), f["sha256"].get<std::string>(), f["size"].get<uint64_t>()};
    if (!IsSafeRelativePath(file.path)) return Status::Corruption(bad + " (path '" + file.path + "')");
    files.push_back(std::move(file));
  }
  return std::make_pair(doc["version"].get<int64_t>(), std::move(files));
}

Status FetchFile(const HttpUrl& server, int64_t version, const RemoteFile& file, const fs::path& into) {
  const std::string path = "/artifacts/" + std::to_string(version) + "/" + file.path;
  auto reply = HttpGet(server, path, std::min(file.size, kFileLimit) + 1);
  if (!reply.ok()) return reply.status();
  UCMOH_RETURN_IF_ERROR(ReplyStatus(*reply, path));
  if (reply->body.size() != file.size || Sha256Hex(reply->body) != file.sha256)
    return Status::Corruption(path + ": the download does not match the size and sha256 the server listed");
  std::error_code ec;
  fs::create_directories((into / file.path).parent_path(), ec);
  if (ec) return Status::IOError((into / file.path).parent_path().string() + ": " + ec.message());
  return WriteFileAtomically((into / file.path).string(), reply->body);
}

// Moves the complete download into DIR: a rename of the folder when DIR is
// absent or empty, else one rename per file.
Status MoveInto(const fs::path& partial, const fs::path& dir, const std::vector<RemoteFile>& files) {
  std::error_code ec;
  if (fs::is_directory(dir, ec) && fs::is_empty(dir, ec)) fs::remove(dir, ec);
  if (!fs::exists(dir, ec)) {
    fs::rename(partial, dir, ec);
    return ec ? Status::IOError(dir.string() + ": " + ec.message()) : Status::Ok();
  }
  for (const auto& f : files) {
    fs::create_directories((dir / f.path).parent_path(), ec);
    if (!ec) fs::rename(partial / f.path, dir / f.path, ec);
    if (ec) return Status::IOError((dir / f.path).string() + ": " + ec.message());
  }
  fs::remove_all(partial, ec);
  return Status::Ok();
}

}  // namespace

bool IsRemoteReference(const std::string& ref) {
  return ref.rfind("http://", 0) == 0 || ref.rfind("https://", 0) == 0;
}

Expected<RemotePullResult> PullFromServer(const std::string& url, const std::string& dir) {
  auto server = ParseHttpUrl(url);
  if (!server.ok()) return server.status();
  const std::string ref = server->path.substr(1);
  if (ref.empty() || ref.find('/') != std::string::npos)
    return Status::InvalidArgument("'" + url + "': expected http://HOST:PORT/REF, e.g. http://host:8080/ucmoh@stable");
  auto index = FetchIndex(*server, ref);
  if (!index.ok()) return index.status();
  const fs::path target = fs::absolute(dir);
  const fs::path partial = target.parent_path() / ("." + target.filename().string() + ".partial-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(partial, ec);
  fs::create_directories(partial, ec);
  if (ec) return Status::IOError(partial.string() + ": " + ec.message());
  RemotePullResult result;
  result.version = index->first;
  Status s;
  for (const auto& f : index->second) {
    if (s = FetchFile(*server, result.version, f, partial); !s.ok()) break;
    ++result.files;
    result.bytes += f.size;
    if (f.path == "model.pt") result.model_sha256 = f.sha256;
  }
  if (s.ok()) s = MoveInto(partial, target, index->second);
  if (!s.ok()) {
    fs::remove_all(partial, ec);
    return s;
  }
  result.model_path = (target / "model.pt").string();
  result.manifest_path = (target / "manifest.json").string();
  return result;
}

namespace {

std::string CacheRoot() {
  if (const char* dir = std::getenv("UCMOH_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/ucmoh";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/ucmoh";
  return (fs::temp_directory_path() / "ucmoh-cache").string();
}

// A folder name from free text: letters, digits, '.', '-', '@' kept, the rest '_'.
std::string FolderName(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '@') c = '_';
  return out;
}

}  // namespace

Expected<CachedPull> PullToCache(const std::string& server_url, const std::string& ref) {
  auto server = ParseHttpUrl(server_url);
  if (!server.ok()) return server.status();
  if (server->path != "/")
    return Status::InvalidArgument("'" + server_url + "': give the server as http://HOST:PORT and the version as the ref");
  CachedPull out;
  out.dir = CacheRoot() + "/http/" + FolderName(server->host + "_" + server->port) + "/" + FolderName(ref);
  auto pulled = PullFromServer(std::string(server->tls ? "https://" : "http://") + server->host + ":" + server->port +
                               "/" + ref, out.dir);
  if (!pulled.ok()) return pulled.status();
  out.pull = *pulled;
  return out;
}

}  // namespace ucmoh::server
