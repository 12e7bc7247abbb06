// How many connections `registry serve` holds open: in all, and per client
// address, so one client (or one attacker) opening sockets cannot take the
// registry off the air for the rest of the fleet. A connection holds a Ticket
// while it is open; admission past a limit says which one.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace ucmoh::server {

class ConnectionLimits {
 public:
  ConnectionLimits(int max_total, int max_per_client) : max_total_(max_total), max_per_client_(max_per_client) {}

  class Ticket {
   public:
    Ticket(ConnectionLimits* limits, std::string address) : limits_(limits), address_(std::move(address)) {}
    Ticket(Ticket&& other) noexcept : limits_(other.limits_), address_(std::move(other.address_)) {
      other.limits_ = nullptr;
    }
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket();

   private:
    ConnectionLimits* limits_;
    std::string address_;
  };

  // A ticket, or why not ("too many connections (N open)", "too many
  // connections from ADDRESS (N open)") in `refusal`.
  std::optional<Ticket> Admit(const std::string& address, std::string* refusal);

  int open() const;

 private:
  void Release(const std::string& address);

  const int max_total_, max_per_client_;
  mutable std::mutex mutex_;
  int total_ = 0;
  std::unordered_map<std::string, int> per_client_;
};

}  // namespace ucmoh::server
