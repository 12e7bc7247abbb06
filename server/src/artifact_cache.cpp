// Pulled folders per version, built once (artifact_cache.h).
#include "artifact_cache.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "ucmoh/registry/registry_ops.h"
#include "ucmoh/sha256.h"

namespace ucmoh::server {

namespace fs = std::filesystem;

namespace {

// Every regular file under `dir`, sorted by path, with its size and sha256.
Expected<std::vector<ArtifactFile>> IndexFolder(const std::string& dir) {
  std::vector<ArtifactFile> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    auto sha = Sha256OfFile(it->path().string());
    if (!sha.ok()) return sha.status();
    files.push_back({fs::relative(it->path(), dir).generic_string(), it->file_size(), *sha});
  }
  if (ec) return Status::IOError(dir + ": " + ec.message());
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return files;
}

std::string IndexJson(int64_t version, const std::vector<ArtifactFile>& files) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& f : files) list.push_back({{"path", f.path}, {"size", f.size}, {"sha256", f.sha256}});
  return nlohmann::json{{"version", version}, {"files", list}}.dump(-1, ' ', false,
                                                                     nlohmann::json::error_handler_t::replace);
}

}  // namespace

const ArtifactFile* Artifact::Find(const std::string& path) const {
  for (const auto& f : files)
    if (f.path == path) return &f;
  return nullptr;
}

Expected<std::shared_ptr<const Artifact>> ArtifactCache::Get(const registry::RegistryStore& store,
                                                             int64_t version) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = built_.find(version); it != built_.end()) return it->second;
  auto built = Build(store, version);
  if (built.ok()) built_[version] = *built;
  return built;
}

// Exports into vN.partial, then renames to vN: a server killed mid-export
// leaves no folder that looks finished.
Expected<std::shared_ptr<const Artifact>> ArtifactCache::Build(const registry::RegistryStore& store,
                                                               int64_t version) {
  const fs::path final_dir = fs::path(root_) / ("v" + std::to_string(version));
  const fs::path partial = fs::path(root_) / ("v" + std::to_string(version) + ".partial");
  std::error_code ec;
  fs::remove_all(partial, ec);
  fs::remove_all(final_dir, ec);
  auto pulled = registry::PullVersion(store, "ucmoh@" + std::to_string(version), partial.string());
  if (!pulled.ok()) return pulled.status();
  fs::rename(partial, final_dir, ec);
  if (ec) return Status::IOError(final_dir.string() + ": " + ec.message());
  auto files = IndexFolder(final_dir.string());
  if (!files.ok()) return files.status();
  auto artifact = std::make_shared<Artifact>();
  artifact->version = version;
  artifact->dir = final_dir.string();
  artifact->files = std::move(*files);
  artifact->index_json = IndexJson(version, artifact->files);
  return std::shared_ptr<const Artifact>(std::move(artifact));
}

}  // namespace ucmoh::server
