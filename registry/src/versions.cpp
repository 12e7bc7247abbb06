// Model versions: key the 8-byte big-endian number, value a cereal
// ModelVersion; and CommitVersion, the one atomic write that creates one.
#include <cstdint>
#include <set>

#include "keys.h"
#include "metadata_codec.h"
#include "rocks_status.h"
#include "store_impl.h"
#include "ucmoh/sha256.h"

namespace ucmoh::registry {
namespace {

// The highest version number stored, 0 when there is none.
Expected<int64_t> LastVersionNumber(const RegistryStore::Impl* impl) {
  std::unique_ptr<rocksdb::Iterator> it(
      impl->db->NewIterator(rocksdb::ReadOptions(), impl->cf(kVersions)));
  it->SeekToLast();
  UCMOH_RETURN_IF_ERROR(FromRocks(it->status(), "scan versions"));
  if (!it->Valid()) return int64_t{0};
  auto n = keys::ParseBigEndian64(it->key().ToString());
  if (!n.ok()) return n.status();
  return static_cast<int64_t>(*n);
}

// Collects the blobs of one commit, writing each distinct new one once.
class BlobBatch {
 public:
  BlobBatch(const RegistryStore::Impl* impl, rocksdb::WriteBatch* batch)
      : impl_(impl), batch_(batch) {}
  Expected<std::string> Add(const std::string& bytes) {
    std::string sha = Sha256Hex(bytes);
    if (!added_.insert(sha).second) return sha;
    auto exists = BlobExists(impl_, sha);
    if (!exists.ok()) return exists.status();
    if (!*exists) batch_->Put(impl_->cf(kBlobs), sha, bytes);
    return sha;
  }

 private:
  const RegistryStore::Impl* impl_;
  rocksdb::WriteBatch* batch_;
  std::set<std::string> added_;
};

Status CheckCommit(const VersionCommit& c) {
  if (c.weights.empty()) return Status::InvalidArgument("a version needs its weights");
  std::set<std::string> names;
  for (const SnapshotData& s : c.snapshots) {
    if (s.name.empty()) return Status::InvalidArgument("a snapshot needs a name");
    if (!names.insert(s.name).second)
      return Status::InvalidArgument("two snapshots named " + s.name);
  }
  for (const IntrinsicEntry& e : c.learned)
    if (e.name.empty()) return Status::InvalidArgument("a learned intrinsic needs a name");
  return Status::Ok();
}

// Picks the number and checks the parent against what is stored.
Status NumberVersion(const RegistryStore::Impl* impl, ModelVersion* v) {
  auto last = LastVersionNumber(impl);
  if (!last.ok()) return last.status();
  if (v->number == 0) v->number = *last + 1;
  if (v->number <= *last)
    return Status::AlreadyExists("version " + std::to_string(v->number) +
                                 " is not after the last version " + std::to_string(*last));
  if (v->parent < 0 || v->parent >= v->number)
    return Status::InvalidArgument("parent " + std::to_string(v->parent) + " of version " +
                                   std::to_string(v->number) + " is not an earlier version");
  if (v->parent != 0) {
    auto p = impl->Get(kVersions, keys::VersionKey(v->parent));
    if (!p.ok()) return p.status();
    if (!p->has_value())
      return Status::NotFound("parent version " + std::to_string(v->parent) + " does not exist");
  }
  return Status::Ok();
}

std::string DescribeCommit(const ModelVersion& v) {
  std::string s = v.name + "@" + std::to_string(v.number) + " parent " +
                  std::to_string(v.parent) + " weights " + v.weights_sha256 + " intrinsics";
  for (const auto& i : v.intrinsics) s += " " + i;
  return s;
}

}  // namespace

Expected<ModelVersion> RegistryStore::CommitVersion(const VersionCommit& commit) {
  UCMOH_RETURN_IF_ERROR(impl_->RequireWritable("commit version"));
  UCMOH_RETURN_IF_ERROR(CheckCommit(commit));
  std::lock_guard<std::mutex> lock(impl_->write_mu);

  ModelVersion v = commit.version;
  if (v.name.empty()) v.name = "ucmoh";
  UCMOH_RETURN_IF_ERROR(NumberVersion(impl_.get(), &v));
  if (v.created_at == 0) v.created_at = NowSeconds();
  v.tool_version = ToolVersion(impl_->options);

  rocksdb::WriteBatch batch;
  BlobBatch blobs(impl_.get(), &batch);
  auto weights = blobs.Add(commit.weights);
  if (!weights.ok()) return weights.status();
  v.weights_sha256 = *weights;
  v.snapshot_sha256s.clear();
  for (const SnapshotData& s : commit.snapshots) {
    auto sha = blobs.Add(s.bytes);
    if (!sha.ok()) return sha.status();
    v.snapshot_sha256s.push_back(*sha);
    const SnapshotEntry entry{v.number, s.name, s.intrinsics, s.method, *sha};
    batch.Put(impl_->cf(kSnapshots), keys::SnapshotKey(v.number, s.name), codec::Encode(entry));
  }
  for (IntrinsicEntry e : commit.learned) {
    if (e.learned_in_version == 0) e.learned_in_version = v.number;
    if (e.learned_at == 0) e.learned_at = v.created_at;
    batch.Put(impl_->cf(kIntrinsics), e.name, codec::Encode(e));
  }
  batch.Put(impl_->cf(kVersions), keys::VersionKey(v.number), codec::Encode(v));
  if (commit.move_latest) {
    const AliasEntry latest{"latest", v.number, v.created_at};
    batch.Put(impl_->cf(kAliases), latest.name, codec::Encode(latest));
  }
  AddEventToBatch(impl_.get(), &batch, "commit_version", DescribeCommit(v));
  UCMOH_RETURN_IF_ERROR(impl_->Write(&batch, "commit version " + std::to_string(v.number)));
  return v;
}

Expected<ModelVersion> RegistryStore::GetVersion(int64_t number) const {
  auto bytes = impl_->Get(kVersions, keys::VersionKey(number));
  if (!bytes.ok()) return bytes.status();
  if (!bytes->has_value())
    return Status::NotFound("no version " + std::to_string(number) + " in " + impl_->path);
  ModelVersion v;
  UCMOH_RETURN_IF_ERROR(codec::Decode(**bytes, &v).WithContext("version " + std::to_string(number)));
  return v;
}

Expected<std::vector<ModelVersion>> RegistryStore::ListVersions() const { return ListVersions(0, SIZE_MAX); }

Expected<std::vector<ModelVersion>> RegistryStore::ListVersions(int64_t from, size_t limit) const {
  std::vector<ModelVersion> out;
  std::unique_ptr<rocksdb::Iterator> it(impl_->db->NewIterator(rocksdb::ReadOptions(), impl_->cf(kVersions)));
  for (it->Seek(keys::VersionKey(std::max<int64_t>(from, 0))); it->Valid() && out.size() < limit; it->Next()) {
    ModelVersion v;
    UCMOH_RETURN_IF_ERROR(codec::Decode(it->value().ToString(), &v).WithContext("versions"));
    out.push_back(std::move(v));
  }
  if (!it->status().ok()) return Status::IOError("scan versions: " + it->status().ToString());
  return out;
}

Expected<std::vector<SnapshotEntry>> RegistryStore::ListSnapshots(int64_t version) const {
  std::vector<SnapshotEntry> out;
  Status bad;
  UCMOH_RETURN_IF_ERROR(
      impl_->ForEach(kSnapshots, keys::SnapshotPrefix(version), [&](const auto&, const auto& value) {
        SnapshotEntry s;
        bad = codec::Decode(value, &s).WithContext("snapshots of version " + std::to_string(version));
        if (bad.ok()) out.push_back(std::move(s));
        return bad.ok();
      }));
  if (!bad.ok()) return bad;
  return out;
}

}  // namespace ucmoh::registry
