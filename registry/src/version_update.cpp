// version_update.h: a version's settings and forgetting state read back, and
// an online update committed as a child version.
#include "ucmoh/registry/version_update.h"

#include <fmt/format.h>

#include <chrono>

#include "ucmoh/cost_model.h"
#include "version_data.h"

namespace ucmoh::registry {

namespace {

// The parent's snapshots as they are stored: the anchors and importance of
// the intrinsics it learned still hold for its updated children.
Expected<std::vector<SnapshotData>> CopySnapshots(const RegistryStore& store, int64_t version) {
  auto entries = store.ListSnapshots(version);
  if (!entries.ok()) return entries.status();
  std::vector<SnapshotData> out;
  for (const auto& e : *entries) {
    auto bytes = store.GetBlob(e.blob_sha256);
    if (!bytes.ok()) return bytes.status().WithContext("snapshot " + e.name);
    out.push_back({e.name, e.intrinsics, e.method, std::move(*bytes)});
  }
  return out;
}

Expected<Evaluation> EvaluateOnPinnedSplits(const RegistryStore& store, const PluginSet& plugins,
                                            const ModelVersion& parent, const CostModel& model) {
  auto data = SplitAll(store, plugins, parent.intrinsics, parent.task_splits, NewSplit{});
  if (!data.ok()) return data.status();
  std::vector<HeldOutTasks> held_out;
  for (const auto& name : parent.intrinsics) held_out.push_back({name, &data->at(name).test});
  auto row = EvaluateHeldOut(model, held_out);
  if (!row.ok()) return row.status();
  return MakeEvaluation(store, *row, "");
}

ParamMap UpdateHyperParameters(const ModelVersion& parent, const OnlineUpdateCommit& c) {
  ParamMap h = parent.hyper_parameters;
  h["update"] = std::string("online");
  h["online_updates"] = c.updates;
  h["measured_programs"] = c.last_update.measured_programs;
  h["replayed_programs"] = c.last_update.replayed_programs;
  h["update_epochs"] = static_cast<int64_t>(c.last_update.epochs);
  h["update_learning_rate"] = c.last_update.learning_rate;
  return h;
}

}  // namespace

Expected<LifelongStepOptions> StepOptionsOf(const ModelVersion& v) {
  LifelongStepOptions o;
  const ParamMap& h = v.hyper_parameters;
  UCMOH_RETURN_IF_ERROR(StepOptionsFromParams(h, &o).WithContext(fmt::format("version {}", v.number)));
  // An online update searches no λ grid: it applies the λ the version's own
  // step chose.
  if (!o.lambda_grid.empty())
    if (auto used = GetReal(h, "lambda_used"); used.ok()) o.lambda = *used;
  // Older versions stored the λ applied under "lambda", 0 on a first step
  // that had nothing to remember; read that as the default.
  if (!h.count("step_options") && MethodUsesEwc(o.method) && o.lambda == 0) o.lambda = LifelongStepOptions{}.lambda;
  return o;
}

Expected<LifelongState> LoadVersionState(const RegistryStore& store, const PluginSet& plugins, const ModelVersion& v) {
  auto data = SplitAll(store, plugins, v.intrinsics, v.task_splits, NewSplit{});
  if (!data.ok()) return data.status();
  return LoadState(store, v, *data);
}

Expected<ModelVersion> CommitOnlineUpdate(RegistryStore& store, const PluginSet& plugins, const OnlineUpdateCommit& c) {
  if (!c.model) return Status::InvalidArgument("commit: no model");
  auto parent = store.GetVersion(c.parent);
  if (!parent.ok()) return parent.status();
  VersionCommit commit;
  auto snapshots = CopySnapshots(store, parent->number);
  if (!snapshots.ok()) return snapshots.status();
  commit.snapshots = std::move(*snapshots);
  auto weights = c.model->ToBytes();
  if (!weights.ok()) return weights.status();
  commit.weights = std::move(*weights);
  auto evaluation = EvaluateOnPinnedSplits(store, plugins, *parent, *c.model);
  if (!evaluation.ok()) return evaluation.status();
  ModelVersion& v = commit.version;
  v.name = parent->name;
  v.parent = parent->number;
  v.intrinsics = parent->intrinsics;
  v.hyper_parameters = UpdateHyperParameters(*parent, c);
  v.training_data_digest = c.data_digest;
  v.evaluation = std::move(*evaluation);
  v.task_splits = parent->task_splits;
  v.rehearsal = parent->rehearsal;
  v.created_at = std::chrono::duration_cast<std::chrono::seconds>(
                     std::chrono::system_clock::now().time_since_epoch()).count();
  commit.move_latest = true;
  return store.CommitVersion(commit);
}

}  // namespace ucmoh::registry
