// Translation of RocksDB statuses into ucmoh::Status, with the lock failure
// turned into a clear kBusy.
#pragma once

#include <string>

#include <rocksdb/status.h>

#include "ucmoh/status.h"

namespace ucmoh::registry {

// context: what was being done ("open /x/registry.db", "read version 3").
Status FromRocks(const rocksdb::Status& s, const std::string& context);

// True when an Open failed because another DB instance holds the LOCK file.
bool IsLockHeld(const rocksdb::Status& s);

}  // namespace ucmoh::registry
