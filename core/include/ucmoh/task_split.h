// Held-out tasks that stay put. Which tasks of an intrinsic are held out
// depends only on the task keys, the seed and the fraction — never on the
// order records arrived in or on which other tasks exist — and once an
// intrinsic is learned its split is pinned: tasks that arrive later are
// assigned once, by a hash of their key, and nothing already assigned moves.
// docs/registry.md, "Pinned held-out tasks".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/program_set.h"
#include "ucmoh/status.h"

namespace ucmoh {

struct TaskSplit {
  uint64_t seed = 0;
  double test_fraction = 0.2;
  std::vector<std::string> train_tasks;     // sorted
  std::vector<std::string> held_out_tasks;  // sorted
};

// A task key's place in [0, 1): the first 8 bytes of sha256("<seed>:<key>").
double TaskHashUnit(uint64_t seed, const std::string& task_key);

// The first split of an intrinsic: the round(fraction · n) tasks (at least
// one, and leaving one to train) with the smallest TaskHashUnit are held out.
// Needs two distinct tasks and a fraction in (0, 1).
Expected<TaskSplit> PinTaskSplit(const std::vector<std::string>& task_keys, double fraction, uint64_t seed);

// `pinned` with every key it has not assigned yet added: held out when its
// TaskHashUnit < fraction, trained on otherwise. Assigned keys never move.
TaskSplit ExtendTaskSplit(TaskSplit pinned, const std::vector<std::string>& task_keys);

// The programs of `set` whose task is held out, and the others. Tasks the
// split has not assigned are an error (extend it first).
struct ProgramSplit {
  ProgramSet train, held_out;
};
Expected<ProgramSplit> ApplyTaskSplit(const ProgramSet& set, const TaskSplit& split);

// Distinct task keys of a program set, sorted.
std::vector<std::string> TaskKeys(const ProgramSet& set);

}  // namespace ucmoh
