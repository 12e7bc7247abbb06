// Opening and closing a registry, and the shared RocksDB helpers.
#include <chrono>
#include <filesystem>

#include "rocks_status.h"
#include "store_impl.h"

namespace ucmoh::registry {

namespace fs = std::filesystem;

std::string ToolVersion(const StoreOptions& options) {
  return options.tool_version.empty() ? std::string("ucmoh-registry ") + UCMOH_TOOL_VERSION
                                      : options.tool_version;
}

int64_t NowSeconds() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

// ---- Impl helpers

RegistryStore::Impl::~Impl() { Close(); }

void RegistryStore::Impl::Close() {
  if (!db) return;
  // Flushing on close leaves the data in SST and blob files, so the next open
  // does not replay a long WAL. A failure here loses nothing: the WAL stays.
  if (!read_only) db->Flush(rocksdb::FlushOptions(), cfs);
  for (auto* h : cfs) db->DestroyColumnFamilyHandle(h);
  cfs.clear();
  db->Close();
  db.reset();
}

Status RegistryStore::Impl::RequireWritable(const char* what) const {
  if (!read_only) return Status::Ok();
  return Status::InvalidArgument(std::string(what) + ": registry " + path +
                                 " is open read-only");
}

Expected<std::optional<std::string>> RegistryStore::Impl::Get(Cf which,
                                                             const std::string& key) const {
  std::string value;
  rocksdb::Status s = db->Get(rocksdb::ReadOptions(), cf(which), key, &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return FromRocks(s, std::string("read ") + CfName(which));
  return std::optional<std::string>(std::move(value));
}

Status RegistryStore::Impl::Write(rocksdb::WriteBatch* batch, const std::string& what) {
  rocksdb::WriteOptions wo;
  wo.sync = true;  // the commit point: fsync the WAL before reporting success
  return FromRocks(db->Write(wo, batch), what);
}

Status RegistryStore::Impl::ForEach(
    Cf which, const std::string& prefix,
    const std::function<bool(const std::string&, const std::string&)>& fn) const {
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), cf(which)));
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    if (!it->key().starts_with(prefix)) break;
    if (!fn(it->key().ToString(), it->value().ToString())) break;
  }
  return FromRocks(it->status(), std::string("scan ") + CfName(which));
}

// ---- Open

namespace {

Status NoRegistryError(const std::string& path) {
  return Status::NotFound("no registry at " + path +
                          " (create one with a write command, or pass --db PATH / set "
                          "UCMOH_REGISTRY)");
}

Status BusyError(const std::string& path) {
  return Status::Busy("registry " + path +
                      " is busy: another process holds it for writing (RocksDB lock " + path +
                      "/LOCK); wait for it to finish, or open it read-only to read");
}

Status OpenDb(RegistryStore::Impl* impl, OpenMode mode) {
  const auto descriptors = ColumnFamilyDescriptors(impl->options);
  const rocksdb::DBOptions db_options = MakeDbOptions(mode == OpenMode::kCreate);
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s;
  if (mode == OpenMode::kReadOnly) {
    // A reader takes no lock, so a writer's compaction may delete a file
    // between the reader listing and opening it; that race is retried.
    for (int attempt = 0; attempt < 3; ++attempt) {
      s = rocksdb::DB::OpenForReadOnly(db_options, impl->path, descriptors, &impl->cfs, &raw);
      if (s.ok() || !(s.IsIOError() || s.IsPathNotFound())) break;
    }
  } else {
    s = rocksdb::DB::Open(db_options, impl->path, descriptors, &impl->cfs, &raw);
  }
  if (IsLockHeld(s)) return BusyError(impl->path);
  if (!s.ok() && s.IsInvalidArgument() && s.ToString().find("olumn famil") != std::string::npos)
    return Status::Corruption(impl->path + " is a RocksDB database but not a UCMoH registry (" +
                              s.ToString() + ")");
  UCMOH_RETURN_IF_ERROR(FromRocks(s, "open registry " + impl->path));
  impl->db.reset(raw);
  return Status::Ok();
}

}  // namespace

Expected<std::unique_ptr<RegistryStore>> RegistryStore::Open(const std::string& path,
                                                             OpenMode mode,
                                                             const StoreOptions& options) {
  if (path.empty()) return Status::InvalidArgument("empty registry path");
  std::error_code ec;
  const bool exists = fs::exists(fs::path(path) / "CURRENT", ec);
  if (!exists && mode != OpenMode::kCreate) return NoRegistryError(path);
  if (!exists && fs::exists(path, ec) && !fs::is_empty(path, ec))
    return Status::InvalidArgument(path + " exists and is not a registry (no CURRENT file)");

  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->read_only = mode == OpenMode::kReadOnly;
  impl->options = options;
  UCMOH_RETURN_IF_ERROR(OpenDb(impl.get(), mode));
  UCMOH_RETURN_IF_ERROR(LoadEventSequence(impl.get()));
  UCMOH_RETURN_IF_ERROR(CheckSchema(impl.get(), !exists));
  return std::unique_ptr<RegistryStore>(new RegistryStore(std::move(impl)));
}

RegistryStore::RegistryStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RegistryStore::~RegistryStore() = default;

const std::string& RegistryStore::path() const { return impl_->path; }
bool RegistryStore::read_only() const { return impl_->read_only; }
int RegistryStore::schema_version() const { return impl_->schema_version; }

Status RegistryStore::Flush() {
  UCMOH_RETURN_IF_ERROR(impl_->RequireWritable("flush"));
  return FromRocks(impl_->db->Flush(rocksdb::FlushOptions(), impl_->cfs), "flush " + impl_->path);
}

}  // namespace ucmoh::registry
