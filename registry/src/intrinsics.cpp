// Intrinsics: key the intrinsic name, value a cereal IntrinsicEntry.
#include "keys.h"
#include "metadata_codec.h"
#include "store_impl.h"

namespace ucmoh::registry {

Status RegistryStore::PutIntrinsic(const IntrinsicEntry& entry) {
  UCMOH_RETURN_IF_ERROR(impl_->RequireWritable("put intrinsic"));
  if (entry.name.empty()) return Status::InvalidArgument("intrinsic without a name");
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  if (entry.learned_in_version != 0) {
    auto v = impl_->Get(kVersions, keys::VersionKey(entry.learned_in_version));
    if (!v.ok()) return v.status();
    if (!v->has_value())
      return Status::NotFound("intrinsic " + entry.name + " names version " +
                              std::to_string(entry.learned_in_version) + ", which does not exist");
  }
  rocksdb::WriteBatch batch;
  batch.Put(impl_->cf(kIntrinsics), entry.name, codec::Encode(entry));
  AddEventToBatch(impl_.get(), &batch, "intrinsic",
                  entry.name + " from plugin " + entry.plugin + " (" + entry.plugin_sha256 + ")");
  return impl_->Write(&batch, "put intrinsic " + entry.name);
}

Expected<IntrinsicEntry> RegistryStore::GetIntrinsic(const std::string& name) const {
  auto v = impl_->Get(kIntrinsics, name);
  if (!v.ok()) return v.status();
  if (!v->has_value()) return Status::NotFound("no intrinsic " + name + " in " + impl_->path);
  IntrinsicEntry e;
  UCMOH_RETURN_IF_ERROR(codec::Decode(**v, &e).WithContext("intrinsic " + name));
  return e;
}

Expected<std::vector<IntrinsicEntry>> RegistryStore::ListIntrinsics() const {
  std::vector<IntrinsicEntry> out;
  Status bad;
  UCMOH_RETURN_IF_ERROR(impl_->ForEach(kIntrinsics, "", [&](const auto& key, const auto& value) {
    IntrinsicEntry e;
    bad = codec::Decode(value, &e).WithContext("intrinsic " + key);
    if (bad.ok()) out.push_back(std::move(e));
    return bad.ok();
  }));
  if (!bad.ok()) return bad;
  return out;
}

}  // namespace ucmoh::registry
