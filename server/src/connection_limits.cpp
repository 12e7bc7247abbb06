#include "connection_limits.h"

namespace ucmoh::server {

ConnectionLimits::Ticket::~Ticket() {
  if (limits_) limits_->Release(address_);
}

std::optional<ConnectionLimits::Ticket> ConnectionLimits::Admit(const std::string& address, std::string* refusal) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (total_ >= max_total_) {
    *refusal = "too many connections (" + std::to_string(total_) + " open)";
    return std::nullopt;
  }
  int& mine = per_client_[address];
  if (mine >= max_per_client_) {
    *refusal = "too many connections from " + address + " (" + std::to_string(mine) + " open)";
    return std::nullopt;
  }
  ++mine;
  ++total_;
  return Ticket(this, address);
}

void ConnectionLimits::Release(const std::string& address) {
  std::lock_guard<std::mutex> lock(mutex_);
  --total_;
  auto it = per_client_.find(address);
  if (it != per_client_.end() && --it->second == 0) per_client_.erase(it);
}

int ConnectionLimits::open() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_;
}

}  // namespace ucmoh::server
