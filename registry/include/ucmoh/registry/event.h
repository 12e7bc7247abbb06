// One entry of the append-only event log.
#pragma once

#include <cstdint>
#include <string>

namespace ucmoh::registry {

struct Event {
  uint64_t sequence = 0;  // strictly increasing; the key
  int64_t at = 0;         // unix seconds
  std::string kind;       // "create", "commit_version", "add_records", "alias", ...
  std::string detail;     // free text for humans
};

}  // namespace ucmoh::registry
