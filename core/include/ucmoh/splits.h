// Train / test splits of a ProgramSet, seeded and reproducible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/program_set.h"

namespace ucmoh {

enum class SplitKind {
  kWithinTask,  // random programs of every task go to test
  kByTask,      // whole tasks are held out (per intrinsic, so every intrinsic is in both halves)
  kByTarget,    // every program of one target is held out
};

struct SplitOptions {
  SplitKind kind = SplitKind::kByTask;
  double test_fraction = 0.2;
  uint64_t seed = 0;
  std::string held_out_target;  // kByTarget only
};

struct Split {
  std::vector<int32_t> train;
  std::vector<int32_t> test;
};

Expected<SplitKind> ParseSplitKind(const std::string& name);  // "within_task", "by_task", "by_target"
const char* SplitKindName(SplitKind kind);

Expected<Split> MakeSplit(const ProgramSet& set, const SplitOptions& options);

}  // namespace ucmoh
