// version_data.h: programs by pinned split, forgetting state, evaluation rows.
#include "version_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ucmoh/rehearsal.h"
#include "ucmoh/snapshot.h"
#include "ucmoh/state_dir.h"

namespace ucmoh::registry {

namespace {

// NAME's records split by its pinned held-out tasks: the parent version's
// split when it has one (options cannot move it), else one pinned now from
// `fresh`.
Expected<HeldOut> SplitIntrinsic(const RegistryStore& store, const PluginSet& plugins, const std::string& name,
                                 const std::map<std::string, TaskSplit>& pinned, NewSplit fresh) {
  auto records = store.ReadRecords(name);
  if (!records.ok()) return records.status();
  auto set = BuildProgramSet(plugins, *records);
  if (!set.ok()) return set.status().WithContext(name);
  const std::vector<std::string> keys = TaskKeys(*set);
  auto found = pinned.find(name);
  Expected<TaskSplit> split = found != pinned.end() ? ExtendTaskSplit(found->second, keys)
                                                    : PinTaskSplit(keys, fresh.test_fraction, fresh.seed);
  if (!split.ok())
    return Status::InvalidArgument(fmt::format("{}: cannot hold tasks out for evaluation: {}", name,
                                               split.status().message()));
  auto halves = ApplyTaskSplit(*set, *split);
  if (!halves.ok()) return halves.status().WithContext(name);
  if (halves->train.size() == 0 || halves->held_out.size() == 0)
    return Status::InvalidArgument(fmt::format("{}: its pinned split leaves no task to {}", name,
                                               halves->train.size() == 0 ? "train on" : "evaluate on"));
  return HeldOut{std::move(halves->train), std::move(halves->held_out), std::move(*split)};
}

size_t LearnedPosition(const ModelVersion& v, const std::vector<std::string>& covered) {
  auto it = std::find(v.intrinsics.begin(), v.intrinsics.end(), covered.empty() ? "" : covered.front());
  return static_cast<size_t>(it - v.intrinsics.begin());
}


}  // namespace

// Every intrinsic of the row split by its pinned held-out tasks.
Expected<std::map<std::string, HeldOut>> SplitAll(const RegistryStore& store, const PluginSet& plugins,
                                                  const std::vector<std::string>& row,
                                                  const std::map<std::string, TaskSplit>& pinned,
                                                  NewSplit fresh) {
  std::map<std::string, HeldOut> data;
  for (const auto& name : row) {
    auto h = SplitIntrinsic(store, plugins, name, pinned, fresh);
    if (!h.ok()) return h.status();
    data.emplace(name, std::move(*h));
  }
  return data;
}

// The parent's forgetting state: its snapshots, and its rehearsal samples
// rebuilt from the stored keys out of each intrinsic's training programs.
Expected<std::vector<Snapshot>> LoadSnapshots(const RegistryStore& store, const ModelVersion& v) {
  auto entries = store.ListSnapshots(v.number);
  if (!entries.ok()) return entries.status();
  std::vector<Snapshot> out;
  for (const auto& e : *entries) {
    auto bytes = store.GetBlob(e.blob_sha256);
    if (!bytes.ok()) return bytes.status().WithContext("snapshot " + e.name);
    auto s = DeserializeSnapshot(*bytes);
    if (!s.ok()) return s.status().WithContext("snapshot " + e.name);
    out.push_back(std::move(*s));
  }
  std::stable_sort(out.begin(), out.end(), [&](const Snapshot& a, const Snapshot& b) {
    return LearnedPosition(v, a.intrinsics) < LearnedPosition(v, b.intrinsics);
  });
  return out;
}

Status WriteVersionState(const RegistryStore& store, const ModelVersion& v, const std::string& dir) {
  StateFiles files;
  files.hyper_parameters = v.hyper_parameters;
  auto snapshots = LoadSnapshots(store, v);
  if (!snapshots.ok()) return snapshots.status();
  files.snapshots = std::move(*snapshots);
  for (const auto& name : v.intrinsics) {
    auto keys = v.rehearsal.find(name);
    if (keys == v.rehearsal.end()) continue;  // learned before versions stored rehearsal samples
    files.rehearsal_keys.push_back({name, {keys->second.replay, keys->second.validation}});
    std::set<std::string> wanted(keys->second.replay.begin(), keys->second.replay.end());
    wanted.insert(keys->second.validation.begin(), keys->second.validation.end());
    auto records = store.ReadRecords(name);
    if (!records.ok()) return records.status();
    for (auto& r : *records)
      if (wanted.count(ProgramKey(r))) files.rehearsal_records.push_back(std::move(r));
  }
  return WriteStateDir(dir, files);
}

Expected<LifelongState> LoadState(const RegistryStore& store, const ModelVersion& v,
                                  const std::map<std::string, HeldOut>& data) {
  LifelongState state;
  auto snapshots = LoadSnapshots(store, v);
  if (!snapshots.ok()) return snapshots.status();
  state.snapshots = std::move(*snapshots);
  for (const auto& name : v.intrinsics) {
    auto keys = v.rehearsal.find(name);
    if (keys == v.rehearsal.end()) continue;  // learned before versions stored rehearsal samples
    const std::string what = fmt::format("rehearsal sample of {} in version {}", name, v.number);
    auto sample = RehearsalFromKeys(name, data.at(name).train, keys->second.replay, keys->second.validation);
    if (!sample.ok()) return sample.status().WithContext(what);
    state.rehearsal.push_back(std::move(*sample));
  }
  return state;
}

// The row as an Evaluation: ACC over the learned intrinsics, BWT against the
// diagonal entries stored by the versions that learned the earlier ones.
Evaluation MakeEvaluation(const RegistryStore& store, const std::vector<EvaluationCell>& row, const std::string& name) {
  Evaluation eval;
  double bwt_sum = 0;
  int bwt_n = 0;
  for (const auto& cell : row) {
    eval.rows.push_back({cell.intrinsic, cell.metrics.pca, cell.metrics.top1, cell.metrics.top5});
    eval.acc += cell.metrics.pca / static_cast<double>(row.size());
    if (cell.intrinsic == name) continue;
    auto entry = store.GetIntrinsic(cell.intrinsic);
    if (!entry.ok() || entry->learned_in_version <= 0) continue;
    auto v = store.GetVersion(entry->learned_in_version);
    if (!v.ok()) continue;
    for (const auto& earlier : v->evaluation.rows)
      if (earlier.intrinsic == cell.intrinsic) {
        bwt_sum += cell.metrics.pca - earlier.pca;
        ++bwt_n;
      }
  }
  eval.bwt = bwt_n ? bwt_sum / bwt_n : 0.0;
  return eval;
}

}  // namespace ucmoh::registry
