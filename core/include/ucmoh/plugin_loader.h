// Loads the plugins listed in a plugins.json manifest. Every way a manifest or
// a library can be wrong becomes one Status line that names the file and the fix.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ucmoh/plugin.h"
#include "ucmoh/status.h"

namespace ucmoh {

struct PluginManifestEntry {
  std::string name;           // must equal the plugin's Target().name
  std::string library;        // path; relative paths resolve against the manifest's folder
  int abi = 0;                // expected kPluginAbiVersion
  std::string sha256;         // optional pin of the library file, lowercase hex
};

// Parses plugins.json: {"plugins": [{"name", "library", "abi", "sha256"?}, ...]}.
// Malformed JSON reports line and column; unknown keys are errors.
Expected<std::vector<PluginManifestEntry>> ParsePluginManifest(const std::string& path);

struct LoadedPlugin {
  PluginManifestEntry entry;
  std::string library_path;   // resolved absolute path
  std::string library_sha256;
  int abi = 0;                // the plugin's ABI major and minor (ucmoh/plugin_c.h)
  int abi_minor = 0;
  TargetInfo target;
  std::vector<IntrinsicInfo> intrinsics;
  // Owns the shared library: the library stays mapped while this lives.
  std::shared_ptr<TargetPlugin> plugin;
};

class PluginSet {
 public:
  const std::vector<LoadedPlugin>& plugins() const { return plugins_; }
  // The plugin that supplies an intrinsic or a target, or nullptr.
  const LoadedPlugin* ForIntrinsic(const std::string& intrinsic) const;
  const LoadedPlugin* ForTarget(const std::string& target) const;
  const IntrinsicInfo* Intrinsic(const std::string& intrinsic) const;
  // Every intrinsic of every plugin, in manifest order.
  std::vector<IntrinsicInfo> AllIntrinsics() const;

  // Plugin objects linked into this process, with no library or C table
  // between: what benchmarks weigh the C ABI against (docs/benchmarks.md).
  static Expected<PluginSet> InProcess(std::vector<std::shared_ptr<TargetPlugin>> plugins);

 private:
  friend Expected<PluginSet> LoadPlugins(const std::string& manifest_path);
  // Adds one plugin; refuses intrinsics claimed twice or misnamed.
  Status Add(const std::string& manifest_path, LoadedPlugin loaded);
  std::vector<LoadedPlugin> plugins_;
  std::map<std::string, size_t> by_intrinsic_;
};

// Loads every plugin of the manifest, or fails with the first problem.
Expected<PluginSet> LoadPlugins(const std::string& manifest_path);

// Where plugins.json is: $UCMOH_PLUGINS, else ./plugins.json, else an
// installed one (<exe dir>/../share/ucmoh/plugins.json), else the source
// tree's above the running executable's build tree (../../plugins.json).
std::string DefaultPluginManifestPath();

}  // namespace ucmoh
