// An intrinsic the registry knows: who supplies it and when the model learned it.
#pragma once

#include <cstdint>
#include <string>

namespace ucmoh::registry {

struct IntrinsicEntry {
  std::string name;            // "<target>.<name>", e.g. "x86.vnni"; the key
  std::string target;          // plugin target name, e.g. "x86"
  std::string plugin;          // plugin name from plugins.json
  std::string plugin_sha256;   // sha256 of the plugin library that supplied it
  int64_t learned_in_version = 0;  // 0 while known but not yet learned
  int64_t learned_at = 0;          // unix seconds; 0 while not learned
};

}  // namespace ucmoh::registry
