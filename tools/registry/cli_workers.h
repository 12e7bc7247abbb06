// Data-parallel runs of train, lifelong and add-intrinsic: `--workers N`
// starts N-1 more copies of the same command as local ranks 1..N-1, or the
// torchrun environment (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) makes
// this process one rank of a group spread over hosts. docs/scaling.md.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <sys/types.h>
#include <vector>

#include "cli_context.h"
#include "ucmoh/worker_group.h"

namespace ucmoh::cli {

struct WorkerFlags {
  int workers = 1;
  int timeout_seconds = 300;
  void Add(CLI::App& sub);
};

// The process's place in a data-parallel run. Rank 0 owns the local workers
// it started: they are stopped and reaped when it goes, so a failure on any
// rank leaves no process behind.
class WorkerRun {
 public:
  // Joins the group the environment names; else, with --workers N > 1,
  // starts ranks 1..N-1 (this program, same arguments) and joins as rank 0.
  static Expected<std::unique_ptr<WorkerRun>> Start(const GlobalOptions& global, const WorkerFlags& flags);
  ~WorkerRun();

  std::shared_ptr<WorkerGroup> group() const { return group_; }  // nullptr: one process
  bool writes() const { return !group_ || group_->writes(); }    // rank 0 (or alone) saves and prints
  // Rank 0: waits for the local workers; an error names any that failed.
  Status Finish();
  // Appends what became of local workers that already stopped (a failed
  // collective usually means one died) to `status`.
  Status Explain(const Status& status);

 private:
  std::shared_ptr<WorkerGroup> group_;
  std::vector<pid_t> children_;  // local ranks 1..N-1, started by this rank 0
};

}  // namespace ucmoh::cli
