#include "ucmoh/task_split.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "ucmoh/sha256.h"

namespace ucmoh {

namespace {

bool Contains(const std::vector<std::string>& sorted, const std::string& key) {
  return std::binary_search(sorted.begin(), sorted.end(), key);
}

void InsertSorted(std::vector<std::string>& sorted, const std::string& key) {
  sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), key), key);
}

}  // namespace

double TaskHashUnit(uint64_t seed, const std::string& task_key) {
  const std::string hex = Sha256Hex(std::to_string(seed) + ":" + task_key);
  const uint64_t top = std::stoull(hex.substr(0, 16), nullptr, 16);
  return static_cast<double>(top >> 11) * 0x1.0p-53;  // 53 bits: exact in a double
}

Expected<TaskSplit> PinTaskSplit(const std::vector<std::string>& task_keys, double fraction, uint64_t seed) {
  if (!(fraction > 0 && fraction < 1))
    return Status::InvalidArgument("test fraction " + std::to_string(fraction) + " is outside (0, 1)");
  const std::set<std::string> distinct(task_keys.begin(), task_keys.end());
  if (distinct.size() < 2)
    return Status::InvalidArgument("holding tasks out needs two tasks, not " + std::to_string(distinct.size()));
  std::vector<std::pair<double, std::string>> ranked;
  for (const std::string& key : distinct) ranked.emplace_back(TaskHashUnit(seed, key), key);
  std::sort(ranked.begin(), ranked.end());
  const auto wanted = static_cast<size_t>(std::llround(fraction * static_cast<double>(ranked.size())));
  const size_t held = std::clamp<size_t>(wanted, 1, ranked.size() - 1);
  TaskSplit split;
  split.seed = seed;
  split.test_fraction = fraction;
  for (size_t i = 0; i < ranked.size(); ++i)
    (i < held ? split.held_out_tasks : split.train_tasks).push_back(ranked[i].second);
  std::sort(split.train_tasks.begin(), split.train_tasks.end());
  std::sort(split.held_out_tasks.begin(), split.held_out_tasks.end());
  return split;
}

TaskSplit ExtendTaskSplit(TaskSplit pinned, const std::vector<std::string>& task_keys) {
  for (const std::string& key : task_keys) {
    if (Contains(pinned.train_tasks, key) || Contains(pinned.held_out_tasks, key)) continue;
    const bool held = TaskHashUnit(pinned.seed, key) < pinned.test_fraction;
    InsertSorted(held ? pinned.held_out_tasks : pinned.train_tasks, key);
  }
  return pinned;
}

Expected<ProgramSplit> ApplyTaskSplit(const ProgramSet& set, const TaskSplit& split) {
  std::vector<int32_t> train, held_out;
  for (const TaskGroup& group : set.tasks) {
    const bool held = Contains(split.held_out_tasks, group.key);
    if (!held && !Contains(split.train_tasks, group.key))
      return Status::InvalidArgument("task '" + group.key + "' is not assigned by the split (extend it first)");
    auto& to = held ? held_out : train;
    to.insert(to.end(), group.programs.begin(), group.programs.end());
  }
  std::sort(train.begin(), train.end());
  std::sort(held_out.begin(), held_out.end());
  return ProgramSplit{set.Subset(train), set.Subset(held_out)};
}

std::vector<std::string> TaskKeys(const ProgramSet& set) {
  std::set<std::string> keys;
  for (const TaskGroup& group : set.tasks) keys.insert(group.key);
  return {keys.begin(), keys.end()};
}

}  // namespace ucmoh
