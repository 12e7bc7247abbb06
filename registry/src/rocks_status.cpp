#include "rocks_status.h"

namespace ucmoh::registry {

bool IsLockHeld(const rocksdb::Status& s) {
  // RocksDB reports a held lock as an IOError: "lock hold by current process"
  // (same process) or "While lock file: .../LOCK: Resource temporarily
  // unavailable" (flock failed in another process). There is no subcode.
  if (!s.IsIOError()) return false;
  const std::string m = s.ToString();
  return m.find("lock hold by current process") != std::string::npos ||
         (m.find("LOCK") != std::string::npos &&
          m.find("temporarily unavailable") != std::string::npos);
}

Status FromRocks(const rocksdb::Status& s, const std::string& context) {
  if (s.ok()) return Status::Ok();
  const std::string m = context + ": " + s.ToString();
  if (s.IsNotFound()) return Status::NotFound(m);
  if (s.IsCorruption()) return Status::Corruption(m);
  if (s.IsInvalidArgument()) return Status::InvalidArgument(m);
  if (s.IsNotSupported()) return Status::Unsupported(m);
  if (s.IsBusy() || s.IsTryAgain()) return Status::Busy(m);
  if (s.IsIOError()) return Status::IOError(m);
  return Status::Internal(m);
}

}  // namespace ucmoh::registry
