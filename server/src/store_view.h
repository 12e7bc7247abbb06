// The server's read view of the registry: a read-only RocksDB handle that is
// reopened once it is older than the refresh interval, so versions the writer
// commits appear without a restart. Requests in flight keep the handle they
// started with (shared_ptr), so a reopen never pulls it from under them.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "ucmoh/registry/registry_store.h"

namespace ucmoh::server {

class StoreView {
 public:
  StoreView(std::string db_path, std::chrono::milliseconds refresh);

  // The current handle, reopened first when stale.
  Expected<std::shared_ptr<const registry::RegistryStore>> Current();
  // After a read that failed (the writer compacted away a file the old
  // handle still pointed at): the next Current() reopens.
  void Invalidate();

 private:
  const std::string db_path_;
  const std::chrono::milliseconds refresh_;
  std::mutex mutex_;
  std::shared_ptr<const registry::RegistryStore> store_;
  std::chrono::steady_clock::time_point opened_at_;
};

}  // namespace ucmoh::server
