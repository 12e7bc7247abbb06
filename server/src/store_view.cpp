// The refreshing read-only view of the registry (store_view.h).
#include "store_view.h"

namespace ucmoh::server {

StoreView::StoreView(std::string db_path, std::chrono::milliseconds refresh)
    : db_path_(std::move(db_path)), refresh_(refresh) {}

Expected<std::shared_ptr<const registry::RegistryStore>> StoreView::Current() {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (store_ && now - opened_at_ < refresh_) return store_;
  auto opened = registry::RegistryStore::Open(db_path_, registry::OpenMode::kReadOnly);
  if (!opened.ok()) {
    if (store_) return store_;  // keep serving the last good view
    return opened.status();
  }
  store_ = std::shared_ptr<const registry::RegistryStore>(std::move(*opened));
  opened_at_ = now;
  return store_;
}

void StoreView::Invalidate() {
  std::lock_guard<std::mutex> lock(mutex_);
  opened_at_ = {};
}

}  // namespace ucmoh::server
