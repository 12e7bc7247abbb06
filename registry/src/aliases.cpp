// Aliases: key the alias name, value a cereal AliasEntry. "latest" is moved
// only by CommitVersion (in the commit's batch); users set the others.
#include "keys.h"
#include "metadata_codec.h"
#include "store_impl.h"
#include "ucmoh/registry/version_ref.h"

namespace ucmoh::registry {
namespace {

constexpr const char* kLatest = "latest";

Status CheckUserAlias(const std::string& name) {
  UCMOH_RETURN_IF_ERROR(CheckAliasName(name));
  if (name == kLatest)
    return Status::InvalidArgument("'latest' is moved by every new version and cannot be set by hand");
  return Status::Ok();
}

Expected<std::optional<AliasEntry>> ReadAlias(const RegistryStore::Impl* impl,
                                              const std::string& name) {
  auto bytes = impl->Get(kAliases, name);
  if (!bytes.ok()) return bytes.status();
  if (!bytes->has_value()) return std::optional<AliasEntry>();
  AliasEntry e;
  UCMOH_RETURN_IF_ERROR(codec::Decode(**bytes, &e).WithContext("alias " + name));
  return std::optional<AliasEntry>(std::move(e));
}

}  // namespace

Status RegistryStore::SetAlias(const std::string& name, int64_t version) {
  UCMOH_RETURN_IF_ERROR(impl_->RequireWritable("set alias"));
  UCMOH_RETURN_IF_ERROR(CheckUserAlias(name));
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  auto v = GetVersion(version);  // refuses unknown versions
  if (!v.ok()) return v.status().WithContext("alias " + name);
  rocksdb::WriteBatch batch;
  const AliasEntry entry{name, version, NowSeconds()};
  batch.Put(impl_->cf(kAliases), name, codec::Encode(entry));
  AddEventToBatch(impl_.get(), &batch, "alias", name + " -> " + std::to_string(version));
  return impl_->Write(&batch, "set alias " + name);
}

Status RegistryStore::DeleteAlias(const std::string& name) {
  UCMOH_RETURN_IF_ERROR(impl_->RequireWritable("delete alias"));
  UCMOH_RETURN_IF_ERROR(CheckUserAlias(name));
  std::lock_guard<std::mutex> lock(impl_->write_mu);
  auto existing = ReadAlias(impl_.get(), name);
  if (!existing.ok()) return existing.status();
  if (!existing->has_value()) return Status::NotFound("no alias " + name);
  rocksdb::WriteBatch batch;
  batch.Delete(impl_->cf(kAliases), name);
  AddEventToBatch(impl_.get(), &batch, "alias_deleted", name);
  return impl_->Write(&batch, "delete alias " + name);
}

Expected<std::vector<AliasEntry>> RegistryStore::ListAliases() const {
  std::vector<AliasEntry> out;
  Status bad;
  UCMOH_RETURN_IF_ERROR(impl_->ForEach(kAliases, "", [&](const auto& key, const auto& value) {
    AliasEntry e;
    bad = codec::Decode(value, &e).WithContext("alias " + key);
    if (bad.ok()) out.push_back(std::move(e));
    return bad.ok();
  }));
  if (!bad.ok()) return bad;
  return out;
}

Expected<int64_t> RegistryStore::ResolveRef(const std::string& text) const {
  auto ref = ParseVersionRef(text);
  if (!ref.ok()) return ref.status();
  int64_t number = ref->number;
  if (!ref->alias.empty()) {
    auto alias = ReadAlias(impl_.get(), ref->alias);
    if (!alias.ok()) return alias.status();
    if (!alias->has_value())
      return Status::NotFound(ref->alias == kLatest
                                  ? "registry " + impl_->path + " has no versions yet"
                                  : "no alias '" + ref->alias + "' in " + impl_->path);
    number = (*alias)->version;
  }
  auto v = GetVersion(number);
  if (!v.ok()) return v.status().WithContext(text);
  if (v->name != ref->model)
    return Status::NotFound(text + ": version " + std::to_string(number) + " is of model '" +
                            v->name + "', not '" + ref->model + "'");
  return number;
}

}  // namespace ucmoh::registry
