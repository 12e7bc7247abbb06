// Data-parallel training across processes and hosts, on LibTorch's own
// collective engine: c10d's ProcessGroupGloo over a c10d TCPStore, the pair
// torchrun and torch.distributed use. Every rank runs the same training loop
// on the same programs; each takes its share of every batch's task groups,
// the gradients are summed with an all-reduce, and every rank applies the
// same update, so the parameters stay identical. Rank 0 is the one writer.
// docs/scaling.md explains the design and projects it to TenSet's size.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ucmoh/status.h"

namespace ucmoh {

struct WorkerGroupOptions {
  int rank = 0;
  int world_size = 1;
  std::string master_addr = "127.0.0.1";  // where rank 0 listens (its c10d TCPStore)
  int master_port = 29500;
  // How long a collective (or joining) waits for the other ranks before the
  // job fails: a worker that hangs, rather than dies, is caught by this.
  std::chrono::seconds timeout{300};
  // Rank 0 asks this while it waits for the others to join (every 50 ms): an
  // error stops the wait at once. `--workers` passes "have my local ranks
  // died?", so a rank that dies while loading fails the job in a moment, not
  // after `timeout`. Unset: wait out the timeout (ranks on other hosts).
  std::function<Status()> peers_alive;
};

// The torchrun environment: RANK, WORLD_SIZE, MASTER_ADDR (default
// 127.0.0.1), MASTER_PORT (default 29500), UCMOH_WORKER_TIMEOUT (seconds).
// std::nullopt when WORLD_SIZE is unset; an error names the bad variable.
Expected<std::optional<WorkerGroupOptions>> WorkerGroupOptionsFromEnvironment();

class WorkerGroup {
 public:
  // Connects to the other ranks (rank 0 hosts the store). Fails after
  // options.timeout if they do not all arrive.
  static Expected<std::shared_ptr<WorkerGroup>> Join(const WorkerGroupOptions& options);
  ~WorkerGroup();
  WorkerGroup(const WorkerGroup&) = delete;
  WorkerGroup& operator=(const WorkerGroup&) = delete;

  int rank() const;
  int world_size() const;
  bool writes() const { return rank() == 0; }  // the one rank that saves and commits

  // Fails on every rank unless every rank passes the same value: ranks started
  // on different data or flags stop at once with a message naming `what`,
  // instead of training different models in lockstep.
  Status CheckAgreement(uint64_t value, const std::string& what);

  struct Impl;  // worker_group_impl.h: the tensor collectives training uses
  Impl& impl() { return *impl_; }

 private:
  explicit WorkerGroup(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ucmoh
