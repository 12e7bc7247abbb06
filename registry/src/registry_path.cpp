#include "ucmoh/registry/registry_path.h"

#include <cstdlib>

namespace ucmoh::registry {

std::string ResolveRegistryPath(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  const char* env = std::getenv(kRegistryEnvVar);
  if (env != nullptr && *env != '\0') return env;
  return kDefaultRegistryPath;
}

}  // namespace ucmoh::registry
