// ProgramSet: featurized programs grouped into the tasks they are ranked in.
#include "ucmoh/program_set.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

#include "parallel_ranges.h"
#include "ucmoh/program_featurizer.h"

namespace ucmoh {

namespace {

// What makes two programs one ranking group (TaskGroup). The key's length
// leads, so no task key and hardware key can run into another pair's.
std::string GroupId(const TaskGroup& group) {
  return std::to_string(group.key.size()) + ':' + group.key + group.hardware;
}

// Finds or creates the group of `like` in `set`, remembering new ones in `index`.
int32_t TaskIndex(ProgramSet& set, std::unordered_map<std::string, int32_t>& index,
                  const TaskGroup& like) {
  auto [it, inserted] = index.emplace(GroupId(like), static_cast<int32_t>(set.tasks.size()));
  if (inserted) set.tasks.push_back(TaskGroup{like.key, like.intrinsic, like.target, {}, like.hardware});
  return it->second;
}

std::unordered_map<std::string, int32_t> IndexTasks(const ProgramSet& set) {
  std::unordered_map<std::string, int32_t> index;
  for (size_t t = 0; t < set.tasks.size(); ++t)
    index.emplace(GroupId(set.tasks[t]), static_cast<int32_t>(t));
  return index;
}

// `key` is stored only while every program so far has one (see program_key).
void AddProgram(ProgramSet& set, int32_t task, TokenMatrix tokens, double latency_s, std::string key) {
  if (!key.empty() && set.program_key.size() == set.tokens.size()) set.program_key.push_back(std::move(key));
  set.tasks[task].programs.push_back(static_cast<int32_t>(set.tokens.size()));
  set.tokens.push_back(std::move(tokens));
  set.latency_s.push_back(latency_s);
  set.task.push_back(task);
}

std::string KeyIfKnown(const ProgramSet& set, int32_t p) {
  return set.program_key.size() == set.size() ? set.program_key[p] : std::string();
}

bool IsUsableLatency(double latency_s) { return std::isfinite(latency_s) && latency_s > 0; }

}  // namespace

int ProgramSet::max_tokens() const {
  int longest = 0;
  for (const auto& t : tokens) longest = std::max(longest, t.num_tokens);
  return longest;
}

std::vector<float> ProgramSet::Labels() const {
  std::vector<float> labels(size(), 0.f);
  for (const auto& group : tasks) {
    double best = std::numeric_limits<double>::infinity();
    for (int32_t p : group.programs)
      if (IsUsableLatency(latency_s[p])) best = std::min(best, latency_s[p]);
    // A latency that cannot be a measurement gets label 0 (worst), not NaN.
    for (int32_t p : group.programs)
      if (IsUsableLatency(latency_s[p])) labels[p] = static_cast<float>(best / latency_s[p]);
  }
  return labels;
}

ProgramSet ProgramSet::Subset(const std::vector<int32_t>& indices) const {
  ProgramSet out;
  std::unordered_map<std::string, int32_t> index;
  out.tokens.reserve(indices.size());
  for (int32_t p : indices) {
    const int32_t task_out = TaskIndex(out, index, tasks[task[p]]);
    AddProgram(out, task_out, tokens[p], latency_s[p], KeyIfKnown(*this, p));
  }
  return out;
}

ProgramSet ProgramSet::OnlyIntrinsics(const std::vector<std::string>& intrinsics) const {
  const std::set<std::string> wanted(intrinsics.begin(), intrinsics.end());
  std::vector<int32_t> kept;
  for (size_t p = 0; p < size(); ++p)
    if (wanted.empty() || wanted.count(tasks[task[p]].intrinsic))
      kept.push_back(static_cast<int32_t>(p));
  return Subset(kept);
}

std::string ProgramSet::ProgramKeyAt(int32_t p) const {
  if (program_key.size() == size()) return program_key[p];
  const auto& programs = tasks[task[p]].programs;
  const auto position = std::find(programs.begin(), programs.end(), p) - programs.begin();
  return tasks[task[p]].key + "#" + std::to_string(position);
}

std::vector<std::string> ProgramSet::Intrinsics() const {
  std::vector<std::string> seen;
  for (const auto& group : tasks)
    if (std::find(seen.begin(), seen.end(), group.intrinsic) == seen.end())
      seen.push_back(group.intrinsic);
  return seen;
}

void ProgramSet::Append(const ProgramSet& other) {
  const bool had_keys = program_key.size() == size();
  auto index = IndexTasks(*this);
  for (size_t p = 0; p < other.size(); ++p) {
    const int32_t task_here = TaskIndex(*this, index, other.tasks[other.task[p]]);
    AddProgram(*this, task_here, other.tokens[p], other.latency_s[p],
               had_keys ? KeyIfKnown(other, static_cast<int32_t>(p)) : std::string());
  }
}

ProgramSet GroupIntoTasks(std::vector<TaskedProgram> programs) {
  ProgramSet set;
  std::unordered_map<std::string, int32_t> index;
  for (TaskedProgram& p : programs) {
    const TaskGroup like{p.task, p.intrinsic, p.target, {}, p.hardware};
    AddProgram(set, TaskIndex(set, index, like), std::move(p.tokens), p.latency_s, std::move(p.key));
  }
  return set;
}

namespace {

// Lowering and featurizing is most of scoring's time and each record's own
// work, so records are featurized on several threads (plugins are called from
// several threads: docs/plugin-abi.md); callers assemble the results in order.
struct FeaturizedRecord {
  Status status;  // why it has no tokens, when it has none
  TokenMatrix tokens;
  std::string key;  // ProgramKey
};

// Skips (leaves empty, status ok) the records `skip` names.
template <class Skip>
std::vector<FeaturizedRecord> FeaturizeInParallel(const PluginSet& plugins, const std::vector<Record>& records,
                                                  Skip skip) {
  std::vector<FeaturizedRecord> out(records.size());
  ParallelRanges(records.size(), /*min_per_thread=*/256, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      if (skip(records[i])) continue;
      auto tokens = FeaturizeRecord(plugins, records[i]);
      if (!tokens.ok()) {
        out[i].status = tokens.status();
        continue;
      }
      out[i].tokens = std::move(tokens).value();
      out[i].key = ProgramKey(records[i]);
    }
  });
  return out;
}

}  // namespace

Expected<ProgramSet> FeaturizeRecords(const PluginSet& plugins, const std::vector<Record>& records) {
  auto featurized = FeaturizeInParallel(plugins, records, [](const Record&) { return false; });
  std::vector<TaskedProgram> tasked;
  tasked.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    if (!featurized[i].status.ok()) return featurized[i].status.WithContext("record " + std::to_string(i + 1));
    tasked.push_back({r.task.key, r.intrinsic, r.target, std::move(featurized[i].tokens), r.latency.median_s,
                      std::move(featurized[i].key), HardwareKey(r.hardware)});
  }
  return GroupIntoTasks(std::move(tasked));
}

Expected<ProgramSet> BuildProgramSet(const PluginSet& plugins, const std::vector<Record>& records,
                                     std::vector<FeaturizeFailure>* failures) {
  if (records.empty()) return Status::InvalidArgument("no records to featurize");
  auto unmeasured = [](const Record& r) { return !IsUsableLatency(r.latency.median_s); };
  auto featurized = FeaturizeInParallel(plugins, records, unmeasured);
  std::vector<TaskedProgram> tasked;
  std::vector<FeaturizeFailure> local_failures;
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    if (unmeasured(r)) {
      local_failures.push_back({static_cast<int64_t>(i), "latency " + std::to_string(r.latency.median_s) +
                                                             " s is not a positive measurement"});
      continue;
    }
    if (!featurized[i].status.ok()) {
      local_failures.push_back({static_cast<int64_t>(i), featurized[i].status.message()});
      continue;
    }
    tasked.push_back({r.task.key, r.intrinsic, r.target, std::move(featurized[i].tokens), r.latency.median_s,
                      std::move(featurized[i].key), HardwareKey(r.hardware)});
  }
  ProgramSet set = GroupIntoTasks(std::move(tasked));
  if (failures) *failures = local_failures;
  if (set.size() == 0)
    return Status::InvalidArgument("none of the " + std::to_string(records.size()) +
                                   " records could be featurized; the first failure (record " +
                                   std::to_string(local_failures.front().index) +
                                   "): " + local_failures.front().message);
  return set;
}

}  // namespace ucmoh
