// Verify (every blob against its sha256, every reference between families)
// and GarbageCollect (blobs no version or snapshot references).
#include <algorithm>
#include <map>
#include <set>

#include "keys.h"
#include "metadata_codec.h"
#include "rocks_status.h"
#include "store_impl.h"
#include "ucmoh/records_io.h"
#include "ucmoh/sha256.h"

namespace ucmoh::registry {
namespace {

using Problems = std::vector<std::string>;

// Checks blobs as they are referenced. The first pass scans the blob family;
// if the scan stops on a damaged blob file, references it did not reach are
// checked one by one, so each damaged blob is still named.
class BlobChecker {
 public:
  BlobChecker(const RegistryStore* store, const RegistryStore::Impl* impl, Problems* problems)
      : store_(store), impl_(impl), problems_(problems) {}

  void Scan() {
    Status s = impl_->ForEach(kBlobs, "", [&](const std::string& key, const std::string& value) {
      const std::string actual = Sha256Hex(value);
      if (actual != key)
        problems_->push_back("blob " + keys_Hex(key) + " fails its sha256 check (bytes hash to " +
                             actual + ")");
      else
        good_.insert(key);
      return true;
    });
    complete_ = s.ok();
    if (!s.ok()) problems_->push_back("blobs: " + s.message());
  }

  void Reference(const std::string& sha, const std::string& who) {
    if (good_.count(sha)) return;
    if (!reported_.insert(sha).second) return;
    if (complete_) {
      auto present = impl_->Get(kBlobs, sha);
      if (present.ok() && present->has_value()) return;  // damaged: reported by Scan
      problems_->push_back(who + " references missing blob " + sha);
      return;
    }
    auto bytes = store_->GetBlob(sha);
    if (bytes.ok()) return void(good_.insert(sha));
    problems_->push_back(who + ": " + bytes.status().message());
  }

 private:
  static std::string keys_Hex(const std::string& key) {
    return keys::IsSha256Hex(key) ? key : "with malformed key";
  }
  const RegistryStore* store_;
  const RegistryStore::Impl* impl_;
  Problems* problems_;
  std::set<std::string> good_;
  std::set<std::string> reported_;
  bool complete_ = false;
};

void CheckVersions(const std::vector<ModelVersion>& versions,
                   const std::vector<SnapshotEntry>& snapshots, BlobChecker* blobs,
                   Problems* problems) {
  std::set<int64_t> numbers;
  for (const auto& v : versions) numbers.insert(v.number);
  std::map<int64_t, std::multiset<std::string>> snapshot_shas;
  for (const auto& s : snapshots) snapshot_shas[s.version].insert(s.blob_sha256);
  for (const auto& v : versions) {
    const std::string who = "version " + std::to_string(v.number);
    if (v.parent != 0 && !numbers.count(v.parent))
      problems->push_back(who + " has missing parent " + std::to_string(v.parent));
    blobs->Reference(v.weights_sha256, who + " (weights)");
    for (const auto& sha : v.snapshot_sha256s) blobs->Reference(sha, who + " (snapshot)");
    const std::multiset<std::string> listed(v.snapshot_sha256s.begin(), v.snapshot_sha256s.end());
    if (listed != snapshot_shas[v.number])
      problems->push_back(who + ": its snapshot list does not match its snapshot entries");
  }
  for (const auto& s : snapshots) {
    const std::string who = "snapshot " + std::to_string(s.version) + "/" + s.name;
    if (!numbers.count(s.version)) problems->push_back(who + " belongs to a missing version");
    blobs->Reference(s.blob_sha256, who);
  }
}

bool IsSubset(const std::vector<std::string>& sorted_small, const std::vector<std::string>& sorted_big) {
  return std::includes(sorted_big.begin(), sorted_big.end(), sorted_small.begin(), sorted_small.end());
}

// No version trained on a task held out for it, and a pinned split only grows:
// a parent's train and held-out tasks stay where they were in every child.
void CheckHeldOutTasks(const std::vector<ModelVersion>& versions, Problems* problems) {
  std::map<int64_t, const ModelVersion*> by_number;
  for (const auto& v : versions) by_number[v.number] = &v;
  for (const auto& v : versions) {
    const std::string who = "version " + std::to_string(v.number);
    for (const auto& [intrinsic, tasks] : v.trained_tasks) {
      auto split = v.task_splits.find(intrinsic);
      if (split == v.task_splits.end()) continue;
      for (const auto& task : tasks)
        if (std::binary_search(split->second.held_out_tasks.begin(), split->second.held_out_tasks.end(), task))
          problems->push_back(who + " trained on task '" + task + "', which is held out for " + intrinsic);
    }
    auto parent = by_number.find(v.parent);
    if (parent == by_number.end()) continue;
    for (const auto& [intrinsic, old] : parent->second->task_splits) {
      auto now = v.task_splits.find(intrinsic);
      if (now == v.task_splits.end() || !IsSubset(old.held_out_tasks, now->second.held_out_tasks) ||
          !IsSubset(old.train_tasks, now->second.train_tasks))
        problems->push_back(who + " moved the held-out tasks of " + intrinsic + " pinned by version " +
                            std::to_string(v.parent));
    }
  }
}

template <class T>
std::vector<T> DecodeFamily(const RegistryStore::Impl* impl, Cf cf, Problems* problems) {
  std::vector<T> out;
  Status s = impl->ForEach(cf, "", [&](const std::string& key, const std::string& value) {
    T item;
    Status d = codec::Decode(value, &item);
    if (d.ok()) out.push_back(std::move(item));
    else problems->push_back(std::string(CfName(cf)) + ": " + d.message());
    return true;
  });
  if (!s.ok()) problems->push_back(s.message());
  return out;
}

void CheckRecords(const RegistryStore::Impl* impl, Problems* problems) {
  std::map<std::string, int64_t> counts;
  Status s = impl->ForEach(kRecords, "", [&](const std::string& key, const std::string& value) {
    auto r = RecordFromJsonLine(value);
    if (!r.ok()) problems->push_back("record " + key + ": " + r.status().message());
    else if (keys::RecordKey(*r) != key) problems->push_back("record stored under a wrong key");
    ++counts[keys::IntrinsicOfRecordKey(key)];
    return true;
  });
  if (!s.ok()) problems->push_back(s.message());
  if (impl->schema_version < 2) return;
  std::map<std::string, int64_t> counters;
  s = impl->ForEach(kMetadata, keys::kRecordCountPrefix, [&](const auto& key, const auto& value) {
    counters[key.substr(std::string(keys::kRecordCountPrefix).size())] = std::atoll(value.c_str());
    return true;
  });
  if (!s.ok()) problems->push_back(s.message());
  for (const auto& [intrinsic, n] : counters) counts.emplace(intrinsic, 0);  // counters without records
  for (const auto& [intrinsic, n] : counts)
    if (counters[intrinsic] != n)
      problems->push_back("record counter of " + intrinsic + " says " +
                          std::to_string(counters[intrinsic]) + ", there are " + std::to_string(n));
}

}  // namespace

Expected<std::vector<std::string>> RegistryStore::Verify() const {
  Problems problems;
  // RocksDB's own checksums over every SST file.
  rocksdb::Status rs = impl_->db->VerifyChecksum();
  if (!rs.ok()) problems.push_back("rocksdb checksums: " + rs.ToString());

  BlobChecker blobs(this, impl_.get(), &problems);
  blobs.Scan();
  const auto versions = DecodeFamily<ModelVersion>(impl_.get(), kVersions, &problems);
  const auto snapshots = DecodeFamily<SnapshotEntry>(impl_.get(), kSnapshots, &problems);
  CheckVersions(versions, snapshots, &blobs, &problems);
  CheckHeldOutTasks(versions, &problems);

  std::set<int64_t> numbers;
  for (const auto& v : versions) numbers.insert(v.number);
  for (const auto& a : DecodeFamily<AliasEntry>(impl_.get(), kAliases, &problems))
    if (!numbers.count(a.version))
      problems.push_back("alias " + a.name + " points to missing version " + std::to_string(a.version));
  for (const auto& e : DecodeFamily<IntrinsicEntry>(impl_.get(), kIntrinsics, &problems))
    if (e.learned_in_version != 0 && !numbers.count(e.learned_in_version))
      problems.push_back("intrinsic " + e.name + " was learned in missing version " +
                         std::to_string(e.learned_in_version));
  CheckRecords(impl_.get(), &problems);
  auto events = ListEvents();
  if (!events.ok()) problems.push_back("events: " + events.status().message());
  return problems;
}

Expected<GcResult> RegistryStore::GarbageCollect() {
  UCMOH_RETURN_IF_ERROR(impl_->RequireWritable("garbage-collect"));
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  Problems problems;
  std::set<std::string> live;
  for (const auto& v : DecodeFamily<ModelVersion>(impl_.get(), kVersions, &problems)) {
    live.insert(v.weights_sha256);
    live.insert(v.snapshot_sha256s.begin(), v.snapshot_sha256s.end());
  }
  for (const auto& s : DecodeFamily<SnapshotEntry>(impl_.get(), kSnapshots, &problems))
    live.insert(s.blob_sha256);
  // Deleting on an incomplete picture could drop a live blob: refuse instead.
  if (!problems.empty())
    return Status::Corruption("garbage-collect: " + problems.front() + "; run verify");

  GcResult result;
  rocksdb::WriteBatch batch;
  UCMOH_RETURN_IF_ERROR(impl_->ForEach(kBlobs, "", [&](const std::string& key, const std::string& value) {
    if (live.count(key)) return true;
    batch.Delete(impl_->cf(kBlobs), key);
    ++result.blobs_deleted;
    result.bytes_deleted += static_cast<int64_t>(value.size());
    return true;
  }));
  if (result.blobs_deleted == 0) return result;
  AddEventToBatch(impl_.get(), &batch, "gc",
                  std::to_string(result.blobs_deleted) + " blobs, " +
                      std::to_string(result.bytes_deleted) + " bytes");
  UCMOH_RETURN_IF_ERROR(impl_->Write(&batch, "garbage-collect"));
  return result;
}

}  // namespace ucmoh::registry
