// Continuing a version outside add-intrinsic: libucmoh opens a version,
// updates its model online from a tuning run's measurements under the
// version's forgetting control (online_update.h), and may commit the result
// as a new version. No LibTorch or RocksDB in this header.
#pragma once

#include <cstdint>
#include <string>

#include "ucmoh/cost_model.h"
#include "ucmoh/lifelong_step.h"
#include "ucmoh/online_update.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/registry/registry_store.h"

namespace ucmoh::registry {

// The lifelong-step options a version was trained with, read back from its
// hyper-parameters (every option of lifelong_step_options.h, as configured;
// defaults for any an older version does not record). Under a λ grid, λ is
// the one the version's step chose. A mistyped option is an error.
Expected<LifelongStepOptions> StepOptionsOf(const ModelVersion& version);

// The version's forgetting state: its snapshots and its rehearsal samples
// rebuilt from the stored keys (this reads and featurizes the records of
// every intrinsic it learned).
Expected<LifelongState> LoadVersionState(const RegistryStore& store, const PluginSet& plugins,
                                         const ModelVersion& version);

struct OnlineUpdateCommit {
  int64_t parent = 0;              // the version the model was updated from
  const CostModel* model = nullptr;
  OnlineUpdateReport last_update;  // of the update that made it (for the record)
  int64_t updates = 0;             // updates since the parent
  std::string data_digest;         // sha256 over the measured programs it was updated on
};

// Commits the updated model as a child of `parent`: the parent's intrinsics,
// pinned splits, snapshots and rehearsal keys; evaluated on every learned
// intrinsic's pinned held-out tasks; "latest" moves to it.
Expected<ModelVersion> CommitOnlineUpdate(RegistryStore& store, const PluginSet& plugins,
                                          const OnlineUpdateCommit& commit);

}  // namespace ucmoh::registry
