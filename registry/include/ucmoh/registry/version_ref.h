// Parsing of the ways a user names a version: "ucmoh@3", "ucmoh@latest",
// "ucmoh@stable", "3", "latest", "stable".
#pragma once

#include <cstdint>
#include <string>

#include "ucmoh/status.h"

namespace ucmoh::registry {

struct VersionRef {
  std::string model = "ucmoh";
  int64_t number = 0;   // > 0 when the ref names a number
  std::string alias;    // non-empty when the ref names an alias
};

Expected<VersionRef> ParseVersionRef(const std::string& text);

// Alias names: letters, digits, '.', '_', '-', not all digits (that would read
// as a version number), at most 64 characters.
Status CheckAliasName(const std::string& name);

}  // namespace ucmoh::registry
