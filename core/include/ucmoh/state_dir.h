// A version's forgetting state as plain files, so that a model pulled out of
// its registry can still be updated under it (libucmoh, docs/compilers.md):
//   DIR/state.json        hyper-parameters, snapshot files, rehearsal keys
//   DIR/NN.snapshot       the snapshots in learning order (snapshot.h's format)
//   DIR/rehearsal.jsonl   the records of every rehearsal sample (records.md)
// Written by `registry pull`, read by libucmoh; this file is the one place
// that knows the layout.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ucmoh/lifelong_step.h"
#include "ucmoh/params.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/record.h"
#include "ucmoh/snapshot.h"

namespace ucmoh {

struct StateFiles {
  ParamMap hyper_parameters;  // the version's (method, λ, γ, ...)
  std::vector<Snapshot> snapshots;
  // Per intrinsic, in learning order: its replay and validation keys.
  std::vector<std::pair<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>>> rehearsal_keys;
  std::vector<Record> rehearsal_records;  // every record those keys name
};

Status WriteStateDir(const std::string& dir, const StateFiles& files);

// The state back, with its rehearsal programs featurized through `plugins`,
// and the hyper-parameters it was trained with.
struct LoadedState {
  LifelongState state;
  ParamMap hyper_parameters;
};
Expected<LoadedState> ReadStateDir(const std::string& dir, const PluginSet& plugins);

}  // namespace ucmoh
