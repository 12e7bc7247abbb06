// Where the registry lives: --db PATH, else $UCMOH_REGISTRY, else ./registry.db.
#pragma once

#include <string>

namespace ucmoh::registry {

inline constexpr const char* kDefaultRegistryPath = "./registry.db";
inline constexpr const char* kRegistryEnvVar = "UCMOH_REGISTRY";

// flag_value: the --db flag, empty when not given.
std::string ResolveRegistryPath(const std::string& flag_value);

}  // namespace ucmoh::registry
