// add-intrinsic jobs (job_queue.h).
#include "job_queue.h"

#include <ctime>
#include <set>
#include <type_traits>
#include <thread>

#include "ucmoh/registry/registry_store.h"

namespace ucmoh::server {

using nlohmann::json;

namespace {

struct JobRecord {
  int64_t id = 0;
  AddIntrinsicJob job;
  std::string state = "queued";
  std::string progress, error;
  int64_t version = 0;
  int64_t submitted_at = 0, started_at = 0, finished_at = 0;
};

json ToJson(const JobRecord& r) {
  return {{"id", r.id}, {"kind", "add-intrinsic"}, {"intrinsic", r.job.intrinsic}, {"state", r.state},
          {"progress", r.progress}, {"version", r.version}, {"error", r.error},
          {"submitted_at", r.submitted_at}, {"started_at", r.started_at}, {"finished_at", r.finished_at}};
}

// Sets `out` from j[key] when present; false (with `error` set) on a wrong type.
template <class T>
bool Optional(const json& j, const char* key, T& out, std::string& error) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  const bool ok = std::is_same_v<T, bool>            ? it->is_boolean()
                  : std::is_floating_point_v<T>      ? it->is_number()
                  : std::is_integral_v<T>            ? it->is_number_integer() && *it >= 0 && *it <= 1e9
                                                     : it->is_string();
  if (!ok) {
    error = std::string("'") + key + "' has the wrong type or range";
    return false;
  }
  out = it->get<T>();
  return true;
}

}  // namespace

// The job's own keys; every other key is a lifelong-step option (the CLI's
// flags, by the same list) or an error.
Expected<AddIntrinsicJob> AddIntrinsicJobFromJson(const std::string& body) {
  const json j = json::parse(body, nullptr, false);
  if (!j.is_object()) return Status::InvalidArgument("the job is not a JSON object");
  AddIntrinsicJob job;
  auto& o = job.options;
  std::set<std::string> given;
  UCMOH_RETURN_IF_ERROR(StepOptionsFromJson(j, &o.step, &given));
  static const std::set<std::string> own = {"intrinsic", "test_fraction", "split_seed", "relearn"};
  for (const auto& [key, value] : j.items())
    if (!own.count(key) && !given.count(key)) return Status::InvalidArgument("unknown job key '" + key + "'");
  std::string error;
  const bool ok = Optional(j, "intrinsic", job.intrinsic, error) && Optional(j, "test_fraction", o.test_fraction, error) &&
                  Optional(j, "split_seed", o.split_seed, error) && Optional(j, "relearn", o.relearn, error);
  if (!ok) return Status::InvalidArgument(error);
  if (job.intrinsic.empty()) return Status::InvalidArgument("the job needs 'intrinsic'");
  if (o.step.method == LifelongMethod::kJoint || o.step.method == LifelongMethod::kSeparate)
    return Status::InvalidArgument(std::string("'method': ") + LifelongMethodName(o.step.method) +
                                   " is a study baseline, not an add-intrinsic step");
  UCMOH_RETURN_IF_ERROR(CheckGivenStepOptions(o.step, given, /*as_flags=*/false));
  return job;
}

struct JobQueue::Shared {
  std::string db_path;
  const PluginSet* plugins = nullptr;
  std::function<void()> on_commit;
  mutable std::mutex mutex;
  std::condition_variable wake;
  std::deque<int64_t> waiting;
  std::map<int64_t, JobRecord> jobs;
  int64_t next_id = 1;

  void Update(int64_t id, const std::function<void(JobRecord&)>& change) {
    std::lock_guard<std::mutex> lock(mutex);
    change(jobs[id]);
  }
  void Run(int64_t id);
  void Work();
};

// One job: open for writing (Busy while another writer holds the lock),
// add-intrinsic with progress, commit.
void JobQueue::Shared::Run(int64_t id) {
  AddIntrinsicJob job;
  Update(id, [&](JobRecord& r) {
    r.state = "running";
    r.started_at = std::time(nullptr);
    job = r.job;
  });
  job.options.step.on_progress = [&](const std::string& line) { Update(id, [&](JobRecord& r) { r.progress = line; }); };
  Expected<registry::AddIntrinsicResult> result = Status::Internal("not run");
  auto store = registry::RegistryStore::Open(db_path, registry::OpenMode::kReadWrite);
  if (store.ok()) result = registry::AddIntrinsic(**store, *plugins, job.intrinsic, job.options);
  const Status status = store.ok() ? result.status() : store.status();
  Update(id, [&](JobRecord& r) {
    r.state = status.ok() ? "done" : "failed";
    r.error = status.ok() ? "" : status.message();
    r.version = status.ok() ? result->version.number : 0;
    if (status.ok()) r.progress = "committed version " + std::to_string(r.version);
    r.finished_at = std::time(nullptr);
  });
  if (status.ok() && on_commit) on_commit();
}

void JobQueue::Shared::Work() {
  for (;;) {
    int64_t id = 0;
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [&] { return !waiting.empty(); });
      id = waiting.front();
      waiting.pop_front();
    }
    Run(id);
  }
}

JobQueue::JobQueue(std::string db_path, const PluginSet& plugins, std::function<void()> on_commit)
    : shared_(std::make_shared<Shared>()) {
  shared_->db_path = std::move(db_path);
  shared_->plugins = &plugins;
  shared_->on_commit = std::move(on_commit);
}

Expected<int64_t> JobQueue::Submit(AddIntrinsicJob job) {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  if (shared_->waiting.size() >= kMaxWaiting)
    return Status::Busy(std::to_string(kMaxWaiting) + " jobs are already waiting");
  if (shared_->jobs.empty() && shared_->next_id == 1) {
    // The worker starts with the first job; it holds the shared state, so it
    // may outlive the queue (the process exits with it).
    std::thread([s = shared_] { s->Work(); }).detach();
  }
  const int64_t id = shared_->next_id++;
  JobRecord& r = shared_->jobs[id];
  r.id = id;
  r.job = std::move(job);
  r.submitted_at = std::time(nullptr);
  shared_->waiting.push_back(id);
  shared_->wake.notify_one();
  return id;
}

Expected<json> JobQueue::Get(int64_t id) const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  auto it = shared_->jobs.find(id);
  if (it == shared_->jobs.end()) return Status::NotFound("no job " + std::to_string(id));
  return ToJson(it->second);
}

json JobQueue::List() const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  json out = json::array();
  for (const auto& [id, r] : shared_->jobs) out.push_back(ToJson(r));
  return out;
}

}  // namespace ucmoh::server
