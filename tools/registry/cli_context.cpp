#include "cli_context.h"

#include <iostream>
#include <memory>

namespace ucmoh::cli {

Expected<const PluginSet*> Plugins(const GlobalOptions& options) {
  static std::unique_ptr<PluginSet> loaded;
  if (loaded) return loaded.get();
  const std::string path =
      options.plugins_manifest.empty() ? DefaultPluginManifestPath() : options.plugins_manifest;
  auto set = LoadPlugins(path);
  if (!set.ok()) return set.status();
  loaded = std::make_unique<PluginSet>(std::move(*set));
  return loaded.get();
}

int Fail(const Status& status) {
  std::string message = status.message();
  for (char& c : message)
    if (c == '\n') c = ' ';  // one line, always
  std::cerr << "error: " << message << std::endl;
  return 1;
}

}  // namespace ucmoh::cli
