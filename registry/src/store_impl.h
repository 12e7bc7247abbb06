// The private state of a RegistryStore and the small helpers every concept
// file (blobs, records, versions, ...) builds on.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "column_families.h"
#include "ucmoh/registry/registry_store.h"

namespace ucmoh::registry {

struct RegistryStore::Impl {
  std::string path;
  bool read_only = false;
  int schema_version = 0;
  StoreOptions options;
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> cfs;  // indexed by Cf; owned, freed in Close
  // Serializes read-modify-write operations (version numbers, event sequence,
  // record counters) between threads of this process; RocksDB's LOCK already
  // keeps other processes out.
  mutable std::mutex write_mu;
  uint64_t next_event_sequence = 1;

  ~Impl();
  void Close();

  rocksdb::ColumnFamilyHandle* cf(Cf which) const { return cfs[which]; }

  Status RequireWritable(const char* what) const;

  // Value under key, or nullopt when absent.
  Expected<std::optional<std::string>> Get(Cf which, const std::string& key) const;
  // Commits a batch with a synced WAL: when this returns ok, the batch
  // survives a crash; when the process dies before, none of it is visible.
  Status Write(rocksdb::WriteBatch* batch, const std::string& what);
  // Calls fn(key, value) for each key starting with prefix, in key order;
  // fn returns false to stop. Reports iterator errors (e.g. a bad blob file).
  Status ForEach(Cf which, const std::string& prefix,
                 const std::function<bool(const std::string&, const std::string&)>& fn) const;
};

std::string ToolVersion(const StoreOptions& options);
int64_t NowSeconds();

// Appends an event to a batch that the caller commits (so the event is part
// of the same atomic write as what it describes).
void AddEventToBatch(RegistryStore::Impl* impl, rocksdb::WriteBatch* batch, const std::string& kind,
                     const std::string& detail);
// Finds the next event sequence after the last stored one.
Status LoadEventSequence(RegistryStore::Impl* impl);

// Checks the stored schema version; upgrades an older one when writable.
Status CheckSchema(RegistryStore::Impl* impl, bool fresh);

// Record counter helpers shared by records.cpp, schema.cpp and verify.cpp.
Expected<int64_t> ReadRecordCounter(const RegistryStore::Impl* impl, const std::string& intrinsic);
Expected<int64_t> ScanRecordCount(const RegistryStore::Impl* impl, const std::string& intrinsic);

// Whether a blob exists, without reading (verifying) its bytes.
Expected<bool> BlobExists(const RegistryStore::Impl* impl, const std::string& sha256);

}  // namespace ucmoh::registry
