// The column families of a registry and the options each one gets.
#pragma once

#include <string>
#include <vector>

#include <rocksdb/db.h>

#include "ucmoh/registry/registry_store.h"

namespace ucmoh::registry {

// Index into Impl::cfs. kDefault exists because RocksDB requires it; the
// registry keeps nothing there.
enum Cf : int {
  kDefault = 0,
  kMetadata,
  kIntrinsics,
  kRecords,
  kVersions,
  kBlobs,
  kSnapshots,
  kAliases,
  kEvents,
  kNumCfs,
};

const char* CfName(Cf cf);

// Descriptors for every column family, in Cf order. Blobs live in RocksDB
// blob files (integrated BlobDB) so that large weights do not bloat the LSM.
std::vector<rocksdb::ColumnFamilyDescriptor> ColumnFamilyDescriptors(const StoreOptions& options);

rocksdb::DBOptions MakeDbOptions(bool create);

}  // namespace ucmoh::registry
