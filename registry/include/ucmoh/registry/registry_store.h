// The registry store: an embedded RocksDB database with one column family per
// kind of entity (docs/registry.md has the layout, keys and value formats).
//
// One process writes at a time (RocksDB's LOCK file); any number read
// (kReadOnly opens take no lock). Every operation that creates a version
// commits all its keys in one WriteBatch with a synced WAL, so a crash leaves
// either the old state or the new one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ucmoh/record.h"
#include "ucmoh/registry/event.h"
#include "ucmoh/registry/intrinsic_entry.h"
#include "ucmoh/registry/model_version.h"
#include "ucmoh/registry/version_commit.h"
#include "ucmoh/status.h"

namespace ucmoh::registry {

enum class OpenMode {
  kReadOnly,   // no lock; sees the state at open time; fails if absent
  kReadWrite,  // takes the lock; fails if absent; upgrades an older schema
  kCreate,     // kReadWrite, creating an empty registry when absent
};

struct StoreOptions {
  // Memtable size per column family. Small values make RocksDB flush (and
  // write blob files) often: the crash tests use that to kill during flushes.
  uint64_t write_buffer_bytes = 64ull << 20;
  // Written into every version and event; defaults to the project version.
  std::string tool_version;
};

struct AddRecordsResult {
  int64_t added = 0;     // program keys new to the registry
  int64_t replaced = 0;  // program keys that were present (value overwritten)
};

struct GcResult {
  int64_t blobs_deleted = 0;
  int64_t bytes_deleted = 0;
};

class RegistryStore {
 public:
  // Current on-disk schema, and the oldest this tool can still read/upgrade.
  static constexpr int kSchemaVersion = 3;  // 3: records carry their hardware (feature schema 2)
  static constexpr int kOldestReadableSchema = 1;

  static Expected<std::unique_ptr<RegistryStore>> Open(const std::string& path, OpenMode mode,
                                                       const StoreOptions& options = {});
  ~RegistryStore();
  RegistryStore(const RegistryStore&) = delete;
  RegistryStore& operator=(const RegistryStore&) = delete;

  const std::string& path() const;
  bool read_only() const;
  int schema_version() const;  // as stored (a read-only open does not upgrade)

  // --- blobs: content addressed by lowercase-hex sha256, verified on read.
  Expected<std::string> PutBlob(const std::string& bytes);  // dedups; returns the sha256
  Expected<std::string> GetBlob(const std::string& sha256) const;
  Expected<bool> HasBlob(const std::string& sha256) const;

  // --- records: keyed by intrinsic + program key; one WriteBatch per call.
  Expected<AddRecordsResult> AddRecords(const std::vector<Record>& records);
  Expected<int64_t> CountRecords(const std::string& intrinsic) const;
  Expected<std::vector<Record>> ReadRecords(const std::string& intrinsic) const;
  Expected<std::vector<std::string>> RecordIntrinsics() const;  // intrinsics with records

  // --- intrinsics.
  Status PutIntrinsic(const IntrinsicEntry& entry);
  Expected<IntrinsicEntry> GetIntrinsic(const std::string& name) const;
  Expected<std::vector<IntrinsicEntry>> ListIntrinsics() const;

  // --- versions.
  // Writes the version, its new blobs, snapshot entries, learned intrinsics,
  // the "latest" alias and an event in one synced WriteBatch. Returns the
  // version as stored (number, shas and tool version filled).
  Expected<ModelVersion> CommitVersion(const VersionCommit& commit);
  Expected<ModelVersion> GetVersion(int64_t number) const;
  Expected<std::vector<ModelVersion>> ListVersions() const;  // ascending numbers
  // At most `limit` versions numbered `from` or more, ascending: one seek and
  // `limit` reads whatever the registry holds (the server's paged list).
  Expected<std::vector<ModelVersion>> ListVersions(int64_t from, size_t limit) const;
  Expected<std::vector<SnapshotEntry>> ListSnapshots(int64_t version) const;

  // --- aliases. "latest" is moved only by commits.
  Status SetAlias(const std::string& name, int64_t version);
  Status DeleteAlias(const std::string& name);
  Expected<std::vector<AliasEntry>> ListAliases() const;
  // "ucmoh@3", "ucmoh@latest", "ucmoh@stable", "3", "latest" -> version number.
  Expected<int64_t> ResolveRef(const std::string& ref) const;

  // --- event log (append-only).
  Status AppendEvent(const std::string& kind, const std::string& detail);
  Expected<std::vector<Event>> ListEvents(uint64_t from_sequence = 0, size_t limit = SIZE_MAX) const;

  // --- maintenance.
  // Checks every blob against its sha256 and every reference (versions ->
  // blobs and parents, snapshots -> versions and blobs, aliases -> versions,
  // intrinsics -> versions, record counters). Returns the problems found;
  // empty means clean. A non-ok result means the check itself could not run.
  Expected<std::vector<std::string>> Verify() const;
  // Deletes blobs that no version or snapshot references.
  Expected<GcResult> GarbageCollect();
  // Flushes memtables into SST and blob files (Close does it too).
  Status Flush();

  struct Impl;

 private:
  explicit RegistryStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ucmoh::registry
