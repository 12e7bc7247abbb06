// Content-addressed blobs (weights, Fisher snapshots): the key is the
// lowercase-hex sha256 of the bytes, the value the bytes, kept in RocksDB blob
// files. Every read recomputes the sha256 and refuses bytes that do not match.
#include "keys.h"
#include "rocks_status.h"
#include "store_impl.h"
#include "ucmoh/sha256.h"

namespace ucmoh::registry {
namespace {

Status CheckShaArgument(const std::string& sha256) {
  if (keys::IsSha256Hex(sha256)) return Status::Ok();
  return Status::InvalidArgument("'" + sha256 + "' is not a sha256 (64 lowercase hex digits)");
}

}  // namespace

// RocksDB has no existence check that skips the blob file, so this reads the
// value; a read error (a damaged blob file) is reported, not taken as absence.
Expected<bool> BlobExists(const RegistryStore::Impl* impl, const std::string& sha256) {
  auto v = impl->Get(kBlobs, sha256);
  if (!v.ok()) return v.status();
  return v->has_value();
}

Expected<std::string> RegistryStore::PutBlob(const std::string& bytes) {
  UCMOH_RETURN_IF_ERROR(impl_->RequireWritable("put blob"));
  const std::string sha = Sha256Hex(bytes);
  auto exists = BlobExists(impl_.get(), sha);
  if (!exists.ok()) return exists.status();
  if (*exists) return sha;  // dedup: same bytes, same key
  rocksdb::WriteBatch batch;
  batch.Put(impl_->cf(kBlobs), sha, bytes);
  UCMOH_RETURN_IF_ERROR(impl_->Write(&batch, "put blob " + sha));
  return sha;
}

Expected<std::string> RegistryStore::GetBlob(const std::string& sha256) const {
  UCMOH_RETURN_IF_ERROR(CheckShaArgument(sha256));
  auto v = impl_->Get(kBlobs, sha256);
  if (!v.ok()) return v.status().WithContext("blob " + sha256);
  if (!v->has_value()) return Status::NotFound("no blob " + sha256 + " in " + impl_->path);
  const std::string actual = Sha256Hex(**v);
  if (actual != sha256)
    return Status::Corruption("blob " + sha256 + " in " + impl_->path +
                              " fails its sha256 check (its bytes hash to " + actual +
                              "); the registry is damaged, run verify");
  return std::move(**v);
}

Expected<bool> RegistryStore::HasBlob(const std::string& sha256) const {
  UCMOH_RETURN_IF_ERROR(CheckShaArgument(sha256));
  return BlobExists(impl_.get(), sha256);
}

}  // namespace ucmoh::registry
