// Shared by the registry tests and their helper executable: sample entities,
// temporary directories and a raw RocksDB handle for damaging a registry on
// purpose.
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include <rocksdb/db.h>

#include "ucmoh/record.h"
#include "ucmoh/registry/registry_store.h"

namespace ucmoh::registry::testing {

// A fresh directory under the temp dir, removed by the destructor.
class TempDir {
 public:
  explicit TempDir(const std::string& tag);
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

Record SampleRecord(const std::string& intrinsic, int variant);

// Deterministic pseudo-random bytes.
std::string RandomBytes(std::mt19937_64* rng, size_t size);

// A commit with weights, `snapshots` snapshots and one learned intrinsic.
VersionCommit SampleCommit(std::mt19937_64* rng, int snapshots, size_t weight_bytes,
                           const std::string& intrinsic);

// Opens the registry's RocksDB directly (every column family), bypassing the
// store, so that tests can write what the store never would.
class RawDb {
 public:
  explicit RawDb(const std::string& path);
  ~RawDb();
  bool ok() const { return db_ != nullptr; }
  const std::string& error() const { return error_; }
  rocksdb::ColumnFamilyHandle* cf(const std::string& name) const;
  rocksdb::DB* db() const { return db_.get(); }
  rocksdb::Status Put(const std::string& cf_name, const std::string& key, const std::string& value);
  rocksdb::Status Delete(const std::string& cf_name, const std::string& key);
  std::string Get(const std::string& cf_name, const std::string& key);

 private:
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<std::string> names_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::string error_;
};

}  // namespace ucmoh::registry::testing
