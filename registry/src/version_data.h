// What work that continues from a version reads back (add-intrinsic, and the
// online update's commit): every learned intrinsic's programs split by its
// pinned held-out tasks, the version's forgetting state, and the evaluation
// row of a new version. Internal to the registry library.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ucmoh/lifelong_step.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/program_set.h"
#include "ucmoh/registry/registry_store.h"
#include "ucmoh/snapshot.h"
#include "ucmoh/task_split.h"

namespace ucmoh::registry {

// The "step_options" hyper-parameter of versions whose hyper-parameters hold
// every lifelong-step option as configured (λ as configured, the λ applied
// as "lambda_used"); versions without it (before 2026-11-26) stored the λ applied.
constexpr int64_t kStepOptionsFormat = 2;

struct HeldOut {
  ProgramSet train, test;
  TaskSplit split;  // pinned: the parent's, extended for new tasks, or pinned now
};

// How an intrinsic with no pinned split yet is split.
struct NewSplit {
  double test_fraction = 0.2;
  uint64_t seed = 0;
};

// Every intrinsic of `row` split by its pinned held-out tasks (`pinned`, or
// pinned now by `fresh` when it has none), featurized once.
Expected<std::map<std::string, HeldOut>> SplitAll(const RegistryStore& store, const PluginSet& plugins,
                                                  const std::vector<std::string>& row,
                                                  const std::map<std::string, TaskSplit>& pinned, NewSplit fresh);

// The version's snapshots, in the order their intrinsics were learned.
Expected<std::vector<Snapshot>> LoadSnapshots(const RegistryStore& store, const ModelVersion& v);

// The version's forgetting state: its snapshots (in learning order), and its
// rehearsal samples rebuilt from the stored keys out of `data`'s training programs.
Expected<LifelongState> LoadState(const RegistryStore& store, const ModelVersion& v,
                                  const std::map<std::string, HeldOut>& data);

// Writes the version's forgetting state to `dir` (state_dir.h): its
// snapshots, rehearsal keys and the records they name, and its
// hyper-parameters, so a pulled model can be updated under them.
Status WriteVersionState(const RegistryStore& store, const ModelVersion& v, const std::string& dir);

// A row as an Evaluation: ACC over its intrinsics, BWT against the diagonal
// entries stored by the versions that learned them (`name`, the intrinsic
// learned now, has none yet; "" when none is).
Evaluation MakeEvaluation(const RegistryStore& store, const std::vector<EvaluationCell>& row, const std::string& name);

}  // namespace ucmoh::registry
