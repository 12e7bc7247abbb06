// The schema version in the metadata family: initialization of a new
// registry, refusal of one written by a newer tool, and the upgrade path for
// older ones.
//
// History (docs/registry.md, "Schema versions"):
//   1  the column-family layout of docs/registry.md, without record counters.
//   2  adds metadata "record_count/<intrinsic>" counters, kept in the same
//      batch as the records, so CountRecords does not scan.
//   3  records carry the hardware they ran on (feature schema 2). Nothing can
//      supply it for stored records, so a registry holding records without it
//      is refused, with the way out, rather than upgraded.
#include <string>

#include "keys.h"
#include "store_impl.h"
#include "ucmoh/records_io.h"

namespace ucmoh::registry {
namespace {

Expected<bool> AllFamiliesEmpty(const RegistryStore::Impl* impl) {
  for (int i = 0; i < kNumCfs; ++i) {
    bool any = false;
    UCMOH_RETURN_IF_ERROR(impl->ForEach(static_cast<Cf>(i), "", [&](const auto&, const auto&) {
      any = true;
      return false;
    }));
    if (any) return false;
  }
  return true;
}

Status Initialize(RegistryStore::Impl* impl) {
  rocksdb::WriteBatch batch;
  batch.Put(impl->cf(kMetadata), keys::kSchemaVersion,
            std::to_string(RegistryStore::kSchemaVersion));
  batch.Put(impl->cf(kMetadata), keys::kCreatedAt, std::to_string(NowSeconds()));
  batch.Put(impl->cf(kMetadata), keys::kCreatedBy, ToolVersion(impl->options));
  AddEventToBatch(impl, &batch, "create",
                  "schema " + std::to_string(RegistryStore::kSchemaVersion));
  UCMOH_RETURN_IF_ERROR(impl->Write(&batch, "initialize registry " + impl->path));
  impl->schema_version = RegistryStore::kSchemaVersion;
  return Status::Ok();
}

// 1 -> 2: count the records of every intrinsic into metadata counters.
Status UpgradeFrom1(RegistryStore::Impl* impl, rocksdb::WriteBatch* batch) {
  std::string current;
  int64_t count = 0;
  auto emit = [&] {
    if (!current.empty())
      batch->Put(impl->cf(kMetadata), keys::RecordCountKey(current), std::to_string(count));
  };
  UCMOH_RETURN_IF_ERROR(impl->ForEach(kRecords, "", [&](const std::string& key, const auto&) {
    const std::string intrinsic = keys::IntrinsicOfRecordKey(key);
    if (intrinsic != current) {
      emit();
      current = intrinsic;
      count = 0;
    }
    ++count;
    return true;
  }));
  emit();
  return Status::Ok();
}

// 2 -> 3: only a registry whose records all name their hardware moves on.
Status UpgradeFrom2(RegistryStore::Impl* impl) {
  Status refused = Status::Ok();
  UCMOH_RETURN_IF_ERROR(impl->ForEach(kRecords, "", [&](const auto&, const std::string& value) {
    auto record = RecordFromJsonLine(value);
    if (record.ok() || record.status().message().find("missing 'hardware'") == std::string::npos) return true;
    refused = Status::Unsupported("registry " + impl->path +
                                  " holds records without their hardware (written before schema 3); "
                                  "create a new registry and add the migrated records "
                                  "(docs/records.md, 'Migration')");
    return false;
  }));
  return refused;
}

// Each step upgrades from version `from` to from + 1 in one batch together
// with the new schema number and an event, so a crash mid-upgrade leaves the
// old version, which the next open upgrades again.
Status Upgrade(RegistryStore::Impl* impl, int from) {
  for (int v = from; v < RegistryStore::kSchemaVersion; ++v) {
    rocksdb::WriteBatch batch;
    if (v == 1) UCMOH_RETURN_IF_ERROR(UpgradeFrom1(impl, &batch));
    if (v == 2) UCMOH_RETURN_IF_ERROR(UpgradeFrom2(impl));
    batch.Put(impl->cf(kMetadata), keys::kSchemaVersion, std::to_string(v + 1));
    AddEventToBatch(impl, &batch, "schema_upgrade",
                    std::to_string(v) + " -> " + std::to_string(v + 1));
    UCMOH_RETURN_IF_ERROR(impl->Write(&batch, "upgrade schema of " + impl->path));
    impl->schema_version = v + 1;
  }
  return Status::Ok();
}

Status MissingSchema(RegistryStore::Impl* impl) {
  auto empty = AllFamiliesEmpty(impl);
  if (!empty.ok()) return empty.status();
  if (*empty && !impl->read_only) return Initialize(impl);  // new, or creation was interrupted
  if (*empty)
    return Status::NotFound("registry " + impl->path +
                            " was never initialized; open it for writing once");
  return Status::Corruption("registry " + impl->path +
                            " holds data but no schema version: not a UCMoH registry, or damaged");
}

}  // namespace

Status CheckSchema(RegistryStore::Impl* impl, bool /*fresh*/) {
  auto stored = impl->Get(kMetadata, keys::kSchemaVersion);
  if (!stored.ok()) return stored.status();
  if (!stored->has_value()) return MissingSchema(impl);

  int version = 0;
  try {
    version = std::stoi(**stored);
  } catch (const std::exception&) {
    return Status::Corruption("registry " + impl->path + ": unreadable schema version '" +
                              **stored + "'");
  }
  const std::string tool = ToolVersion(impl->options);
  const int current = RegistryStore::kSchemaVersion;
  if (version > current)
    return Status::Unsupported("registry " + impl->path + " has schema version " +
                               std::to_string(version) + ", newer than schema version " +
                               std::to_string(current) + " that this tool (" + tool +
                               ") writes; use a newer tool");
  if (version < RegistryStore::kOldestReadableSchema)
    return Status::Unsupported("registry " + impl->path + " has schema version " +
                               std::to_string(version) + ", older than the oldest this tool (" +
                               tool + ") reads (" +
                               std::to_string(RegistryStore::kOldestReadableSchema) +
                               "); export it with an older tool");
  impl->schema_version = version;
  // Readers read an older schema as it is (see CountRecords); a writer brings
  // it up to date before it writes anything in the new layout.
  if (version < current && !impl->read_only) return Upgrade(impl, version);
  return Status::Ok();
}

}  // namespace ucmoh::registry
