// Records: key "<intrinsic>\0<program key>", value the record as one JSON
// line (core's records_io format, so there is one serialization of records).
// Since schema 2 the metadata family keeps a count per intrinsic, written in
// the same batch as the records.
#include <map>
#include <set>

#include "keys.h"
#include "rocks_status.h"
#include "store_impl.h"
#include "ucmoh/records_io.h"

namespace ucmoh::registry {

Expected<int64_t> ReadRecordCounter(const RegistryStore::Impl* impl, const std::string& intrinsic) {
  auto v = impl->Get(kMetadata, keys::RecordCountKey(intrinsic));
  if (!v.ok()) return v.status();
  if (!v->has_value()) return int64_t{0};
  try {
    return static_cast<int64_t>(std::stoll(**v));
  } catch (const std::exception&) {
    return Status::Corruption("record counter of " + intrinsic + " is '" + **v + "'");
  }
}

Expected<int64_t> ScanRecordCount(const RegistryStore::Impl* impl, const std::string& intrinsic) {
  int64_t n = 0;
  UCMOH_RETURN_IF_ERROR(impl->ForEach(kRecords, keys::RecordPrefix(intrinsic),
                                      [&](const auto&, const auto&) { return ++n, true; }));
  return n;
}

namespace {

Status CheckRecord(const Record& r) {
  if (r.intrinsic.empty()) return Status::InvalidArgument("record without an intrinsic");
  if (r.intrinsic.find('\0') != std::string::npos)
    return Status::InvalidArgument("intrinsic name contains a NUL byte");
  return Status::Ok();
}

}  // namespace

Expected<AddRecordsResult> RegistryStore::AddRecords(const std::vector<Record>& records) {
  UCMOH_RETURN_IF_ERROR(impl_->RequireWritable("add records"));
  for (const Record& r : records) UCMOH_RETURN_IF_ERROR(CheckRecord(r));
  if (records.empty()) return AddRecordsResult{};
  std::lock_guard<std::mutex> lock(impl_->write_mu);

  rocksdb::WriteBatch batch;
  AddRecordsResult result;
  std::set<std::string> seen;                 // keys added earlier in this call
  std::map<std::string, int64_t> new_counts;  // intrinsic -> records added
  for (const Record& r : records) {
    const std::string key = keys::RecordKey(r);
    bool present = seen.count(key) > 0;
    if (!present) {
      auto v = impl_->Get(kRecords, key);
      if (!v.ok()) return v.status();
      present = v->has_value();
    }
    seen.insert(key);
    batch.Put(impl_->cf(kRecords), key, RecordToJsonLine(r));
    if (present) {
      ++result.replaced;
    } else {
      ++result.added;
      ++new_counts[r.intrinsic];
    }
  }
  for (const auto& [intrinsic, added] : new_counts) {
    auto before = ReadRecordCounter(impl_.get(), intrinsic);
    if (!before.ok()) return before.status();
    batch.Put(impl_->cf(kMetadata), keys::RecordCountKey(intrinsic),
              std::to_string(*before + added));
  }
  AddEventToBatch(impl_.get(), &batch, "add_records",
                  std::to_string(result.added) + " added, " + std::to_string(result.replaced) +
                      " replaced");
  UCMOH_RETURN_IF_ERROR(impl_->Write(&batch, "add records"));
  return result;
}

Expected<int64_t> RegistryStore::CountRecords(const std::string& intrinsic) const {
  // A read-only open of a schema-1 registry has no counters: count by scanning.
  if (impl_->schema_version < 2) return ScanRecordCount(impl_.get(), intrinsic);
  return ReadRecordCounter(impl_.get(), intrinsic);
}

Expected<std::vector<Record>> RegistryStore::ReadRecords(const std::string& intrinsic) const {
  std::vector<Record> out;
  Status bad;
  UCMOH_RETURN_IF_ERROR(impl_->ForEach(
      kRecords, keys::RecordPrefix(intrinsic), [&](const std::string& key, const std::string& v) {
        auto r = RecordFromJsonLine(v);
        if (!r.ok()) {
          bad = Status::Corruption("record " + key.substr(key.find('\0') + 1) + " of " +
                                   intrinsic + ": " + r.status().message());
          return false;
        }
        out.push_back(std::move(*r));
        return true;
      }));
  if (!bad.ok()) return bad;
  return out;
}

Expected<std::vector<std::string>> RegistryStore::RecordIntrinsics() const {
  std::vector<std::string> out;
  std::unique_ptr<rocksdb::Iterator> it(
      impl_->db->NewIterator(rocksdb::ReadOptions(), impl_->cf(kRecords)));
  // Skip from one intrinsic to the next: "\x01" sorts right after the "\0"
  // that ends every key prefix of the previous intrinsic.
  for (it->SeekToFirst(); it->Valid(); it->Seek(out.back() + "\x01")) {
    out.push_back(keys::IntrinsicOfRecordKey(it->key().ToString()));
  }
  UCMOH_RETURN_IF_ERROR(FromRocks(it->status(), "scan records"));
  return out;
}

}  // namespace ucmoh::registry
