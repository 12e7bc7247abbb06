// add-intrinsic as a job (POST /api/jobs): queued, run one at a time on a
// worker thread that opens the registry for writing for the job's duration,
// with progress a client polls (GET /api/jobs/ID). A job killed with the
// server commits nothing: the commit is one atomic RocksDB write.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "ucmoh/plugin_loader.h"
#include "ucmoh/registry/registry_ops.h"

namespace ucmoh::server {

struct AddIntrinsicJob {
  std::string intrinsic;
  registry::AddIntrinsicOptions options;  // AddIntrinsicOptions{} defaults, as the CLI
};

// {"intrinsic": NAME, and optionally "test_fraction", "split_seed",
// "relearn" and any lifelong-step option by its key (lifelong_step_options.h:
// "method", "lambda", "lambda_grid", "epochs", "rehearsal_programs", ...).
// An unknown key, a wrong type or an option the method ignores is an error
// naming it.
Expected<AddIntrinsicJob> AddIntrinsicJobFromJson(const std::string& body);

class JobQueue {
 public:
  static constexpr size_t kMaxWaiting = 16;

  // `on_commit` runs after a job committed a version (the server refreshes its view).
  JobQueue(std::string db_path, const PluginSet& plugins, std::function<void()> on_commit);

  // The new job's id, or Busy when kMaxWaiting jobs are waiting.
  Expected<int64_t> Submit(AddIntrinsicJob job);
  // {"id","intrinsic","state":"queued|running|done|failed","progress","version","error",...}
  Expected<nlohmann::json> Get(int64_t id) const;
  nlohmann::json List() const;

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;  // also held by the worker thread
};

}  // namespace ucmoh::server
