#include "column_families.h"

namespace ucmoh::registry {

const char* CfName(Cf cf) {
  static const char* const kNames[kNumCfs] = {
      "default", "metadata", "intrinsics", "records",
      "versions", "blobs", "snapshots", "aliases", "events"};
  return kNames[cf];
}

static rocksdb::ColumnFamilyOptions BlobCfOptions(rocksdb::ColumnFamilyOptions base) {
  base.enable_blob_files = true;
  base.min_blob_size = 0;  // every value is a blob: this family holds only blobs
  // Blobs are already compressed tensors or small; compressing costs time for
  // nothing, and uncompressed blob files are easy to inspect.
  base.blob_compression_type = rocksdb::kNoCompression;
  // Reclaim the space of garbage-collected blobs during compaction.
  base.enable_blob_garbage_collection = true;
  return base;
}

std::vector<rocksdb::ColumnFamilyDescriptor> ColumnFamilyDescriptors(const StoreOptions& options) {
  rocksdb::ColumnFamilyOptions base;
  base.write_buffer_size = options.write_buffer_bytes;
  std::vector<rocksdb::ColumnFamilyDescriptor> out;
  for (int i = 0; i < kNumCfs; ++i) {
    const Cf cf = static_cast<Cf>(i);
    out.emplace_back(CfName(cf), cf == kBlobs ? BlobCfOptions(base) : base);
  }
  return out;
}

rocksdb::DBOptions MakeDbOptions(bool create) {
  rocksdb::DBOptions o;
  o.create_if_missing = create;
  // A registry from this tool always has every family; create missing ones so
  // an older layout that lacked one still opens (schema upgrades fill them).
  o.create_missing_column_families = true;
  o.paranoid_checks = true;
  o.max_background_jobs = 2;
  // A CLI opens and closes the store often: keep the info LOG files few.
  o.keep_log_file_num = 3;
  return o;
}

}  // namespace ucmoh::registry
