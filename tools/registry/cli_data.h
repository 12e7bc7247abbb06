// Records files -> a featurized ProgramSet and its train/test split, the way
// train, evaluate and lifelong all read their --data.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli_context.h"
#include "ucmoh/program_set.h"
#include "ucmoh/splits.h"

namespace ucmoh::cli {

struct DataArgs {
  std::vector<std::string> files;
  std::vector<std::string> intrinsics;  // empty: all
  std::string split = "by_task";        // within_task | by_task | by_target | none
  double test_fraction = 0.2;
  std::string held_out_target;
  uint64_t seed = 0;
};

// Registers --data, --intrinsic, --split, --test-fraction, --held-out-target, --split-seed.
void AddDataOptions(CLI::App& sub, DataArgs& args);

// Reads, filters and featurizes; records that cannot be lowered are reported
// on stderr with FILE:LINE and skipped.
Expected<ProgramSet> LoadProgramSet(const GlobalOptions& global, const DataArgs& args);

struct TrainTest {
  ProgramSet train, test;
};
// `none` puts everything in train (and test is empty).
Expected<TrainTest> SplitProgramSet(const ProgramSet& set, const DataArgs& args);

// Keeps `fraction` of the training tasks (whole tasks, seeded; at least one
// per intrinsic) for data-efficiency studies: more tasks beat more programs
// per task (Sasaki et al.), so data is cut by task. train --fraction and
// evaluate --baseline --fraction keep the same tasks for the same seed.
ProgramSet KeepTrainingTasks(const ProgramSet& train, double fraction, uint64_t seed);

}  // namespace ucmoh::cli
