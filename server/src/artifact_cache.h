// What a compiler pulls, built once per version: `registry pull`'s folder
// (model.pt, manifest.json, weights.bin, forgetting/) under the cache
// directory, with an index of every file's size and sha256. Versions never
// change once committed, so an entry is never rebuilt.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ucmoh/registry/registry_store.h"

namespace ucmoh::server {

struct ArtifactFile {
  std::string path;  // relative to the version's folder, '/'-separated
  uint64_t size = 0;
  std::string sha256;
};

struct Artifact {
  int64_t version = 0;
  std::string dir;
  std::vector<ArtifactFile> files;
  std::string index_json;  // {"version": N, "files": [{"path","size","sha256"}]}

  const ArtifactFile* Find(const std::string& path) const;
};

class ArtifactCache {
 public:
  explicit ArtifactCache(std::string root) : root_(std::move(root)) {}

  Expected<std::shared_ptr<const Artifact>> Get(const registry::RegistryStore& store, int64_t version);

 private:
  Expected<std::shared_ptr<const Artifact>> Build(const registry::RegistryStore& store, int64_t version);

  const std::string root_;
  std::mutex mutex_;  // held while building: one export at a time
  std::map<int64_t, std::shared_ptr<const Artifact>> built_;
};

}  // namespace ucmoh::server
