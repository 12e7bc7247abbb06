// The registry's operations (issue 6): records in, add-intrinsic (one
// lifelong EWC step committed as one version), the lifelong matrix of a
// lineage, and pull (a TorchScript export). The `registry` CLI is a thin
// driver over these. No LibTorch or RocksDB in this header.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ucmoh/cost_model.h"
#include "ucmoh/lifelong_step.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/registry/registry_store.h"
#include "ucmoh/training.h"

namespace ucmoh::registry {

// ---- records ---------------------------------------------------------------

struct RecordsIngestResult {
  int64_t read = 0;
  AddRecordsResult stored;
  std::map<std::string, int64_t> by_intrinsic;  // records read per intrinsic
};

// Reads JSONL records files, checks every record against the plugins (an
// unknown intrinsic, or a record its plugin cannot lower, fails the whole call
// with "FILE:LINE: ..." and nothing is written), then stores them in one
// AddRecords call and registers their intrinsics.
Expected<RecordsIngestResult> AddRecordsFiles(RegistryStore& store, const PluginSet& plugins,
                                              const std::vector<std::string>& files);

// The same for JSONL text (an HTTP upload); errors name "SOURCE:LINE".
Expected<RecordsIngestResult> AddRecordsText(RegistryStore& store, const PluginSet& plugins, std::string_view text,
                                             const std::string& source);

// The same for foreign files through a plugin importer ("cutlass").
Expected<RecordsIngestResult> ImportRecordsFiles(RegistryStore& store, const PluginSet& plugins,
                                                 const std::string& format,
                                                 const std::vector<std::string>& files);

// ---- add-intrinsic ---------------------------------------------------------

struct AddIntrinsicOptions {
  // Method, λ, rehearsal, training, network and progress: the same struct,
  // and so the same defaults, as `registry lifelong` (lifelong_step.h).
  LifelongStepOptions step;
  bool relearn = false;        // allow an intrinsic that is already learned
  double test_fraction = 0.2;  // held-out tasks of NAME when it is first learned (pinned after)
  uint64_t split_seed = 0;
};

struct AddIntrinsicResult {
  ModelVersion version;  // as committed
  LifelongStepResult step;
};

// With step.training.workers (data-parallel), every rank trains and only
// rank 0 commits; the others return the step with an empty version.
// Load -> lifelong step -> commit: latest's model and forgetting state (its
// snapshots, its rehearsal samples rebuilt from the stored keys) or a fresh
// network; RunLifelongStep on NAME's training tasks; every learned intrinsic
// evaluated on its pinned held-out tasks; one CommitVersion (version,
// weights blob, snapshot blobs, rehearsal keys, evaluation, latest).
Expected<AddIntrinsicResult> AddIntrinsic(RegistryStore& store, const PluginSet& plugins,
                                          const std::string& name, const AddIntrinsicOptions& options);

// ---- reading versions ------------------------------------------------------

// The version's model (weights blob verified by sha256, loaded via a temp file).
Expected<CostModel> LoadVersionModel(const RegistryStore& store, int64_t version);

// R across the lineage root .. version (parents), from stored evaluation rows.
// Entries not evaluated are NaN.
struct LineageMatrix {
  std::vector<int64_t> versions;         // rows
  std::vector<std::string> intrinsics;   // columns (the version's intrinsics)
  std::vector<std::vector<double>> pca, top1;
  double acc = 0, bwt = 0;               // as stored in the last version
};
Expected<LineageMatrix> EvaluationMatrix(const RegistryStore& store, int64_t version);

// ---- pull --------------------------------------------------------------------

struct PullResult {
  int64_t version = 0;
  std::string model_path, manifest_path, model_sha256;
};

// Writes DIR/model.pt (TorchScript: forward(tokens [B,T,64], valid [B,T]) ->
// scores [B], normalizer included) and DIR/manifest.json. Refuses when the
// weights blob does not match its sha256.
Expected<PullResult> PullVersion(const RegistryStore& store, const std::string& ref, const std::string& dir);

}  // namespace ucmoh::registry
