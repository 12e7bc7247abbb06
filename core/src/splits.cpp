// Train / test splits. by_task holds out the tasks PinTaskSplit picks (a hash
// of seed and task key: independent of record order, task_split.h).
// within_task draws programs with one std::mt19937_64 per split, in task
// order, with our own Fisher-Yates shuffle so the result does not depend on
// the standard library's std::shuffle. Both halves come back sorted by
// program index.
#include "ucmoh/splits.h"

#include "ucmoh/task_split.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

namespace ucmoh {

namespace {

// Unbiased draw in [0, bound) by rejection.
uint64_t Below(std::mt19937_64& rng, uint64_t bound) {
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % bound;
  uint64_t x;
  do x = rng(); while (x >= limit);
  return x % bound;
}

template <class T>
void Shuffle(std::vector<T>& items, std::mt19937_64& rng) {
  for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[Below(rng, i)]);
}

// How many of `n` items go to test: round(fraction * n), at least one, and
// always leaving one behind for training.
size_t HeldOutCount(size_t n, double fraction) {
  const auto wanted = static_cast<size_t>(std::llround(fraction * static_cast<double>(n)));
  return std::clamp<size_t>(wanted, 1, n - 1);
}

void Append(std::vector<int32_t>& to, const std::vector<int32_t>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

Split Sorted(Split split) {
  std::sort(split.train.begin(), split.train.end());
  std::sort(split.test.begin(), split.test.end());
  return split;
}

Expected<Split> WithinTask(const ProgramSet& set, double fraction, std::mt19937_64& rng) {
  Split split;
  for (const auto& group : set.tasks) {
    std::vector<int32_t> programs = group.programs;
    if (programs.size() < 2) {
      Append(split.train, programs);
      continue;
    }
    Shuffle(programs, rng);
    const size_t test = HeldOutCount(programs.size(), fraction);
    split.test.insert(split.test.end(), programs.begin(), programs.begin() + test);
    split.train.insert(split.train.end(), programs.begin() + test, programs.end());
  }
  if (split.test.empty())
    return Status::InvalidArgument("within_task split: no task has two programs, so none can be held out");
  return Sorted(std::move(split));
}

// Per intrinsic, the tasks PinTaskSplit holds out: a function of the task
// keys and the seed alone, so adding records or reordering them moves nothing.
Expected<Split> ByTask(const ProgramSet& set, double fraction, uint64_t seed) {
  Split split;
  for (const auto& intrinsic : set.Intrinsics()) {
    std::vector<std::string> keys;
    for (const auto& group : set.tasks)
      if (group.intrinsic == intrinsic) keys.push_back(group.key);
    auto pinned = PinTaskSplit(keys, fraction, seed);  // fails only for a lone task: it trains
    for (const auto& group : set.tasks) {
      if (group.intrinsic != intrinsic) continue;
      const bool held = pinned.ok() && std::binary_search(pinned->held_out_tasks.begin(),
                                                          pinned->held_out_tasks.end(), group.key);
      Append(held ? split.test : split.train, group.programs);
    }
  }
  if (split.test.empty())
    return Status::InvalidArgument("by_task split: no intrinsic has two tasks, so no task can be held out");
  return Sorted(std::move(split));
}

Expected<Split> ByTarget(const ProgramSet& set, const std::string& target) {
  if (target.empty()) return Status::InvalidArgument("by_target split needs a held-out target name");
  Split split;
  std::set<std::string> targets;
  for (const auto& group : set.tasks) {
    targets.insert(group.target);
    Append(group.target == target ? split.test : split.train, group.programs);
  }
  if (split.test.empty()) {
    std::string present;
    for (const auto& t : targets) present += (present.empty() ? "" : ", ") + t;
    return Status::NotFound("by_target split: held-out target '" + target +
                            "' has no programs in this set (targets present: " + present + ")");
  }
  if (split.train.empty())
    return Status::InvalidArgument("by_target split: holding out target '" + target +
                                   "' leaves nothing to train on (it is the only target in the set)");
  return Sorted(std::move(split));
}

}  // namespace

Expected<SplitKind> ParseSplitKind(const std::string& name) {
  for (SplitKind kind : {SplitKind::kWithinTask, SplitKind::kByTask, SplitKind::kByTarget})
    if (name == SplitKindName(kind)) return kind;
  return Status::InvalidArgument("unknown split '" + name +
                                 "' (expected within_task, by_task or by_target)");
}

const char* SplitKindName(SplitKind kind) {
  switch (kind) {
    case SplitKind::kWithinTask: return "within_task";
    case SplitKind::kByTask: return "by_task";
    case SplitKind::kByTarget: return "by_target";
  }
  return "unknown";
}

Expected<Split> MakeSplit(const ProgramSet& set, const SplitOptions& options) {
  if (set.size() == 0) return Status::InvalidArgument("cannot split an empty program set");
  if (options.kind == SplitKind::kByTarget) return ByTarget(set, options.held_out_target);
  if (!(options.test_fraction > 0 && options.test_fraction < 1))
    return Status::InvalidArgument("test fraction " + std::to_string(options.test_fraction) +
                                   " is outside (0, 1)");
  if (options.kind == SplitKind::kByTask) return ByTask(set, options.test_fraction, options.seed);
  std::mt19937_64 rng(options.seed);
  return WithinTask(set, options.test_fraction, rng);
}

}  // namespace ucmoh
